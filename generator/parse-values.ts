/**
 * What gen's parse cache and its parse workers keep of a parsed manifest text: the JSON of its value, and
 * only for a text that parsed with no diagnostic at all to a value JSON gives back exactly.
 */
import { parseManifest } from "../runtime/manifest/parse.js";

/** Whether JSON gives back exactly this value: plain data, finite numbers, no -0. */
export function jsonExact(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every(jsonExact);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (!jsonExact((value as Record<string, unknown>)[key])) return false;
  return true;
}

/** The JSON of the value `text` parses to, or undefined when it has a diagnostic or JSON cannot hold it. */
export function cleanValueJson(file: string, text: string): string | undefined {
  try {
    const parsed = parseManifest(file, text);
    return parsed.value !== undefined && parsed.diagnostics.length === 0 && jsonExact(parsed.value) ? JSON.stringify(parsed.value) : undefined;
  } catch {
    // The loader reports it, parsing the text itself.
    return undefined;
  }
}
