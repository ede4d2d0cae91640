import type { ServerResponse } from "node:http";
import { discardBody, isBodyless } from "./body.js";
import type { RouteContext } from "./route-context.js";
import type { CorsPolicy } from "./trust.js";

/** Every response body is JSON; the header value is one constant so nothing is computed per request. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
export const REQUEST_ID_HEADER = "X-Manifold-Request-ID";

/**
 * CORS for allowlisted origins only (trust.ts): their Origin echoed, no credentials, the headers a
 * caller needs. Without an allowlist no response carries any of these.
 */
export const CORS_ALLOW_METHODS = "GET, POST, PUT, DELETE, OPTIONS";
// Browser callers must be allowed to send trace context and the conversation fallback too, or a
// traced single-page app loses its trace at the first cross-origin call.
// Accept, X-Requested-With and X-User-ID: what browser chat clients send (the spec's chat allow list).
export const CORS_ALLOW_HEADERS = `Content-Type, Accept, X-Requested-With, X-User-ID, Authorization, ${REQUEST_ID_HEADER}, X-Manifold-Conversation-ID, traceparent, tracestate, baggage`;

/** Shared between the app and `serve`. */
export interface ServerState {
  /** Once set, every response closes its connection and new requests get 503. */
  draining: boolean;
  /** Signals handlers have asked for and whose response is still open: shutdown aborts them. */
  readonly signals: Set<AbortController>;
  /** Which request origins responses name in `Access-Control-Allow-Origin`. */
  readonly cors: CorsPolicy;
}

/**
 * The CORS headers of a response as name, value pairs: the request's Origin when allowlisted, and
 * `Vary: Origin` whenever a list is configured (the answer depends on it, so a cache must key on it).
 */
export function corsHeaders(cors: CorsPolicy, origin: string | undefined): string[] {
  if (!cors.enabled) return [];
  const allowed = cors.allowed(origin);
  return allowed === undefined ? ["Vary", "Origin"] : ["Access-Control-Allow-Origin", allowed, "Vary", "Origin"];
}

/** The result of a capability call, written by a route handler or straight to the node response. */
export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly requestId: string;
  /** Extra headers as name, value pairs, written after the request id (a 401's WWW-Authenticate). */
  readonly headers?: readonly string[];
}

/**
 * Writes a raw route's reply. Header names, values and order match what a route handler's context
 * produces for the same reply (CORS first, request id, Content-Type, Content-Length from the body
 * setter, Connection last), so the two cannot be told apart; test/runtime/app.test.ts checks it.
 */
export function writeReply(res: ServerResponse, reply: Reply, state: ServerState, read = false): void {
  // A body read whole (readBody) may still be short of `complete`: node sets it just after the last chunk's event.
  if (!read) lingerIfIncomplete(res, state);
  const length = String(Buffer.byteLength(reply.body));
  // The usual answer (no CORS list, no extra header, not draining) is one array literal: nothing grown, no Origin read.
  if (!state.cors.enabled && reply.headers === undefined && !state.draining) {
    res.writeHead(reply.status, [REQUEST_ID_HEADER, reply.requestId, "Content-Type", JSON_CONTENT_TYPE, "Content-Length", length]);
  } else {
    const headers = corsHeaders(state.cors, res.req.headers.origin);
    headers.push(REQUEST_ID_HEADER, reply.requestId);
    if (reply.headers !== undefined) headers.push(...reply.headers);
    headers.push("Content-Type", JSON_CONTENT_TYPE, "Content-Length", length);
    if (state.draining) headers.push("Connection", "close");
    res.writeHead(reply.status, headers);
  }
  res.end(reply.body);
}

/**
 * For an answer given before the request body has fully arrived (413, 415, a POST to a 404): closing
 * the connection after it, as Node does when the client sent `Connection: close`, would reset the
 * socket under a client that is still writing, and a reset can discard our answer from its receive
 * buffer before it is read. So the connection is kept and the rest of the body dropped, for at most
 * discardBody's grace period; the client closes it when it is done.
 */
export function lingerIfIncomplete(res: ServerResponse, state: ServerState): void {
  const { req } = res;
  if (req.complete || state.draining || res.headersSent) return;
  // A message without a body is not `complete` yet while its request event is being handled.
  if (isBodyless(req)) return;
  res.shouldKeepAlive = true;
  discardBody(req);
}

/** A route's answer: a pre-serialised JSON string as the body, so nothing is serialised or guessed again. */
export function sendJson(ctx: RouteContext, status: number, body: string): void {
  ctx.json(status, body);
}
