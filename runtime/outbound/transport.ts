import { createRequire } from "node:module";
import type { Dispatcher } from "undici";
import { ManifoldError } from "../errors/index.js";
import type { AbortSource } from "../util/index.js";

/** The methods a call may use: POST and GET between components; the others for a proxied HTTP API (an OpenAPI import). */
export type HttpMethod = "POST" | "GET" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

/** What a transport hands back to the caller: the status and the body as text. */
export interface TransportResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly text: string;
}

/**
 * How the caller puts one request on the wire. Every failure is a ManifoldError that names no secret:
 * ABORTED (the caller's signal), TIMEOUT (`limitMs`), NETWORK_ERROR (anything else).
 */
export type Transport = (
  url: URL,
  method: HttpMethod,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSource | undefined,
  limitMs: number,
  what: string,
) => Promise<TransportResponse>;

/**
 * Every caller's connections: undici keeps a pool of keep-alive connections per origin. Even its
 * `request()` costs about a third of node:http's per call on the client, and it writes the request
 * in one piece (measured: 37 µs against 99 µs per POST, and the server spends 36 µs against 53 µs
 * reading it), which matters where calls are the inner loop: the orchestrator's steps and the
 * scheduled executor's dispatches. Its sockets are unref'd while idle, so they never keep a process
 * alive, and it closes an idle one before the server's `Keep-Alive: timeout` hint says the server will.
 */
let dispatcher: Dispatcher | undefined;

/**
 * undici (~110 modules) loads with the first keep-alive call, not with every process that imports the
 * outbound layer: a plain tool never makes one (start-up time). It is CommonJS, so a synchronous require.
 */
const require = createRequire(import.meta.url);

function undici(): typeof import("undici") {
  return require("undici") as typeof import("undici");
}

function sharedDispatcher(): Dispatcher {
  dispatcher ??= new (undici().Agent)({ keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000 });
  return dispatcher;
}

/**
 * One abort listener per caller signal, fanning out to the requests in flight on it: a fan-out of
 * many calls sharing the request's signal would otherwise add a listener each, and past ten Node
 * prints MaxListenersExceededWarning. The set empties as requests end. It is kept on the signal
 * under a symbol, not in a WeakMap: a signal per call (every scheduled dispatch has its task's) made
 * the WeakMap's entries a measurable share of a call's cost, in the garbage collector.
 */
const RELAY = Symbol("manifold.abortRelay");

function onAbort(signal: AbortSignal, run: () => void): () => void {
  const holder = signal as AbortSignal & { [RELAY]?: Set<() => void> };
  let waiting = holder[RELAY];
  if (waiting === undefined) {
    const set = new Set<() => void>();
    holder[RELAY] = waiting = set;
    signal.addEventListener(
      "abort",
      () => {
        for (const each of [...set]) each();
        set.clear();
      },
      { once: true },
    );
  }
  waiting.add(run);
  return () => void waiting.delete(run);
}

const unlistened = (): void => undefined;

function listen(source: AbortSource, run: () => void): () => void {
  return source instanceof AbortSignal ? onAbort(source, run) : source.onAbort(run);
}

/** Why one exchange failed: the error, whether the deadline had passed, and whether any answer had begun. */
class ExchangeFailure {
  constructor(
    readonly cause: unknown,
    readonly timedOut: boolean,
    readonly beforeAnswer: boolean,
  ) {}
}

/**
 * One exchange on undici's dispatch API: the status, and the body collected as it arrives; failures
 * are ExchangeFailures. A handler of our own instead of undici's `request()` skips what a call does
 * not need (an abort signal object, a Readable for the body, parsed response headers), about a
 * fifth of the transport's cost per call. Aborting (the deadline, the caller's signal) settles the
 * call at once; undici drops the request when it reaches a connection, or cuts the one it is on.
 */
function once(
  url: URL,
  method: HttpMethod,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSource | undefined,
  limitMs: number,
  via: Dispatcher,
): Promise<TransportResponse> {
  if (signal?.aborted === true) return Promise.reject(new ExchangeFailure(signal.reason, false, true));
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let answered = false;
    let status = 0;
    let chunks: Buffer[] = [];
    const settle = (failure: ExchangeFailure | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unlisten();
      if (failure !== undefined) return reject(failure);
      const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      resolve({ ok: status >= 200 && status < 300, status, text });
    };
    const stop = (timedOut: boolean): void => {
      const reason = timedOut ? new Error("deadline passed") : signal?.reason;
      settle(new ExchangeFailure(reason, timedOut, !answered));
      controller?.abort(reason instanceof Error ? reason : new Error("aborted"));
    };
    const timer = setTimeout(() => stop(true), limitMs);
    const unlisten = signal === undefined ? unlistened : listen(signal, () => stop(false));
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (settled) started.abort(new Error("aborted"));
      },
      // Called again for each 1xx before the final answer: the last one is the answer.
      onResponseStart(_controller, statusCode) {
        answered = true;
        status = statusCode;
        chunks = [];
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle(undefined);
      },
      onResponseError(_controller, error) {
        settle(new ExchangeFailure(error, false, !answered));
      },
    };
    try {
      // undici's own header and body timeouts (300 s) are off: the deadline above is the one limit.
      via.dispatch({ origin: url.origin, path: url.pathname + url.search, method, headers, body: body ?? null, headersTimeout: 0, bodyTimeout: 0 }, handler);
    } catch (error) {
      // A request undici refuses to send (a header it will not write): settled here, the timer cleared.
      settle(new ExchangeFailure(error, false, true));
    }
  });
}

/** The system error code (`ECONNREFUSED`, …) of a failed request: on the error itself (node:http) or its cause (fetch). */
function systemCode(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; typeof at === "object" && at !== null && depth < 2; at = (at as { cause?: unknown }).cause, depth += 1) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** The one mapping of a failed request to the caller's codes, for every transport; it names no secret. */
function transportError(error: unknown, what: string, limitMs: number, aborted: boolean, timedOut: boolean): ManifoldError {
  if (aborted) return new ManifoldError("ABORTED", `${what} was aborted by the caller`);
  if (timedOut) return new ManifoldError("TIMEOUT", `${what} did not finish within ${limitMs} ms`);
  const code = systemCode(error);
  return new ManifoldError("NETWORK_ERROR", `${what} failed: the component could not be reached${code === undefined ? "" : ` (${code})`}`, { cause: error });
}

/** fetch with a timeout and the caller's signal: the caller's default transport. */
export const fetchTransport: Transport = async (url, method, headers, body, callerSignal, limitMs, what) => {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), limitMs);
  // fetch takes an AbortSignal only: an Abortable aborts the timeout's controller instead.
  const unlisten = callerSignal instanceof AbortSignal || callerSignal === undefined ? unlistened : callerSignal.onAbort(() => timeout.abort());
  const signal = callerSignal instanceof AbortSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
  try {
    const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }), signal });
    return { ok: response.ok, status: response.status, text: await response.text() };
  } catch (error) {
    throw transportError(error, what, limitMs, callerSignal?.aborted === true, timeout.signal.aborted);
  } finally {
    clearTimeout(timer);
    unlisten();
  }
};

/**
 * The keep-alive transport (undici): what the orchestrator's steps and the scheduled executor use. A
 * request that a reused keep-alive connection closes before any answer is sent once more on a fresh
 * one, the case Node documents for a server closing an idle connection at the moment it is reused;
 * a connection that had answered nothing yet, or an answer cut short, is not retried.
 */
export const keepAliveTransport: Transport = async (url, method, headers, body, signal, limitMs, what) => {
  try {
    return await once(url, method, headers, body, signal, limitMs, sharedDispatcher());
  } catch (failure) {
    if (!isStale(failure as ExchangeFailure, signal)) throw toTransportError(failure as ExchangeFailure, signal, what, limitMs);
  }
  // Once more on a connection of its own: the pool's other idle connections to that server may have
  // been closed the same way.
  const fresh = new (undici().Client)(url.origin);
  try {
    return await once(url, method, headers, body, signal, limitMs, fresh);
  } catch (failure) {
    throw toTransportError(failure as ExchangeFailure, signal, what, limitMs);
  } finally {
    void fresh.close().catch(() => undefined);
  }
};

/**
 * The connection closed before any answer to this request, after it had carried earlier ones.
 * undici's SocketError carries the connection's counters: bytes read before this request got any
 * answer were earlier answers, so the connection was a reused one.
 */
function isStale({ cause, timedOut, beforeAnswer }: ExchangeFailure, signal: AbortSource | undefined): boolean {
  const closed = cause as { code?: unknown; socket?: { bytesRead?: number } };
  return signal?.aborted !== true && !timedOut && beforeAnswer && closed.code === "UND_ERR_SOCKET" && (closed.socket?.bytesRead ?? 0) > 0;
}

function toTransportError({ cause, timedOut }: ExchangeFailure, signal: AbortSource | undefined, what: string, limitMs: number): ManifoldError {
  return transportError(cause, what, limitMs, signal?.aborted === true, timedOut);
}
