/**
 * One session's Streamable HTTP transport, written on node:http. The SDK's own
 * (`StreamableHTTPServerTransport`) wraps its web-standard one behind `@hono/node-server`: a Request,
 * a Response and a ReadableStream per call, the SSE headers flushed apart from the event, and the
 * message parsed again by zod. That was most of what a `tools/call` cost beyond a plain POST
 * (bench/README.md), so this writes the response itself, following the same specification:
 *
 * - a POST of requests is answered with one JSON body when its answers are ready before anything else
 *   is sent for it; a message sent first (progress) turns it into an event stream. With an event store,
 *   a client on 2025-11-25 or later whose call is still running after `streamAfterMs` gets the stream
 *   too, opened with a priming event, so that a dropped connection can resume with `Last-Event-ID`;
 * - GET opens the session's stream for server messages (one at a time), or resumes one by `Last-Event-ID`;
 * - DELETE ends the session.
 *
 * Statuses and JSON-RPC errors are worded as the SDK's transport words them. A request the endpoint
 * can answer itself (`direct`: a plain `tools/call`) does not go through the SDK's `Protocol`; its
 * answer is the JSON the SDK would send, and a `notifications/cancelled` or the session's close
 * aborts it as the SDK aborts its handlers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Clock, ClockTimer } from "../util/index.js";
import type { McpEventStore, StoredEvent } from "./event-store.js";

const MAX_BATCH_SIZE = 100;
/** The first protocol version whose clients understand a priming event (an id without data). */
const RESUMABLE_FROM = "2025-11-25";
const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };

/** A JSON-RPC error on the HTTP level. */
export function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

type Message = Record<string, unknown>;

/** An event as the SDK's transport writes it; a priming event has an id and empty data. */
function sseEvent({ id, data }: StoredEvent): string {
  return data === "" ? `id: ${id}\ndata: \n\n` : `id: ${id}\nevent: message\ndata: ${data}\n\n`;
}

/** The shape of a JSON-RPC 2.0 message; what each method's params hold is checked by the server's own schemas. */
function isMessage(value: unknown): value is Message {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const m = value as Message;
  if (m["jsonrpc"] !== "2.0") return false;
  const id = m["id"];
  const hasId = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
  if (id !== undefined && !hasId) return false;
  if (typeof m["method"] === "string") return m["params"] === undefined || (typeof m["params"] === "object" && m["params"] !== null);
  return hasId && ("result" in m || "error" in m);
}

const isRequest = (m: Message): boolean => typeof m["method"] === "string" && m["id"] !== undefined;
const isResponse = (m: Message): boolean => m["method"] === undefined && m["id"] !== undefined;

/**
 * A request the transport answers itself: the scope of the POST that carried it, and the signal of
 * its work (made on first use: most calls never look at it), aborted by a cancel or the session's close.
 */
export class DirectCall<S> {
  readonly scope: S;
  #controller: AbortController | undefined;
  #cancelled = false;
  #reason: unknown;

  constructor(scope: S) {
    this.scope = scope;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Cancelled: its answer is never sent, as the SDK sends none for a request it aborted. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  cancel(reason: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** A failed request's answer, as the SDK's `Protocol` words it. */
function errorAnswer(id: RequestId, error: unknown): string {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(e.code) ? e.code : -32603;
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message: e.message ?? "Internal error", ...(e.data !== undefined && { data: e.data }) } });
}

/** One POST carrying requests: where their answers go. */
interface Exchange {
  readonly streamId: string;
  readonly ids: readonly RequestId[];
  /** Each request's answer, serialised. */
  readonly answers: Map<RequestId, string>;
  /** Undefined once its connection went (a resumable stream waits for a GET with `Last-Event-ID`). */
  res: ServerResponse | undefined;
  streaming: boolean;
  readonly resumable: boolean;
  timer: ClockTimer | undefined;
}

export interface McpTransportOptions<S> {
  readonly sessionId: string;
  /** Hands messages to the SDK's server inside the scope of the request that carried them. */
  readonly enter: (scope: S, deliver: () => void) => void;
  /**
   * The `result` of a request the endpoint answers without the SDK's server, serialised as the SDK
   * would send it (rejected as the SDK's handler throws); undefined to leave it to the server.
   */
  readonly direct?: (request: Message, call: DirectCall<S>) => Promise<string> | undefined;
  /** Called when the session's `initialize` arrives: from then on the session can be found. */
  readonly onInitialized: () => void;
  readonly events: McpEventStore | undefined;
  readonly clock: Clock;
  readonly streamAfterMs: number;
}

export class McpNodeTransport<S> implements Transport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly #options: McpTransportOptions<S>;
  readonly #exchanges = new Map<RequestId, Exchange>();
  readonly #calls = new Map<RequestId, DirectCall<S>>();
  #standalone: ServerResponse | undefined;
  #initialized = false;
  #closed = false;
  #streams = 0;

  constructor(options: McpTransportOptions<S>) {
    this.#options = options;
    this.sessionId = options.sessionId;
  }

  async start(): Promise<void> {}

  /** Answers one request of this session; `body` is the parsed POST body, `scope` what its tool calls run in. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, scope: S): void {
    if (this.#closed) return refuse(res, 404, -32001, "Session not found");
    if (req.method === "POST") return this.#post(req, res, body, scope);
    const refused = this.#checkVersion(req);
    if (refused !== undefined) return refuse(res, 400, -32000, refused);
    if (req.method === "GET") return this.#get(req, res);
    if (req.method === "DELETE") {
      res.writeHead(200).end();
      void this.close();
      return;
    }
    res.writeHead(405, { Allow: "GET, POST, DELETE" });
    res.end();
  }

  #checkVersion(req: IncomingMessage): string | undefined {
    const version = header(req, "mcp-protocol-version");
    if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
    return `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`;
  }

  /** The reason a POST's messages cannot be taken, else undefined (and the session initialised when asked). */
  #checkPost(req: IncomingMessage, messages: readonly unknown[]): [number, number, string] | undefined {
    const accept = header(req, "accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
      return [406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream"];
    if (messages.length === 0 || messages.length > MAX_BATCH_SIZE) return [400, -32600, `Invalid Request: a batch holds 1 to ${MAX_BATCH_SIZE} messages`];
    if (!messages.every(isMessage)) return [400, -32700, "Parse error: Invalid JSON-RPC message"];
    if (!(messages as Message[]).some((m) => m["method"] === "initialize")) {
      const version = this.#checkVersion(req);
      return version === undefined ? undefined : [400, -32000, version];
    }
    if (this.#initialized) return [400, -32600, "Invalid Request: Server already initialized"];
    if (messages.length > 1) return [400, -32600, "Invalid Request: Only one initialization request is allowed"];
    this.#initialized = true;
    this.#options.onInitialized();
    return undefined;
  }

  #post(req: IncomingMessage, res: ServerResponse, body: unknown, scope: S): void {
    const messages = (Array.isArray(body) ? body : [body]) as Message[];
    const refused = this.#checkPost(req, messages);
    if (refused !== undefined) return refuse(res, ...refused);
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      res.writeHead(202).end();
      for (const message of messages) this.#cancelDirect(message);
      return this.#deliver(req, messages, scope);
    }
    const init = requests.find((m) => m["method"] === "initialize")?.["params"] as { protocolVersion?: unknown } | undefined;
    const version = init === undefined ? (header(req, "mcp-protocol-version") ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION) : String(init.protocolVersion);
    const { events, clock, streamAfterMs } = this.#options;
    const exchange: Exchange = {
      streamId: `${this.sessionId}.${++this.#streams}`,
      ids: requests.map((m) => m["id"] as RequestId),
      answers: new Map(),
      res,
      streaming: false,
      resumable: events !== undefined && version >= RESUMABLE_FROM,
      timer: undefined,
    };
    for (const id of exchange.ids) this.#exchanges.set(id, exchange);
    res.once("close", () => this.#detach(exchange, res));
    if (exchange.resumable) exchange.timer = clock.setTimeout(() => this.#stream(exchange), streamAfterMs);
    if (messages.length === 1 && this.#answerDirectly(messages[0]!, scope)) return;
    this.#deliver(req, messages, scope);
  }

  #deliver(req: IncomingMessage, messages: readonly Message[], scope: S): void {
    const extra = { requestInfo: { headers: req.headers } };
    this.#options.enter(scope, () => {
      for (const message of messages) this.onmessage?.(message as JSONRPCMessage, extra);
    });
  }

  /** A `notifications/cancelled` naming a request answered directly aborts it (the SDK's server aborts its own). */
  #cancelDirect(message: Message): void {
    if (message["method"] !== "notifications/cancelled" || this.#calls.size === 0) return;
    const params = message["params"] as { requestId?: unknown; reason?: unknown } | undefined;
    const { requestId, reason } = params ?? {};
    if ((typeof requestId === "string" || typeof requestId === "number") && (reason === undefined || typeof reason === "string"))
      this.#calls.get(requestId)?.cancel(reason);
  }

  /** When the endpoint answers the request itself: its answer goes where the SDK's would have gone. */
  #answerDirectly(request: Message, scope: S): boolean {
    const call = new DirectCall(scope);
    const answer = this.#options.direct?.(request, call);
    if (answer === undefined) return false;
    const id = request["id"] as RequestId;
    this.#calls.set(id, call);
    // One reaction, not a chain: a promise per call less.
    answer.then(
      (result) => this.#settle(id, call, `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`),
      (error: unknown) => this.#settle(id, call, errorAnswer(id, error)),
    );
    return true;
  }

  #settle(id: RequestId, call: DirectCall<S>, text: string): void {
    if (this.#calls.get(id) === call) this.#calls.delete(id);
    if (call.cancelled) return;
    try {
      this.#respond(id, text);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** The POST's answer becomes an event stream (a priming event first when it can be resumed). */
  #stream(exchange: Exchange): void {
    const { res } = exchange;
    this.#options.clock.clearTimeout(exchange.timer);
    exchange.timer = undefined;
    if (exchange.streaming || res === undefined || res.headersSent) return;
    exchange.streaming = true;
    res.writeHead(200, { ...SSE_HEADERS, "mcp-session-id": this.sessionId });
    if (exchange.resumable) this.#event(exchange.streamId, res, undefined);
    else res.flushHeaders();
  }

  /** Writes (and stores, with an event store) one event of a stream: a serialised message, or none for a priming event. */
  #event(streamId: string, res: ServerResponse | undefined, data: string | undefined): void {
    const { events } = this.#options;
    if (events !== undefined) res?.write(sseEvent(events.store(streamId, data)));
    else if (data !== undefined) res?.write(`event: message\ndata: ${data}\n\n`);
  }

  /** Its connection went: a call that cannot be resumed will find nowhere to answer. */
  #detach(exchange: Exchange, res: ServerResponse): void {
    if (exchange.res !== res) return;
    exchange.res = undefined;
    if (exchange.streaming && exchange.resumable) return;
    this.#options.clock.clearTimeout(exchange.timer);
    for (const id of exchange.ids) if (this.#exchanges.get(id) === exchange) this.#exchanges.delete(id);
  }

  #finish(exchange: Exchange): void {
    this.#options.clock.clearTimeout(exchange.timer);
    const { res } = exchange;
    if (res === undefined) return;
    if (exchange.streaming) {
      res.end();
      return;
    }
    // As JSON.stringify would write the answers (one, or the batch's array).
    const body = exchange.ids.length === 1 ? exchange.answers.get(exchange.ids[0]!)! : `[${exchange.ids.map((id) => exchange.answers.get(id)).join(",")}]`;
    res.writeHead(200, ["Content-Type", "application/json", "mcp-session-id", this.sessionId, "Content-Length", String(Buffer.byteLength(body))]);
    res.end(body);
  }

  /** A request's answer (`text`, serialised) to the POST that carried it. */
  #respond(id: RequestId, text: string): void {
    const exchange = this.#exchanges.get(id);
    // Its connection went without a way back: nobody is there to read it.
    if (exchange === undefined) return;
    this.#exchanges.delete(id);
    exchange.answers.set(id, text);
    if (exchange.streaming) this.#event(exchange.streamId, exchange.res, text);
    if (exchange.answers.size === exchange.ids.length) this.#finish(exchange);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isResponse(message as Message)) return this.#respond((message as Message)["id"] as RequestId, JSON.stringify(message));
    const related = options?.relatedRequestId === undefined ? undefined : this.#exchanges.get(options.relatedRequestId);
    if (related !== undefined) {
      this.#stream(related);
      return this.#event(related.streamId, related.res, JSON.stringify(message));
    }
    this.#event(`${this.sessionId}.get`, this.#standalone, JSON.stringify(message));
  }

  #openStream(res: ServerResponse): void {
    res.writeHead(200, { ...SSE_HEADERS, "mcp-session-id": this.sessionId });
    res.flushHeaders();
  }

  #get(req: IncomingMessage, res: ServerResponse): void {
    if (!(header(req, "accept") ?? "").includes("text/event-stream")) return refuse(res, 406, -32000, "Not Acceptable: Client must accept text/event-stream");
    const last = header(req, "last-event-id");
    if (last !== undefined && this.#options.events !== undefined) return this.#resume(res, last, this.#options.events);
    if (this.#standalone !== undefined) return refuse(res, 409, -32000, "Conflict: Only one SSE stream is allowed per session");
    this.#openStream(res);
    this.#standalone = res;
    res.once("close", () => {
      if (this.#standalone === res) this.#standalone = undefined;
    });
  }

  /** What a stream missed after `last`, then the stream itself goes on on this response (or ends, when it had). */
  #resume(res: ServerResponse, last: string, events: McpEventStore): void {
    const streamId = events.streamOf(last, this.sessionId);
    if (streamId === undefined) return refuse(res, 400, -32000, "Bad Request: unknown or expired Last-Event-ID");
    const standalone = streamId === `${this.sessionId}.get`;
    const exchange = standalone ? undefined : [...new Set(this.#exchanges.values())].find((e) => e.streamId === streamId);
    if ((standalone && this.#standalone !== undefined) || exchange?.res !== undefined)
      return refuse(res, 409, -32000, "Conflict: Stream already has an active connection");
    this.#openStream(res);
    for (const event of events.after(last)) res.write(sseEvent(event));
    if (standalone) {
      this.#standalone = res;
      res.once("close", () => {
        if (this.#standalone === res) this.#standalone = undefined;
      });
    } else if (exchange !== undefined) {
      exchange.res = res;
      res.once("close", () => this.#detach(exchange, res));
    } else res.end();
  }

  /** Ends the session's GET stream (a graceful drain must not wait on it). */
  closeStandaloneSSEStream(): void {
    this.#standalone?.end();
    this.#standalone = undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const exchange of new Set(this.#exchanges.values())) {
      this.#options.clock.clearTimeout(exchange.timer);
      const { res } = exchange;
      if (res === undefined) continue;
      // A call still waiting for its answer is told its session is gone, as any later request would be.
      if (res.headersSent) res.end();
      else refuse(res, 404, -32001, "Session not found");
    }
    this.#exchanges.clear();
    // As the SDK's server aborts its handlers when its transport closes.
    for (const call of this.#calls.values()) call.cancel(undefined);
    this.#calls.clear();
    this.closeStandaloneSSEStream();
    this.#options.events?.forget(this.sessionId);
    this.onclose?.();
  }
}
