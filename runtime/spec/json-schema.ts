import type { CapabilitySpec, FieldsSpec, ValueSpec } from "./types.js";

/** A JSON Schema object; kept loose because both draft-07 and OpenAPI 3.0 flavours come out of here. */
export type JsonSchema = { [key: string]: unknown };

/**
 * Draft-07 writes an example as `examples: [x]`; OpenAPI 3.0 schema objects only know `example: x`.
 * Everything else about the two flavours is the same, so one builder serves both.
 */
export type SchemaDialect = "draft-07" | "openapi-3.0";

export const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

export function valueSchema(value: ValueSpec, dialect: SchemaDialect): JsonSchema {
  // `any`: no constraint at all (the empty schema), in both dialects.
  const schema: JsonSchema = value.type === "any" ? {} : { type: value.type };
  if (value.description !== undefined) schema["description"] = value.description;
  if (value.enum !== undefined) schema["enum"] = [...value.enum];
  if (value.type === "string" && value.maxLength !== undefined) schema["maxLength"] = value.maxLength;
  if (value.type === "array" && value.items !== undefined) schema["items"] = valueSchema(value.items, dialect);
  if (value.type === "object" && value.fields !== undefined) Object.assign(schema, objectSchema(value.fields, dialect));
  if (value.example !== undefined) {
    if (dialect === "draft-07") schema["examples"] = [value.example];
    else schema["example"] = value.example;
  }
  return schema;
}

/**
 * The schema of an object with declared members. Undeclared members are rejected: the manifest is a
 * typed contract, and a misspelt optional field silently ignored is the bug users hate most.
 */
export function objectSchema(fields: FieldsSpec, dialect: SchemaDialect): JsonSchema {
  // fromEntries defines own properties, so a field named `__proto__` stays a field.
  const properties: JsonSchema = Object.fromEntries([...fields.required, ...fields.optional].map(({ name, ...value }) => [name, valueSchema(value, dialect)]));
  const schema: JsonSchema = { type: "object", properties };
  if (fields.required.length > 0) schema["required"] = fields.required.map((f) => f.name);
  schema["additionalProperties"] = false;
  return schema;
}

export type SchemaSide = "input" | "output";

/** The standalone draft-07 document for one side of a capability, or undefined when it has no summary. */
export function capabilitySchema(capability: CapabilitySpec, side: SchemaSide, title: string): JsonSchema | undefined {
  const fields = capability[side];
  if (fields === undefined) return undefined;
  return {
    $schema: DRAFT_07,
    title,
    description: side === "input" ? `Input of ${capability.name}: ${capability.description}` : `Output of ${capability.name}: ${capability.description}`,
    ...objectSchema(fields, "draft-07"),
  };
}
