/**
 * A server-sent event stream on a raw response: the headers a browser and a buffering proxy need, one
 * `event:`/`data:` frame per event (data is JSON on one line), and a comment every heartbeat so an
 * idle stream is not closed by a proxy. Writes after the client has gone are dropped.
 *
 * Every held stream costs heap in the serving process (bench:chat compares it with bare node:http
 * SSE), so one stream is one class instance with one `close` listener, and the heartbeat is one shared
 * timer per interval over the streams open with it rather than a timer per stream.
 */
import type { ServerResponse } from "node:http";
import { ManifoldError } from "../errors/index.js";
import { REQUEST_ID_HEADER } from "./reply.js";
import type { RouteContext } from "./routes.js";

export interface SseStream {
  send(event: string, data: unknown): void;
  /** Stops the heartbeat and ends the response. */
  close(): void;
  /** False once the client disconnected or the stream was closed. */
  readonly open: boolean;
}

/** A route's event stream and what ends it: the work's signal aborts when the client hangs up first. */
export interface RouteStream {
  readonly stream: SseStream;
  /** Made on first use: a route that never asks for it holds none per stream. */
  readonly controller: AbortController;
  /** The controller's signal (made on first use, aborted at once if the stream already was). */
  readonly signal: AbortSignal;
  /** Whether the work was aborted (hang-up or `abort`), without making the controller. */
  readonly aborted: boolean;
  /** Aborts the work, as `controller.abort(reason)` would (the controller need not exist yet). */
  abort(reason?: unknown): void;
  /** Stops listening for the hang-up and closes the stream. */
  end(): void;
}

const KEEP_ALIVE = ": keep-alive\n\n";

/**
 * The streams open with one heartbeat interval, and the one unref'd timer that writes their comment.
 * A stream's first comment comes within one interval of its opening (not exactly one interval after),
 * then one every interval: an idle stream is still never silent for longer than the interval.
 */
class Heartbeat {
  readonly streams = new Set<EventStream>();
  readonly timer: NodeJS.Timeout;

  constructor(readonly ms: number) {
    this.timer = setInterval(beat, ms, this);
    this.timer.unref();
  }
}

function beat(heartbeat: Heartbeat): void {
  for (const stream of heartbeat.streams) stream.keepAlive();
}

const heartbeats = new Map<number, Heartbeat>();

function joinHeartbeat(stream: EventStream, ms: number): Heartbeat {
  let heartbeat = heartbeats.get(ms);
  if (heartbeat === undefined) {
    heartbeat = new Heartbeat(ms);
    heartbeats.set(ms, heartbeat);
  }
  heartbeat.streams.add(stream);
  return heartbeat;
}

function leaveHeartbeat(stream: EventStream, heartbeat: Heartbeat): void {
  heartbeat.streams.delete(stream);
  // No timer is left running (unref'd or not) once no stream needs it.
  if (heartbeat.streams.size === 0 && heartbeats.get(heartbeat.ms) === heartbeat) {
    clearInterval(heartbeat.timer);
    heartbeats.delete(heartbeat.ms);
  }
}

/** One stream; as a route's stream it is also its RouteStream (`stream` is itself). */
class EventStream implements SseStream, RouteStream {
  readonly stream: SseStream = this;
  readonly #res: ServerResponse;
  #heartbeat: Heartbeat | undefined;
  /** A route's: its work is aborted when the client hangs up before the response finished, until `end()`. */
  #route: boolean;
  #controller: AbortController | undefined;
  /** An abort before the controller was made: its reason, given to the controller when it is. */
  #abortedWith: { readonly reason: unknown } | undefined;
  /**
   * The one `close` listener (stream and route alike): `on`, not `once`, since a response closes once.
   * Bound, not an arrow: no context of its own kept beside it (a held stream's heap).
   */
  readonly #onClose = this.#closed.bind(this);

  #closed(): void {
    this.#stop();
    if (this.#route && !this.#res.writableFinished) this.abort(new ManifoldError("ABORTED", "client disconnected"));
  }
  /**
   * RouteStream's `end`, bound on each read so a destructured `end()` still works, while a stream
   * whose `end` is called as a method keeps no closure for it.
   */
  get end(): () => void {
    return this.#end.bind(this);
  }

  #end(): void {
    this.#route = false;
    this.#res.off("close", this.#onClose);
    this.close();
  }

  constructor(res: ServerResponse, heartbeatMs: number, route: boolean) {
    this.#res = res;
    this.#route = route;
    this.#heartbeat = joinHeartbeat(this, heartbeatMs);
    res.on("close", this.#onClose);
  }

  get controller(): AbortController {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#abortedWith !== undefined) this.#controller.abort(this.#abortedWith.reason);
    }
    return this.#controller;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.#controller === undefined ? this.#abortedWith !== undefined : this.#controller.signal.aborted;
  }

  abort(reason?: unknown): void {
    if (this.#controller !== undefined) this.#controller.abort(reason);
    else this.#abortedWith ??= { reason };
  }

  get open(): boolean {
    return this.#heartbeat !== undefined && !this.#res.destroyed;
  }

  keepAlive(): void {
    if (this.#heartbeat !== undefined) this.#res.write(KEEP_ALIVE);
  }

  send(event: string, data: unknown): void {
    if (this.#heartbeat === undefined || this.#res.destroyed) return;
    this.#res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  close(): void {
    if (this.#heartbeat === undefined) return;
    this.#stop();
    this.#res.end();
  }

  #stop(): void {
    if (this.#heartbeat === undefined) return;
    leaveHeartbeat(this, this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

function writeSseHead(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  res.writeHead(200, {
    ...headers,
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    // nginx buffers responses unless told not to.
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
}

export function openSseStream(
  res: ServerResponse,
  { heartbeatMs, headers = {} }: { heartbeatMs: number; headers?: Readonly<Record<string, string>> },
): SseStream {
  writeSseHead(res, headers);
  return new EventStream(res, heartbeatMs, false);
}

/**
 * Takes over a route's response for server-sent events (the pipeline no longer answers it), with the request
 * id echoed. The CORS headers the errors middleware set for an allowlisted origin are kept: the
 * response's set headers merge into writeHead's. `headers` are the route's own, after the request id.
 * A route that sets none on the response before this (setHeader) has them all written by the one
 * writeHead, and node keeps no header map for the response (bench:chat: a held stream's heap).
 */
export function openRouteStream(
  ctx: RouteContext,
  { heartbeatMs, requestId, headers }: { heartbeatMs: number; requestId: string; headers?: Readonly<Record<string, string>> },
): RouteStream {
  ctx.respond = false;
  writeSseHead(ctx.res, headers === undefined ? { [REQUEST_ID_HEADER]: requestId } : { [REQUEST_ID_HEADER]: requestId, ...headers });
  return new EventStream(ctx.res, heartbeatMs, true);
}
