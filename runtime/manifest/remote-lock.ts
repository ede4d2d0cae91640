/**
 * Reading the lock file of a remote component (`kind: mcp`, `kind: a2a`) beside its manifest: bounded,
 * strict UTF-8 JSON, an object of the expected `lockfileVersion`. What the object must hold besides is
 * each kind's own check.
 */
import type { ManifestFiles } from "./feature.js";

/** A lock file larger than this is not read: a server listing 1000 tools, or a card of 1000 skills, fits well below. */
export const MAX_LOCK_BYTES = 8 * 1024 * 1024;

export type LockJson = { readonly value: Readonly<Record<string, unknown>> } | { readonly missing: true } | { readonly invalid: string };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function readLockJson(path: string, files: ManifestFiles | undefined, version: number): LockJson {
  const info = files?.stat(path);
  if (files === undefined || info === undefined) return { missing: true };
  if (info.kind !== "file") return { invalid: "is not a regular file" };
  if (info.bytes > MAX_LOCK_BYTES) return { invalid: `is larger than ${MAX_LOCK_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(files.read(path, MAX_LOCK_BYTES)));
  } catch {
    return { invalid: "is not UTF-8 JSON" };
  }
  if (!isRecord(value)) return { invalid: "is not a JSON object" };
  if (value["lockfileVersion"] !== version) return { invalid: `has lockfileVersion ${JSON.stringify(value["lockfileVersion"])}; this gen reads ${version}` };
  return { value };
}
