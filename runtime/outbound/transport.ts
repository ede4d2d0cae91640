import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
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

// Idle keep-alive sockets are unref'd by Node's agent, so they never keep a process alive.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

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

function once(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
  limitMs: number,
): { req: ClientRequest; done: Promise<TransportResponse>; timedOut: () => boolean } {
  const https = url.protocol === "https:";
  let timedOut = false;
  let req!: ClientRequest;
  const done = new Promise<TransportResponse>((resolve, reject) => {
    const options = {
      method,
      headers: body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) },
      agent: https ? agents.https : agents.http,
    };
    const onResponse = (res: IncomingMessage): void => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (part: string) => (text += part));
      res.on("end", () => {
        cleanup();
        const status = res.statusCode ?? 0;
        resolve({ ok: status >= 200 && status < 300, status, text });
      });
      res.on("error", fail);
      // A response cut short may end with `close` alone; the promise must settle either way.
      res.on("close", () => {
        if (!res.complete) fail(Object.assign(new Error("response ended early"), { code: "ECONNRESET" }));
      });
    };
    req = https ? httpsRequest(url, options, onResponse) : httpRequest(url, options, onResponse);
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, limitMs);
    let unlisten = (): void => undefined;
    const cleanup = (): void => {
      clearTimeout(timer);
      unlisten();
    };
    function fail(error: unknown): void {
      cleanup();
      reject(error);
    }
    req.on("error", fail);
    if (signal !== undefined) {
      if (signal.aborted) req.destroy();
      else unlisten = onAbort(signal, () => void req.destroy());
    }
    req.end(body);
  });
  return { req, done, timedOut: () => timedOut };
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
 * A transport on node:http(s) with keep-alive agents. It does what fetch does for the caller at a
 * fraction of the cost per request (fetch allocates streams, a Request, a Response and Headers per
 * call), which matters where calls are the inner loop: the orchestrator's steps. A request that a
 * reused keep-alive socket resets before any answer is sent once more on a fresh socket, the case
 * Node documents for a server closing an idle connection at the moment it is reused.
 */
export const nodeHttpTransport: Transport = async (url, method, headers, body, signal, limitMs, what) => {
  for (let attempt = 1; ; attempt += 1) {
    const { req, done, timedOut } = once(url, method, headers, body, signal, limitMs);
    try {
      return await done;
    } catch (error) {
      const aborted = signal?.aborted === true;
      const stale = attempt === 1 && !aborted && !timedOut() && req.reusedSocket && (error as { code?: unknown }).code === "ECONNRESET";
      if (!stale) throw transportError(error, what, limitMs, aborted, timedOut());
    }
  }
};
