/**
 * The memory feature's part of an agent's OpenAPI document: `/memory/facts` (list, delete one, delete
 * all), tagged `memory`. Emitted for agents whose manifest turns user memory on; one turned on by
 * `MANIFOLD_MEMORY_ENABLED` alone serves the routes without documenting them in the file.
 */
import { addErrorEnvelope, ERROR_RESPONSE as ERROR, jsonContent as json, schemaRef as ref, type JsonSchema, type OpenApiParts } from "../spec/index.js";
import type { AgentSpec } from "../spec/index.js";

const STRING: JsonSchema = { type: "string" };
const TIME: JsonSchema = { type: "string", format: "date-time" };
const KEY: JsonSchema = { type: "string", pattern: "^[a-z][a-z0-9_]{0,63}$" };

const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Fact: {
    type: "object",
    description: "One durable fact the agent learnt about the user from a chat turn",
    properties: {
      key: KEY,
      value: { type: "string", maxLength: 500 },
      source: {
        type: "object",
        description: "The chat turn that stated it",
        properties: { session_id: STRING, message_id: STRING, request_id: STRING },
      },
      created_at: TIME,
      updated_at: TIME,
      previous: { type: "string", description: "The value this one replaced when the user contradicted it" },
    },
    required: ["key", "value", "source", "created_at", "updated_at"],
  },
  UserFacts: {
    type: "object",
    properties: {
      user: { type: "string", description: "The caller's identity the facts belong to" },
      facts: { type: "array", description: "Sorted by key", items: ref("Fact") },
      summary: {
        type: "object",
        description: "A short profile made from the current facts; absent when there is none, or the facts changed since",
        properties: { text: { type: "string", maxLength: 600 }, revision: { type: "integer" }, updated_at: TIME },
        required: ["text", "revision", "updated_at"],
      },
    },
    required: ["user", "facts"],
  },
};

const UNAUTHORIZED = {
  description: "No identity: a verified bearer token (or X-User-ID from a trusted gateway) is needed",
  content: json(ref("ErrorEnvelope")),
};

export function addMemoryPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  if (agent.memory?.user !== true) return;
  addErrorEnvelope(schemas);
  Object.assign(schemas, SCHEMAS);
  paths["/memory/facts"] = {
    get: {
      operationId: "listMemoryFacts",
      summary: "What the agent remembers about the caller",
      tags: ["memory"],
      responses: { "200": { description: "The caller's facts and profile", content: json(ref("UserFacts")) }, "401": UNAUTHORIZED },
    },
    delete: {
      operationId: "clearMemoryFacts",
      summary: "Forget everything about the caller",
      tags: ["memory"],
      responses: {
        "200": {
          description: "How many facts were deleted",
          content: json({ type: "object", properties: { deleted: { type: "integer", minimum: 0 } }, required: ["deleted"] }),
        },
        "401": UNAUTHORIZED,
      },
    },
  };
  paths["/memory/facts/{key}"] = {
    delete: {
      operationId: "deleteMemoryFact",
      summary: "Forget one fact about the caller; it is never recalled again",
      tags: ["memory"],
      parameters: [{ name: "key", in: "path", required: true, schema: KEY }],
      responses: { "204": { description: "Deleted" }, "401": UNAUTHORIZED, "404": ERROR },
    },
  };
}
