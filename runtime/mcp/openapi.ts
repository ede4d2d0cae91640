/**
 * `/mcp` in a component's OpenAPI document (live `/openapi.json` when MCP is served; the emitted file
 * when the manifest says `mcp: true`). The messages are JSON-RPC 2.0 as MCP defines them, so the body
 * is described as a JSON-RPC object rather than per method: the tools and their schemas are listed by
 * `tools/list`, and are the capabilities' own, documented above.
 */
import { addErrorEnvelope, ERROR_RESPONSE, jsonContent, schemaRef, type JsonSchema, type OpenApiParts } from "../spec/index.js";

export const MCP_PATH = "/mcp";

const JSON_RPC_MESSAGE: JsonSchema = {
  type: "object",
  description: "A JSON-RPC 2.0 request, notification or response of the Model Context Protocol (initialize, tools/list, tools/call, …)",
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"] },
    id: { description: "A string or number; absent on a notification" },
    method: { type: "string" },
    params: { type: "object" },
    result: { type: "object" },
    error: {
      type: "object",
      properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
      required: ["code", "message"],
    },
  },
  required: ["jsonrpc"],
};

const SESSION_HEADER: JsonSchema = {
  name: "Mcp-Session-Id",
  in: "header",
  required: false,
  description: "The session, as `initialize` answered it; required on every request after that one",
  schema: { type: "string" },
};

const RPC_ERROR: JsonSchema = { description: "A JSON-RPC error", content: jsonContent(schemaRef("JsonRpcMessage")) };
const NO_SESSION: JsonSchema = {
  description: "The session does not exist: ended, expired, or opened by another caller",
  content: jsonContent(schemaRef("JsonRpcMessage")),
};
const STREAM: JsonSchema = { "text/event-stream": { schema: { type: "string", description: "Server-sent events, each carrying one JSON-RPC message" } } };

function operation(operationId: string, summary: string, description: string, responses: JsonSchema, body?: boolean): JsonSchema {
  return {
    operationId,
    summary,
    description,
    tags: ["mcp"],
    parameters: [SESSION_HEADER],
    ...(body === true ? { requestBody: { required: true, content: jsonContent(schemaRef("JsonRpcMessage")) } } : {}),
    responses,
  };
}

/** The OpenApiAddition of the MCP endpoint. */
export function mcpOpenApi({ paths, schemas }: OpenApiParts): void {
  schemas["JsonRpcMessage"] = JSON_RPC_MESSAGE;
  addErrorEnvelope(schemas);
  paths[MCP_PATH] = {
    post: operation(
      "mcpMessage",
      "MCP: send one JSON-RPC message",
      "Model Context Protocol, Streamable HTTP. `initialize` opens a session (its id comes back in `Mcp-Session-Id`); each non-internal capability is a tool of the same name and schemas. A tool's failure is a result with `isError: true` whose text is the error envelope.",
      {
        "200": {
          description: "The answer to a request: JSON, or a server-sent event stream",
          content: { ...jsonContent(schemaRef("JsonRpcMessage")), ...STREAM },
        },
        "202": { description: "A notification or response, accepted" },
        "400": RPC_ERROR,
        "404": NO_SESSION,
        "406": RPC_ERROR,
        "413": ERROR_RESPONSE,
        "415": ERROR_RESPONSE,
      },
      true,
    ),
    get: operation("mcpStream", "MCP: open the server-to-client event stream", "The session's stream of server-initiated messages (at most one per session).", {
      "200": { description: "A server-sent event stream", content: STREAM },
      "400": RPC_ERROR,
      "404": NO_SESSION,
      "406": RPC_ERROR,
      "409": RPC_ERROR,
    }),
    delete: operation("mcpEndSession", "MCP: end the session", "Ends the session named by `Mcp-Session-Id`; later requests naming it get 404.", {
      "200": { description: "The session has ended" },
      "400": RPC_ERROR,
      "404": NO_SESSION,
    }),
  };
}
