/**
 * The MCP server of a component (issue 34): its tools, the Streamable HTTP endpoint with its bounded
 * sessions, and `/mcp` in OpenAPI. The component runtime builds the tools from its capabilities and
 * its extensions' `mcpTools` and serves the endpoint behind its normal inbound path. Nothing here
 * loads the SDK until an endpoint is created.
 */
export { createMcpEndpoint } from "./lazy-endpoint.js";
export { MCP_PATH, mcpOpenApi } from "./openapi.js";
export type { McpEndpoint, McpEndpointOptions, McpResumability, McpLog, McpToolDefinition, McpToolOutcome, McpToolRequest } from "./types.js";
export {
  connectMcpServer,
  describe as describeMcpServer,
  listMcpTools,
  type ConnectMcpOptions,
  type McpClientHandle,
  type McpListedTool,
  type McpServerAddress,
} from "./connect.js";
export { buildMcpLock, formatMcpLock, mcpToolsHash } from "./lock.js";
export { createMcpClient, type McpClientOptions, type McpMethod } from "./client.js";
export { closeMcpClient } from "./client.js";
export { createMcpSession, type McpSession, type McpSessionOptions, type McpSessionState, type McpCallOptions } from "./session.js";
export { acquireMcpSession, heldMcpSessions, type McpSessionLease } from "./session-pool.js";
export { createMcpTargets, type McpTarget, type McpTargets, type McpTargetsOptions } from "./targets.js";
export { createMcpToolCall, toolErrorOf, MAX_RESULT_TEXT, type McpToolCall } from "./tool-call.js";
export { compileSchemaCheck, type SchemaCheck } from "./schema-check.js";
