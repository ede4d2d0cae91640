import { buildOpenApi, schemaName } from "../../runtime/spec/openapi.js";
import { capabilitySchema } from "../../runtime/spec/json-schema.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";

/** Stable JSON text: two-space indent, trailing newline; key order is the builders' insertion order. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function emitOpenApi(spec: ComponentSpec): string {
  return jsonText(buildOpenApi(spec));
}

/** `schemas/<capability>Input.json` and `…Output.json`, one per declared summary. */
export function emitSchemas(spec: ComponentSpec): Map<string, string> {
  const files = new Map<string, string>();
  for (const capability of spec.capabilities) {
    for (const side of ["input", "output"] as const) {
      const schema = capabilitySchema(capability, side, schemaName(capability, side));
      if (schema === undefined) continue;
      files.set(`schemas/${capability.name}${side === "input" ? "Input" : "Output"}.json`, jsonText(schema));
    }
  }
  return files;
}
