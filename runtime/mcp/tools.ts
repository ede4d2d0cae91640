/**
 * The tools a component serves over MCP and how a `tools/call` is answered: the arguments checked by
 * the tool's own compiled validator (a capability's is the one its HTTP route uses), then its call.
 * Every failure of a known tool is a tool result with `isError: true` carrying the ManifoldError
 * envelope; only an unknown tool is a JSON-RPC protocol error, as the MCP specification asks.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isManifoldError, ManifoldError, toManifoldError } from "../errors/index.js";
import type { McpLog, McpToolDefinition, McpToolOutcome, McpToolRequest } from "./types.js";

export interface McpToolTable<S> {
  /** The `tools/list` answer, built once. */
  readonly list: readonly Tool[];
  call(name: string, args: Record<string, unknown>, request: McpToolRequest<S>): Promise<CallToolResult>;
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return "(a thrown value that cannot be printed)";
  }
}

/**
 * A failure as a tool result. The envelope is the text (JSON), exactly what the HTTP route answers.
 * It is not put in `structuredContent`: a client checks that against the tool's `outputSchema` even
 * on an error (the SDK's Client does), and an envelope is not the tool's output.
 */
export function toolError(error: unknown, log: McpLog, where: string): CallToolResult {
  const manifold = toManifoldError(error);
  // As on HTTP: what the caller sees of an unexpected failure is `internal error`, the cause goes to the log once.
  if (!isManifoldError(error) || !manifold.expose) {
    try {
      (log.error ?? log)(`${where} failed: ${describe(error)}`);
    } catch {
      // A failing logger must not take the answer down with it.
    }
  }
  return { isError: true, content: [{ type: "text", text: JSON.stringify(manifold.toEnvelope()) }] };
}

function toolSuccess({ structured, text }: McpToolOutcome): CallToolResult {
  return structured === undefined ? { content: [{ type: "text", text }] } : { content: [{ type: "text", text }], structuredContent: structured };
}

function listed<S>({ name, description, inputSchema, outputSchema }: McpToolDefinition<S>): Tool {
  return {
    name,
    description,
    inputSchema: inputSchema as Tool["inputSchema"],
    ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as NonNullable<Tool["outputSchema"]> }),
  };
}

/** The tool table of one component (its names are unique: lazy-endpoint.ts checked them). */
export function createToolTable<S>(tools: readonly McpToolDefinition<S>[], { log, component }: { log: McpLog; component: string }): McpToolTable<S> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const list = tools.map(listed);
  return {
    list,
    async call(name, args, request) {
      const tool = byName.get(name);
      if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
      const where = `${component} MCP tool ${name}`;
      const details = tool.validate(args);
      if (details !== undefined) return toolError(new ManifoldError("INVALID_INPUT", `input of ${name} does not match its schema`, { details }), log, where);
      try {
        return toolSuccess(await tool.call(args, request));
      } catch (error) {
        return toolError(error, log, where);
      }
    },
  };
}
