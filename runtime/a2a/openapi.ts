/**
 * `/.well-known/agent-card.json` and `/a2a` in an agent's OpenAPI document, when its manifest says
 * `a2a: true` or the running agent serves A2A. The messages are A2A's JSON-RPC 2.0 (SendMessage, SendStreamingMessage, GetTask,
 * CancelTask, …), described as JSON-RPC objects; the skills and their inputs are on the card.
 */
import { addErrorEnvelope, ERROR_RESPONSE, jsonContent, schemaRef, type AgentSpec, type JsonSchema, type OpenApiParts } from "../spec/index.js";
import { A2A_CARD_PATH, A2A_PATH } from "./card.js";

const A2A_RPC: JsonSchema = {
  type: "object",
  description: "A JSON-RPC 2.0 request or response of A2A v1.0 (SendMessage, SendStreamingMessage, GetTask, CancelTask, ListTasks)",
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"] },
    id: { description: "A string or number" },
    method: { type: "string" },
    params: { type: "object" },
    result: { type: "object" },
    error: { type: "object", properties: { code: { type: "integer" }, message: { type: "string" }, data: {} }, required: ["code", "message"] },
  },
  required: ["jsonrpc"],
};

const VERSION_HEADER: JsonSchema = {
  name: "A2A-Version",
  in: "header",
  required: true,
  description: "The A2A protocol version the client speaks: 1.0",
  schema: { type: "string" },
};

/** The manifest's word (what `gen` emits); the running agent's extension then says what it serves (below). */
export function addA2aPaths(agent: AgentSpec, parts: OpenApiParts): void {
  if (agent.a2a === true) addA2aDocument(parts);
}

/**
 * The live `/openapi.json` follows what the agent serves, which the option or MANIFOLD_A2A_ENABLED
 * may decide against the manifest: the A2A extension's addition runs after the features' and puts
 * the paths in, or takes them out.
 */
export function servedA2aPaths(enabled: boolean): (parts: OpenApiParts) => void {
  return (parts) => {
    if (enabled) return addA2aDocument(parts);
    delete parts.paths[A2A_CARD_PATH];
    delete parts.paths[A2A_PATH];
    delete parts.schemas["A2aJsonRpc"];
  };
}

function addA2aDocument({ paths, schemas }: OpenApiParts): void {
  schemas["A2aJsonRpc"] = A2A_RPC;
  addErrorEnvelope(schemas);
  paths[A2A_CARD_PATH] = {
    get: {
      operationId: "a2aAgentCard",
      summary: "A2A: the agent card",
      description:
        "Name, version, the JSON-RPC endpoint, capabilities, the bearer scheme when callers need a token, and one skill per capability, served workflow and natural mode.",
      tags: ["a2a"],
      responses: { "200": { description: "The agent card (A2A v1.0)", content: jsonContent({ type: "object" }) } },
    },
  };
  paths[A2A_PATH] = {
    post: {
      operationId: "a2aMessage",
      summary: "A2A: one JSON-RPC request",
      description:
        "A message names its skill in `metadata.skill` (natural mode on its text when it names none); a workflow or capability takes its input from the first data part. SendStreamingMessage answers server-sent events, one JSON-RPC response each.",
      tags: ["a2a"],
      parameters: [VERSION_HEADER],
      requestBody: { required: true, content: jsonContent(schemaRef("A2aJsonRpc")) },
      responses: {
        "200": {
          description: "The JSON-RPC answer (errors included), or a server-sent event stream",
          content: { ...jsonContent(schemaRef("A2aJsonRpc")), "text/event-stream": { schema: { type: "string" } } },
        },
        "413": ERROR_RESPONSE,
        "415": ERROR_RESPONSE,
      },
    },
  };
}
