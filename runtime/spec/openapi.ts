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
  /**
   * How the component checks bearer tokens: `required`, `optional` (a token is checked when one is
   * sent) or `none`. The emitted file cannot know how the component will be served, so it says
   * `optional`; the live `/openapi.json` says what the running server does. @defaultValue "optional"
   */
  readonly auth?: OpenApiAuth;
}

export type OpenApiAuth = "required" | "optional" | "none";

/** The scheme's name in `components.securitySchemes`. */
export const BEARER_SCHEME = "bearerAuth";

/** What each tag groups, for the document's `tags` list (readers show it as the section's text). */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  tool: "Capabilities that do a unit of work",
  reasoning: "Capabilities that reason over their input",
  orchestrator: "Capabilities that call other components",
  internal: "Capabilities meant for other components rather than end users",
  orchestration: "Workflows, custom step lists and natural-language requests",
  tasks: "Asynchronous tasks: submit, poll, cancel",
  chat: "Chat sessions streamed over server-sent events",
  scheduled: "Runs delivered by the scheduler's executor",
  hitl: "Human approval: checkpoints, approve or reject, resume",
  mcp: "The Model Context Protocol (Streamable HTTP): the capabilities, and an agent's modes, as MCP tools",
  a2a: "Agent2Agent (A2A): the agent card and JSON-RPC messages and tasks",
  framework: "Health and discovery routes every component serves, without a token",
};

const OPERATION_METHODS = ["get", "put", "post", "delete", "patch"] as const;

function* operations(paths: JsonSchema): Generator<JsonSchema> {
  for (const item of Object.values(paths) as JsonSchema[])
    for (const method of OPERATION_METHODS) if (item[method] !== undefined) yield item[method] as JsonSchema;
}

/** Every tag the operations use, in first-use order, with its description. */
function tagList(paths: JsonSchema): JsonSchema[] {
  const names = new Set<string>();
  for (const op of operations(paths)) for (const tag of (op["tags"] as string[] | undefined) ?? []) names.add(tag);
  return [...names].map((name) => (TAG_DESCRIPTIONS[name] === undefined ? { name } : { name, description: TAG_DESCRIPTIONS[name] }));
}

/**
 * The bearer check guards every route but the framework GETs, so those say `security: []` and the
 * rest inherit the document's requirement; each guarded operation can answer 401.
 */
function declareAuth(doc: JsonSchema, paths: JsonSchema, schemas: JsonSchema, auth: OpenApiAuth): void {
  if (auth === "none") {
    doc["security"] = [];
    return;
  }
  // `{}` first: an anonymous call is allowed when the token is optional.
  doc["security"] = auth === "required" ? [{ [BEARER_SCHEME]: [] }] : [{}, { [BEARER_SCHEME]: [] }];
  for (const op of operations(paths)) {
    const tags = op["tags"] as string[] | undefined;
    if (tags?.includes("framework")) {
      op["security"] = [];
      continue;
    }
    const responses = op["responses"] as JsonSchema;
    responses["401"] = ERROR_RESPONSE;
    op["responses"] = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  }
  addErrorEnvelope(schemas);
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

/**
 * A capability's component schema in an OpenAPI document: the manifest name as written, then `Input` or
 * `Output` (`get_current_weatherInput`), as the spec names them. TypeScript types use `schemaName`.
 */
export function openApiSchemaName(capability: Pick<CapabilitySpec, "name">, side: "input" | "output"): string {
  return `${capability.name}${side === "input" ? "Input" : "Output"}`;
}

/** `{Name}Input` / `{Name}Output`: a capability's TypeScript type names (and its JSON Schema titles). */
export function schemaName(capability: Pick<CapabilitySpec, "name">, side: "input" | "output"): string {
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
    // What every capability route can answer besides success: bad input, too large, not JSON, a
    // handler's failure, a server draining. All in the one envelope.
    responses: { "200": ok, "400": ERROR_RESPONSE, "413": ERROR_RESPONSE, "415": ERROR_RESPONSE, "500": ERROR_RESPONSE, "503": ERROR_RESPONSE },
  };
}

const WIRE_FIELD: JsonSchema = {
  type: "object",
  properties: { name: { type: "string" }, type: { type: "string" }, required: { type: "boolean" }, description: { type: "string" } },
  required: ["name", "type"],
};

/** `GET /api/capabilities`: the capability wire objects. */
const CAPABILITY_LIST: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    properties: {
      name: { type: "string" },
      description: { type: "string" },
      endpoint: { type: "string" },
      type: { type: "string" },
      internal: { type: "boolean" },
      input_summary: { type: "object", properties: { required: { type: "array", items: WIRE_FIELD }, optional: { type: "array", items: WIRE_FIELD } } },
      output_summary: { type: "object", properties: { required: { type: "array", items: WIRE_FIELD }, optional: { type: "array", items: WIRE_FIELD } } },
    },
    required: ["name", "description", "endpoint", "type", "internal"],
  },
};

/** `GET /health`: 200 healthy or degraded, 503 unhealthy or draining. */
const HEALTH: JsonSchema = {
  type: "object",
  properties: {
    status: { type: "string", enum: ["healthy", "degraded", "unhealthy"] },
    type: { type: "string" },
    name: { type: "string" },
    id: { type: "string" },
  },
  required: ["status", "type", "name", "id"],
};

function frameworkGet(operationId: string, summary: string, schema: JsonSchema): JsonSchema {
  return {
    get: {
      operationId,
      summary,
      tags: ["framework"],
      responses: { "200": { description: "Successful response", content: jsonContent(schema) }, "503": ERROR_RESPONSE },
    },
  };
}

/**
 * The OpenAPI 3.0.0 document of a component, by the seed's rules: one POST per capability, schemas
 * only for declared summaries, the two framework GETs, nothing else. Keys are inserted in a fixed
 * order so the emitted file is byte-stable.
 */
export function buildOpenApi(spec: ComponentSpec, { servers = [], additions = [], auth = "optional" }: OpenApiOptions = {}): JsonSchema {
  const paths: JsonSchema = {};
  const schemas: JsonSchema = {};
  for (const capability of spec.capabilities) {
    paths[capability.endpoint] = { post: operation(capability) };
    if (capability.input !== undefined) schemas[openApiSchemaName(capability, "input")] = objectSchema(capability.input, "openapi-3.0");
    if (capability.output !== undefined) schemas[openApiSchemaName(capability, "output")] = objectSchema(capability.output, "openapi-3.0");
  }
  for (const add of additions) add({ paths, schemas });
  paths["/api/capabilities"] = frameworkGet("listCapabilities", "List capabilities", CAPABILITY_LIST);
  paths["/health"] = frameworkGet("health", "Health check", HEALTH);
  addErrorEnvelope(schemas);
  const doc: JsonSchema = {
    openapi: "3.0.0",
    // A sentence that names the component and its kind, then what the manifest says of it.
    info: { title: spec.name, version: spec.version, description: `${spec.name} is ${spec.kind === "agent" ? "an agent" : "a tool"}: ${spec.description}` },
  };
  // Without a known address the document's own origin ("/"), said explicitly rather than left to readers.
  doc["servers"] = servers.length > 0 ? servers.map((url) => ({ url })) : [{ url: "/" }];
  declareAuth(doc, paths, schemas, auth);
  doc["tags"] = tagList(paths);
  doc["paths"] = paths;
  doc["components"] =
    auth === "none"
      ? { schemas }
      : { schemas, securitySchemes: { [BEARER_SCHEME]: { type: "http", scheme: "bearer", description: "A bearer token in the Authorization header" } } };
  return doc;
}
