/**
 * The tools a component serves over MCP and how a `tools/call` is answered: the arguments checked by
 * the tool's own compiled validator (a capability's is the one its HTTP route uses), then its call.
 * Every failure of a known tool is a tool result with `isError: true` carrying the ManifoldError
 * envelope; only an unknown tool is a JSON-RPC protocol error, as the MCP specification asks.
 */
import { safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { isManifoldError, ManifoldError, toManifoldError } from "../errors/index.js";
import type { McpLog, McpToolDefinition, McpToolOutcome, McpToolRequest } from "./types.js";

export interface McpToolTable<S> {
  /** The `tools/list` answer, built once. */
  readonly list: readonly Tool[];
  call(name: string, args: Record<string, unknown>, request: McpToolRequest<S>): Promise<CallToolResult>;
  /**
   * The same call, its result already serialised exactly as the SDK's `Server` puts it on the wire
   * (its result schema parsed it, so its keys in the schema's order); thrown as the SDK would throw.
   */
  answer(name: string, args: Record<string, unknown>, request: McpToolRequest<S>): Promise<string>;
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return "(a thrown value that cannot be printed)";
  }
}

/**
 * A failure's text: the envelope (JSON), exactly what the HTTP route answers, in a result with
 * `isError: true`. It is not put in `structuredContent`: a client checks that against the tool's
 * `outputSchema` even on an error (the SDK's Client does), and an envelope is not the tool's output.
 */
function failureText(error: unknown, log: McpLog, where: string): string {
  const manifold = toManifoldError(error);
  // As on HTTP: what the caller sees of an unexpected failure is `internal error`, the cause goes to the log once.
  if (!isManifoldError(error) || !manifold.expose) {
    try {
      (log.error ?? log)(`${where} failed: ${describe(error)}`);
    } catch {
      // A failing logger must not take the answer down with it.
    }
  }
  return JSON.stringify(manifold.toEnvelope());
}

function toolSuccess({ structured, text }: McpToolOutcome): CallToolResult {
  return structured === undefined ? { content: [{ type: "text", text }] } : { content: [{ type: "text", text }], structuredContent: structured };
}

/**
 * An object the SDK's result schema (`structuredContent`: a record) passes through unchanged: a plain
 * object, without the keys its parse would drop (`__proto__`, symbols) or a constructor of its own.
 */
export function isPlainRecord(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  return !Object.hasOwn(value, "__proto__") && !Object.hasOwn(value, "constructor") && Object.getOwnPropertySymbols(value).length === 0;
}

const textContent = (text: string): string => `{"content":[{"type":"text","text":${JSON.stringify(text)}}]`;

/** A result as the SDK sends it: parsed by its schema (key order, defaults), refused as its Server refuses it. */
function sdkResultJson(result: unknown): string {
  const parsed = safeParse(CallToolResultSchema, result);
  if (!parsed.success)
    throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${parsed.error instanceof Error ? parsed.error.message : String(parsed.error)}`);
  return JSON.stringify(parsed.data);
}

/** `toolSuccess` serialised as the SDK would send it; the usual shapes are written directly, the structured JSON reused as the text when it is the same. */
function successJson(outcome: McpToolOutcome): string {
  const { structured, text, textIsStructured } = outcome;
  if (typeof text !== "string") return sdkResultJson(toolSuccess(outcome));
  if (structured === undefined) return `${textContent(text)}}`;
  if (typeof structured !== "object" || structured === null || !isPlainRecord(structured)) return sdkResultJson(toolSuccess(outcome));
  return `${textContent(text)},"structuredContent":${textIsStructured === true ? text : JSON.stringify(structured)}}`;
}

/** `toolError`'s result serialised as the SDK would send it (`isError` after `content`). */
const errorJson = (text: string): string => `${textContent(text)},"isError":true}`;

/** A known tool's failure, told apart from any outcome a tool could return. */
class Failure {
  constructor(readonly text: string) {}
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
  /** The tool's outcome, or its failure as a tool result. */
  const run = async (name: string, args: Record<string, unknown>, request: McpToolRequest<S>): Promise<McpToolOutcome | Failure> => {
    const tool = byName.get(name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    const where = `${component} MCP tool ${name}`;
    const details = tool.validate(args);
    if (details !== undefined)
      return new Failure(failureText(new ManifoldError("INVALID_INPUT", `input of ${name} does not match its schema`, { details }), log, where));
    try {
      return await tool.call(args, request);
    } catch (error) {
      return new Failure(failureText(error, log, where));
    }
  };
  return {
    list,
    async call(name, args, request) {
      const value = await run(name, args, request);
      return value instanceof Failure ? { isError: true, content: [{ type: "text", text: value.text }] } : toolSuccess(value);
    },
    async answer(name, args, request) {
      const value = await run(name, args, request);
      return value instanceof Failure ? errorJson(value.text) : successJson(value);
    },
  };
}
