/**
 * The relay behind `manifold mcp`: every JSON-RPC message from the host (the stdio side) goes to the
 * component's Streamable HTTP endpoint as it is, and every message the component sends (responses,
 * notifications, its own requests) goes back to the host as it is, so each method works without the
 * relay knowing it. It adds three things a host launching a command cannot do itself:
 *
 * - the protocol version the component agreed in `initialize` is sent on later HTTP requests;
 * - a session the component forgot (idle past its TTL, or a restart behind the same address: a 404 on a
 *   request that carried its id) is opened again by replaying the host's `initialize`, and the message
 *   is sent again, so a host kept open for hours keeps working;
 * - a component that went away (its address refuses connections) or an endpoint that is not MCP ends
 *   the relay with a reason: the requests still waiting are answered with an error first.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** The component's side: an SDK client transport (StreamableHTTPClientTransport) or any like it. */
export interface UpstreamTransport extends Transport {
  readonly sessionId?: string | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
  terminateSession?: () => Promise<void>;
}

/** Why a send failed, as the relay needs it: the HTTP status when the component answered one. */
export interface SendFailure {
  readonly status?: number;
  readonly message: string;
}

export interface RelayOptions {
  /** The host's side (StdioServerTransport). */
  readonly host: Transport;
  /** A new transport to the component: the first one, and one per reopened session. */
  readonly connect: (events: { unreachable: (reason: string) => void }) => UpstreamTransport;
  /** What a failed send means; the default reads the SDK's `StreamableHTTPError.code`. */
  readonly classify?: (error: unknown) => SendFailure;
  /** One line per event worth a host's log (stderr). */
  readonly log: (line: string) => void;
  /** Where the component is, for messages. */
  readonly target: string;
  /** How long the replayed `initialize` of a reopened session may take. @defaultValue 30000 */
  readonly reopenTimeoutMs?: number;
}

/** How the relay ended: `0` the host closed its side, `1` the component went away or is not MCP. */
export interface RelayEnd {
  readonly code: 0 | 1;
  readonly reason?: string;
}

export interface Relay {
  /** Settles once, when the relay has ended. */
  readonly ended: Promise<RelayEnd>;
  /** Ends the relay as the host closing would (stdin ended, a signal): the session is deleted. */
  stop(): Promise<void>;
}

/** JSON-RPC "internal error": the component could not be reached or refused the message over HTTP. */
const UPSTREAM_FAILED = -32603;

function defaultClassify(error: unknown): SendFailure {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // A fetch that failed before any answer: the cause (ECONNREFUSED, …) says why.
  const cause = (error as { cause?: { message?: unknown; code?: unknown } } | undefined)?.cause;
  const detail = cause !== undefined ? `${message} (${String(cause.code ?? cause.message)})` : message;
  return typeof code === "number" && code > 0 ? { status: code, message } : { message: detail };
}

/** A one-line, bounded rendering of a failure: the component's answer can be long or span lines. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

/**
 * One relay: the host's transport, the component's current one (replaced when a session is reopened),
 * and what a reopening needs. A class so each step is a method of its own size.
 */
class McpRelay implements Relay {
  readonly ended: Promise<RelayEnd>;
  /** The host's requests the component has not answered yet, so an ending relay can answer them. */
  private readonly waiting = new Set<RequestId>();
  /** Replies the relay itself waits for (a reopened session's `initialize`), by their ids. */
  private readonly internal = new Map<RequestId, (message: JSONRPCMessage) => void>();
  private initialize: JSONRPCRequest | undefined;
  private protocolVersion: string | undefined;
  private reopened = 0;
  private upstream: UpstreamTransport;
  /** Sends wait for this while a session is being reopened. */
  private ready: Promise<void> = Promise.resolve();
  private finish!: (end: RelayEnd) => void;
  private done = false;

  constructor(private readonly options: Required<Omit<RelayOptions, "classify">> & Pick<RelayOptions, "classify">) {
    this.ended = new Promise<RelayEnd>((resolve) => (this.finish = resolve));
    const { host } = options;
    host.onmessage = (message) => {
      if (this.done) return;
      if (isJSONRPCRequest(message)) {
        if (isInitializeRequest(message)) this.initialize = message;
        this.waiting.add(message.id);
      }
      void this.forward(message);
    };
    host.onerror = (error) => this.options.log(`unreadable message from the host: ${oneLine(error.message)}`);
    host.onclose = () => void this.end(0);
    this.upstream = this.open();
    void Promise.all([this.upstream.start(), host.start()]).catch((error: unknown) => this.end(1, `cannot start: ${oneLine(String(error))}`));
  }

  stop(): Promise<void> {
    return this.end(0);
  }

  private toHost(message: JSONRPCMessage): void {
    this.options.host.send(message).catch((error: unknown) => this.options.log(`cannot write to the host: ${oneLine(String(error))}`));
  }

  private answerError(id: RequestId, message: string): void {
    this.waiting.delete(id);
    this.toHost({ jsonrpc: "2.0", id, error: { code: UPSTREAM_FAILED, message } });
  }

  private async end(code: 0 | 1, reason?: string): Promise<void> {
    if (this.done) return;
    this.done = true;
    for (const id of [...this.waiting]) this.answerError(id, reason ?? "the bridge is closing");
    const current = this.upstream;
    current.onclose = undefined;
    // The host closed its side: the component may drop the session now (best effort, bounded).
    if (code === 0) await Promise.race([current.terminateSession?.().catch(() => undefined), delay(2000)]);
    await current.close().catch(() => undefined);
    await this.options.host.close().catch(() => undefined);
    this.finish(reason === undefined ? { code } : { code, reason });
  }

  private open(): UpstreamTransport {
    const { connect, log, target } = this.options;
    let transport: UpstreamTransport | undefined;
    transport = connect({
      unreachable: (reason) => {
        if (transport === this.upstream) void this.end(1, `${target} went away: ${oneLine(reason)}`);
      },
    });
    const opened = transport;
    opened.onmessage = (message) => this.fromUpstream(opened, message);
    opened.onerror = (error) => {
      // Mostly the server-to-client stream's own reconnection attempts; a send's failure is handled where it was sent.
      if (!this.done && opened === this.upstream) log(`component stream: ${oneLine(error.message)}`);
    };
    opened.onclose = () => {
      if (opened === this.upstream) void this.end(1, `${target} closed the connection`);
    };
    return opened;
  }

  private fromUpstream(transport: UpstreamTransport, message: JSONRPCMessage): void {
    if (transport !== this.upstream || this.done) return;
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const mine = message.id === undefined ? undefined : this.internal.get(message.id);
      if (mine !== undefined) return mine(message);
      if (message.id !== undefined) this.waiting.delete(message.id);
      if (isJSONRPCResultResponse(message) && message.id === this.initialize?.id) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === "string") {
          this.protocolVersion = version;
          transport.setProtocolVersion?.(version);
        }
      }
    }
    this.toHost(message);
  }

  /** A new session in place of one the component forgot: the host's `initialize` again, under the relay's own id. */
  private async reopen(initialize: JSONRPCRequest): Promise<void> {
    const { reopenTimeoutMs, log } = this.options;
    const before = this.upstream;
    before.onclose = undefined;
    await before.close().catch(() => undefined);
    this.upstream = this.open();
    await this.upstream.start();
    const id = `manifold-mcp-bridge:reopen:${++this.reopened}`;
    let timer: NodeJS.Timeout | undefined;
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      this.internal.set(id, resolve);
      timer = setTimeout(() => reject(new Error(`no answer to initialize within ${reopenTimeoutMs} ms`)), reopenTimeoutMs);
    }).finally(() => {
      clearTimeout(timer);
      this.internal.delete(id);
    });
    await this.upstream.send({ ...initialize, id });
    const reply = await answer;
    if (!isJSONRPCResultResponse(reply)) throw new Error(`initialize refused: ${oneLine(JSON.stringify((reply as { error?: unknown }).error))}`);
    if (this.protocolVersion !== undefined) this.upstream.setProtocolVersion?.(this.protocolVersion);
    await this.upstream.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    log(`the component had forgotten the session: opened a new one (${this.reopened})`);
  }

  private async forward(message: JSONRPCMessage, retried = false): Promise<void> {
    await this.ready.catch(() => undefined);
    if (this.done) return;
    const sent = this.upstream;
    try {
      await sent.send(message);
    } catch (error) {
      if (this.done) return;
      const failure = (this.options.classify ?? defaultClassify)(error);
      const initialize = this.initialize;
      if (failure.status === 404 && sent.sessionId !== undefined && initialize !== undefined && !retried) {
        // One reopening for every message that found the session gone at once.
        if (sent === this.upstream) this.ready = this.reopen(initialize);
        try {
          await this.ready;
        } catch (reason) {
          return this.end(1, `${this.options.target} lost the session and did not open a new one: ${oneLine(String(reason))}`);
        }
        return this.forward(message, true);
      }
      return this.refused(message, failure);
    }
  }

  /** The component answered the message with an HTTP error, or could not be reached. */
  private async refused(message: JSONRPCMessage, failure: SendFailure): Promise<void> {
    const { status } = failure;
    const { target, log } = this.options;
    if (status === undefined) return this.end(1, `${target} went away: ${oneLine(failure.message)}`);
    if (status === 404 && (this.initialize === undefined || isInitializeRequest(message))) {
      return this.end(1, `${target} serves no MCP endpoint (404): is the component started with mcp: true or MANIFOLD_MCP_ENABLED=true?`);
    }
    const hint = status === 401 || status === 403 ? " (set MANIFOLD_MCP_TOKEN, or name the variable holding the token with --token-env)" : "";
    const text = `the component refused the message with HTTP ${status}${hint}: ${oneLine(failure.message)}`;
    // Refused at initialize, nothing can follow: the host is answered and the bridge ends.
    if (hint !== "" && isInitializeRequest(message)) return this.end(1, text);
    log(text);
    if (isJSONRPCRequest(message)) this.answerError(message.id, text);
  }
}

/** Starts relaying at once: the host's messages flow from now until `ended` settles. */
export function startRelay(options: RelayOptions): Relay {
  const { reopenTimeoutMs = 30_000, ...rest } = options;
  return new McpRelay({ ...rest, reopenTimeoutMs });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
