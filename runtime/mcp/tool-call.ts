/**
 * One capability of a `kind: mcp` component as a function: the arguments checked against the tool's
 * own input schema before anything is sent, the tool called through the shared session, and its
 * result turned into the capability's output (`structuredContent`, checked against the tool's
 * output schema, or `{ text }`) or into a ManifoldError a workflow's recovery can read.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isErrorCode, ManifoldError, type ErrorDetail } from "../errors/index.js";
import type { CapabilitySpec } from "../spec/index.js";
import { compileSchemaCheck, type SchemaCheck } from "./schema-check.js";
import type { McpSession } from "./session.js";

/** Text of one result, all parts together: more is refused (the SDK has read it already; this keeps it from going further). */
export const MAX_RESULT_TEXT = 4 * 1024 * 1024;
/** A tool error's text as a message: at most this long. */
const MAX_ERROR_TEXT = 1000;

export type McpToolCall = (input: unknown, options?: { readonly signal?: AbortSignal; readonly timeoutMs?: number }) => Promise<unknown>;

export interface McpToolCallOptions {
  readonly component: string;
  readonly capability: CapabilitySpec;
  /** The session of the moment (a client's is taken on its first call). */
  readonly session: () => McpSession;
  readonly defaultTimeoutMs: number;
}

function textOf(result: CallToolResult): string {
  const parts = (result.content ?? []).flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []));
  return parts.join("\n");
}

function detailsOf(value: unknown): readonly ErrorDetail[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const details = value.filter((d): d is ErrorDetail => typeof d?.pointer === "string" && typeof d?.message === "string");
  return details.length === 0 ? undefined : details;
}

/**
 * A tool error: a Manifold component's envelope (the JSON text its MCP server sends) keeps its code;
 * any other text is the message of a HANDLER_ERROR.
 */
export function toolErrorOf(text: string, where: string): ManifoldError {
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
    if (error !== undefined && isErrorCode(error.code) && typeof error.message === "string") {
      const details = detailsOf(error.details);
      return new ManifoldError(error.code, error.message.slice(0, MAX_ERROR_TEXT), details === undefined ? {} : { details });
    }
  } catch {
    // Not JSON: plain text, below.
  }
  return new ManifoldError("HANDLER_ERROR", text === "" ? `${where} answered a tool error without text` : text.slice(0, MAX_ERROR_TEXT));
}

function outputOf(result: CallToolResult, where: string, outputCheck: SchemaCheck | undefined): unknown {
  const text = textOf(result);
  if (text.length > MAX_RESULT_TEXT) throw new ManifoldError("INVALID_RESPONSE", `${where} answered more than ${MAX_RESULT_TEXT} characters of text`);
  if (result.isError === true) throw toolErrorOf(text, where);
  if (outputCheck === undefined) return { text };
  const structured = result.structuredContent;
  if (structured === undefined)
    throw new ManifoldError("INVALID_RESPONSE", `${where} answered no structuredContent, though its tool declares an output schema`);
  const details = outputCheck(structured);
  if (details !== undefined)
    throw new ManifoldError("INVALID_RESPONSE", `${where} answered structuredContent that does not match its output schema`, { details });
  return structured;
}

export function createMcpToolCall({ component, capability, session, defaultTimeoutMs }: McpToolCallOptions): McpToolCall {
  const tool = capability.mcpTool;
  if (tool === undefined) throw new TypeError(`${component}.${capability.name} is not an MCP tool`);
  const where = `${component}.${capability.name}`;
  // Compiled on the first call: a client that is never called never compiles.
  let checks: { input: SchemaCheck; output: SchemaCheck | undefined } | undefined;
  return async (input, { signal, timeoutMs = defaultTimeoutMs } = {}) => {
    checks ??= { input: compileSchemaCheck(tool.inputSchema), output: tool.outputSchema === undefined ? undefined : compileSchemaCheck(tool.outputSchema) };
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw new ManifoldError("INVALID_INPUT", `input of ${where} must be an object`, { details: [{ pointer: "", message: "must be object" }] });
    }
    const details = checks.input(input);
    if (details !== undefined) throw new ManifoldError("INVALID_INPUT", `input of ${where} does not match its schema`, { details });
    const result = await session().callTool(tool.name, input as Record<string, unknown>, { timeoutMs, ...(signal === undefined ? {} : { signal }) });
    return outputOf(result, where, checks.output);
  };
}
