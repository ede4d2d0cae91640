import { objectSchema, type JsonSchema } from "./json-schema.js";
import { toPascalCase } from "./names.js";
import type { CapabilitySpec, ComponentSpec } from "./types.js";

/** The two maps a part of the document adds to; insertion order is the emitted order. */
export interface OpenApiParts {
  readonly paths: JsonSchema;
  readonly schemas: JsonSchema;
}

/** Adds paths and schemas beside the capabilities' (an agent feature's endpoints). */
export type OpenApiAddition = (parts: OpenApiParts) => void;

export interface OpenApiOptions {
  /** Server URLs; the emitted file has none, the live `/openapi.json` has the one it was reached through. */
  readonly servers?: readonly string[];
  /** Run in order after the capabilities, before the framework GETs. @defaultValue none */
  readonly additions?: readonly OpenApiAddition[];
}

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const jsonContent = (schema: JsonSchema): JsonSchema => ({ "application/json": { schema } });
/** A response in the error envelope; its schema is added by `addErrorEnvelope`. */
export const ERROR_RESPONSE: JsonSchema = { description: "Error envelope", content: jsonContent(schemaRef("ErrorEnvelope")) };

const ERROR_ENVELOPE: JsonSchema = {
  type: "object",
  properties: {
    success: { type: "boolean", enum: [false] },
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        category: { type: "string" },
        retryable: { type: "boolean" },
        details: {},
        details_omitted: { type: "integer", minimum: 1, description: "Details left out past the first 20" },
      },
      required: ["code", "message", "category", "retryable"],
    },
  },
  required: ["success", "error"],
};

/** Adds the `ErrorEnvelope` schema once, wherever the first part that answers errors puts it. */
export function addErrorEnvelope(schemas: JsonSchema): void {
  schemas["ErrorEnvelope"] ??= ERROR_ENVELOPE;
}

/** `{Name}Input` / `{Name}Output`, the component schema names of a capability. */
/**
 * A capability's component schema in an OpenAPI document: the manifest name as written, then `Input` or
 * `Output` (`get_current_weatherInput`), as the spec names them. TypeScript types use `schemaName`.
 */
export function openApiSchemaName(capability: CapabilitySpec, side: "input" | "output"): string {
  return `${capability.name}${side === "input" ? "Input" : "Output"}`;
}

export function schemaName(capability: CapabilitySpec, side: "input" | "output"): string {
  return `${toPascalCase(capability.name)}${side === "input" ? "Input" : "Output"}`;
}

function operation(capability: CapabilitySpec): JsonSchema {
  const tags = capability.internal ? [capability.type, "internal"] : [capability.type];
  const requestSchema = capability.input === undefined ? { type: "object" } : { $ref: `#/components/schemas/${openApiSchemaName(capability, "input")}` };
  const ok: JsonSchema = { description: "Successful response" };
  if (capability.output !== undefined) {
    ok["content"] = { "application/json": { schema: { $ref: `#/components/schemas/${openApiSchemaName(capability, "output")}` } } };
  }
  return {
    operationId: capability.name,
    summary: capability.description,
    tags,
    requestBody: { required: true, content: { "application/json": { schema: requestSchema } } },
    responses: { "200": ok },
  };
}

function frameworkGet(operationId: string, summary: string): JsonSchema {
  return {
    get: { operationId, summary, tags: ["framework"], responses: { "200": { description: "Successful response" } } },
  };
}

/**
 * The OpenAPI 3.0.0 document of a component, by the seed's rules: one POST per capability, schemas
 * only for declared summaries, the two framework GETs, nothing else. Keys are inserted in a fixed
 * order so the emitted file is byte-stable.
 */
export function buildOpenApi(spec: ComponentSpec, { servers = [], additions = [] }: OpenApiOptions = {}): JsonSchema {
  const paths: JsonSchema = {};
  const schemas: JsonSchema = {};
  for (const capability of spec.capabilities) {
    paths[capability.endpoint] = { post: operation(capability) };
    if (capability.input !== undefined) schemas[openApiSchemaName(capability, "input")] = objectSchema(capability.input, "openapi-3.0");
    if (capability.output !== undefined) schemas[openApiSchemaName(capability, "output")] = objectSchema(capability.output, "openapi-3.0");
  }
  for (const add of additions) add({ paths, schemas });
  paths["/api/capabilities"] = frameworkGet("listCapabilities", "List capabilities");
  paths["/health"] = frameworkGet("health", "Health check");
  const doc: JsonSchema = {
    openapi: "3.0.0",
    // A sentence that names the component and its kind, then what the manifest says of it.
    info: { title: spec.name, version: spec.version, description: `${spec.name} is ${spec.kind === "agent" ? "an agent" : "a tool"}: ${spec.description}` },
  };
  if (servers.length > 0) doc["servers"] = servers.map((url) => ({ url }));
  doc["paths"] = paths;
  doc["components"] = { schemas };
  return doc;
}
