import { EventEmitter } from "node:events";
import { Agent, Client, type Dispatcher, request } from "undici";
import { ManifoldError } from "../errors/index.js";

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
  method: "POST" | "GET",
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
  limitMs: number,
  what: string,
) => Promise<TransportResponse>;

/**
 * Every caller's connections: undici keeps a pool of keep-alive connections per origin. Its request
 * path costs about a third of node:http's per call on the client and makes the request one write on
 * the wire (measured: 37 µs against 99 µs per POST, and the server spends 36 µs against 53 µs
 * reading it), which matters where calls are the inner loop: the orchestrator's steps and the
 * scheduled executor's dispatches. Its sockets are unref'd while idle, so they never keep a process
 * alive, and it closes an idle one before the server's `Keep-Alive: timeout` hint says the server will.
 */
const dispatcher = new Agent({ keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000 });

/**
 * One abort listener per caller signal, fanning out to the requests in flight on it: a fan-out of
 * many calls sharing the request's signal would otherwise add a listener each, and past ten Node
 * prints MaxListenersExceededWarning. The set empties as requests end; the signal's one listener
 * goes with the signal.
 */
const relays = new WeakMap<AbortSignal, Set<() => void>>();

function onAbort(signal: AbortSignal, run: () => void): () => void {
  let waiting = relays.get(signal);
  if (waiting === undefined) {
    const set = new Set<() => void>();
    relays.set(signal, (waiting = set));
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

/** Why one exchange failed: the error, whether the deadline had passed, and whether any answer had begun. */
class ExchangeFailure {
  constructor(
    readonly cause: unknown,
    readonly timedOut: boolean,
    readonly beforeAnswer: boolean,
  ) {}
}

/** One exchange: the status and the whole body as text; failures are ExchangeFailures. */
async function once(
  url: URL,
  method: "POST" | "GET",
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
  limitMs: number,
  via: Dispatcher,
): Promise<TransportResponse> {
  if (signal?.aborted === true) throw new ExchangeFailure(signal.reason, false, true);
  // undici takes an EventEmitter as its abort signal: cheaper per call than an AbortController,
  // and it carries both the deadline and the caller's signal.
  const abort = new EventEmitter();
  const state = { timedOut: false };
  const timer = setTimeout(() => {
    state.timedOut = true;
    abort.emit("abort");
  }, limitMs);
  const unlisten = signal === undefined ? unlistened : onAbort(signal, () => void abort.emit("abort"));
  try {
    let response: Dispatcher.ResponseData;
    try {
      // undici's own header and body timeouts (300 s) are off: the deadline above is the one limit.
      response = await request(url, { dispatcher: via, method, headers, body: body ?? null, signal: abort, headersTimeout: 0, bodyTimeout: 0 });
    } catch (error) {
      throw new ExchangeFailure(error, state.timedOut, true);
    }
    try {
      const status = response.statusCode;
      return { ok: status >= 200 && status < 300, status, text: await response.body.text() };
    } catch (error) {
      throw new ExchangeFailure(error, state.timedOut, false);
    }
  } finally {
    clearTimeout(timer);
    unlisten();
  }
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
  const signal = callerSignal === undefined ? timeout.signal : AbortSignal.any([callerSignal, timeout.signal]);
  try {
    const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }), signal });
    return { ok: response.ok, status: response.status, text: await response.text() };
  } catch (error) {
    throw transportError(error, what, limitMs, callerSignal?.aborted === true, timeout.signal.aborted);
  } finally {
    clearTimeout(timer);
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
    return await once(url, method, headers, body, signal, limitMs, dispatcher);
  } catch (failure) {
    if (!isStale(failure as ExchangeFailure, signal)) throw toTransportError(failure as ExchangeFailure, signal, what, limitMs);
  }
  // Once more on a connection of its own: the pool's other idle connections to that server may have
  // been closed the same way.
  const fresh = new Client(url.origin);
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
function isStale({ cause, timedOut, beforeAnswer }: ExchangeFailure, signal: AbortSignal | undefined): boolean {
  const closed = cause as { code?: unknown; socket?: { bytesRead?: number } };
  return signal?.aborted !== true && !timedOut && beforeAnswer && closed.code === "UND_ERR_SOCKET" && (closed.socket?.bytesRead ?? 0) > 0;
}

function toTransportError({ cause, timedOut }: ExchangeFailure, signal: AbortSignal | undefined, what: string, limitMs: number): ManifoldError {
  return transportError(cause, what, limitMs, signal?.aborted === true, timedOut);
}
