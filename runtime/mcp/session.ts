/**
 * One client session to an external MCP server, shared by every caller in the process that names the
 * same server (an agent's orchestrator and its handlers' clients): connected on the first call (one
 * connect in flight at a time, awaited by every caller that arrives meanwhile), dropped when its
 * transport closes or fails so the next call connects afresh, and closed when its last holder
 * releases it. Waiting is the SDK's own (its request `timeout`), so nothing here needs a clock.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { connectMcpServer, describe, type McpClientHandle, type McpServerAddress } from "./connect.js";

/** What the SDK's `McpError` codes mean to a caller (the SDK's `ErrorCode`, spelled here so the SDK loads only on connect). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;
const INVALID_PARAMS = -32602;

export interface McpSessionOptions {
  /** The component's name, for messages. */
  readonly name: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** For `initialize`. @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
  /** Calls in flight at once; one more is refused with LIMIT_EXCEEDED. @defaultValue 16 */
  readonly maxInFlight?: number;
  /** A stdio server's stderr. @defaultValue "inherit" */
  readonly stderr?: "inherit" | "ignore";
}

export interface McpCallOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** `idle`: never connected (or dropped since); `failed`: the last connect failed. */
export type McpSessionState = "idle" | "connecting" | "connected" | "failed" | "closed";

export interface McpSession {
  readonly name: string;
  state(): McpSessionState;
  /** The raw result; rejects with a ManifoldError (NETWORK_ERROR and TIMEOUT are retryable). */
  callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult>;
  close(): Promise<void>;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}

function codeOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || (error as Error).name !== "McpError") return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? code : undefined;
}

/** A failed call as a ManifoldError, and whether the session behind it is broken (so dropped). */
function callFailure(error: unknown, where: string, signal: AbortSignal | undefined): { error: ManifoldError; broken: boolean } {
  if (isManifoldError(error)) return { error, broken: false };
  if (signal?.aborted === true) {
    const reason: unknown = signal.reason;
    return { error: isManifoldError(reason) ? reason : new ManifoldError("ABORTED", `${where}: the call was aborted`), broken: false };
  }
  const code = codeOf(error);
  if (code === REQUEST_TIMEOUT) return { error: new ManifoldError("TIMEOUT", `${where} did not answer in time`, { cause: error }), broken: false };
  if (code === INVALID_PARAMS)
    return { error: new ManifoldError("INVALID_INPUT", `${where} refused the arguments: ${messageOf(error)}`, { cause: error }), broken: false };
  if (code !== undefined && code !== CONNECTION_CLOSED) {
    return { error: new ManifoldError("INVALID_RESPONSE", `${where} answered a protocol error: ${messageOf(error)}`, { cause: error }), broken: false };
  }
  // The connection closed, or the transport failed (a refused or reset socket, an HTTP error, a forgotten session).
  return { error: new ManifoldError("NETWORK_ERROR", `${where}: the MCP server cannot be reached: ${messageOf(error)}`, { cause: error }), broken: true };
}

/** Where one session stands; the functions below read and change it. */
interface Live {
  readonly address: McpServerAddress;
  readonly options: McpSessionOptions;
  client: McpClientHandle | undefined;
  connecting: Promise<McpClientHandle> | undefined;
  failed: boolean;
  closed: boolean;
  inFlight: number;
}

const closedError = (name: string): ManifoldError => new ManifoldError("UNAVAILABLE", `${name}: the MCP session is closed`);

/** Forgets a client whose transport failed; the next call connects again. */
function drop(live: Live, broken: McpClientHandle): void {
  if (live.client !== broken) return;
  live.client = undefined;
  void broken.close().catch(() => undefined);
}

/** The connected client: the current one, the connect in flight, or a new connect (never two at once). */
function connect(live: Live): Promise<McpClientHandle> {
  if (live.client !== undefined) return Promise.resolve(live.client);
  const { name, cwd, env, connectTimeoutMs = 30_000, stderr = "inherit" } = live.options;
  live.connecting ??= connectMcpServer(live.address, {
    name,
    timeoutMs: connectTimeoutMs,
    stderr,
    ...(cwd === undefined ? {} : { cwd }),
    ...(env === undefined ? {} : { env }),
  }).then(
    (connected) => {
      live.connecting = undefined;
      live.failed = false;
      if (live.closed) {
        void connected.close().catch(() => undefined);
        throw closedError(name);
      }
      live.client = connected;
      // A stdio child that exits, or a transport closed by the SDK: the next call connects again.
      connected.onclose = () => {
        if (live.client === connected) live.client = undefined;
      };
      // A transport error (an HTTP server gone mid-stream) leaves the SDK's pending requests waiting
      // for their timeout; closing the client fails them now (NETWORK_ERROR) and the next call reconnects.
      connected.onerror = () => drop(live, connected);
      return connected;
    },
    (error: unknown) => {
      live.connecting = undefined;
      live.failed = true;
      throw error;
    },
  );
  return live.connecting;
}

function stateOf({ closed, client, connecting, failed }: Live): McpSessionState {
  if (closed) return "closed";
  if (client !== undefined) return "connected";
  if (connecting !== undefined) return "connecting";
  return failed ? "failed" : "idle";
}

async function callOn(live: Live, tool: string, args: Record<string, unknown>, call: McpCallOptions): Promise<CallToolResult> {
  const { name, maxInFlight = 16 } = live.options;
  const where = `${name}.${tool} (${describe(live.address)})`;
  if (live.closed) throw closedError(name);
  if (live.inFlight >= maxInFlight) throw new ManifoldError("LIMIT_EXCEEDED", `${where}: ${maxInFlight} calls are already in flight to this MCP server`);
  live.inFlight += 1;
  try {
    try {
      return await callOnce(live, tool, args, call, where);
    } catch (error) {
      // A server that restarted has forgotten the session (HTTP 404) and never ran the call: once more, on a new one.
      if (!(error instanceof SessionForgotten)) throw error;
      return await callOnce(live, tool, args, call, where);
    }
  } finally {
    live.inFlight -= 1;
  }
}

class SessionForgotten extends Error {}

async function callOnce(
  live: Live,
  tool: string,
  args: Record<string, unknown>,
  { timeoutMs, signal }: McpCallOptions,
  where: string,
): Promise<CallToolResult> {
  let used: McpClientHandle | undefined;
  let reused = false;
  try {
    reused = live.client !== undefined;
    used = await connect(live);
    signal?.throwIfAborted();
    const options = { timeout: timeoutMs, ...(signal === undefined ? {} : { signal }) };
    return (await used.callTool({ name: tool, arguments: args }, undefined, options)) as CallToolResult;
  } catch (thrown) {
    const { error, broken } = callFailure(thrown, where, signal);
    if (broken && used !== undefined) drop(live, used);
    if (reused && (thrown as { code?: unknown } | null)?.code === 404 && (thrown as Error).name !== "McpError") throw new SessionForgotten();
    throw error;
  }
}

export function createMcpSession(address: McpServerAddress, options: McpSessionOptions): McpSession {
  const live: Live = { address, options, client: undefined, connecting: undefined, failed: false, closed: false, inFlight: 0 };
  return {
    name: options.name,
    state: () => stateOf(live),
    callTool: (tool, args, call) => callOn(live, tool, args, call),
    async close() {
      live.closed = true;
      const open = live.client;
      live.client = undefined;
      await open?.close().catch(() => undefined);
    },
  };
}
