import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ManifoldError } from "../errors/index.js";

/**
 * `application/json`, optionally with a UTF-8 charset. JSON is UTF-8 on the wire (RFC 8259), so any
 * other charset is refused rather than decoded wrongly.
 */
const JSON_MEDIA_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * After an early 413/415 the rest of the body is read and thrown away so the client, which is
 * usually still writing, reads our answer instead of a connection reset; a keep-alive connection
 * then stays usable. A client that keeps sending past this grace period loses its connection.
 */
const DISCARD_GRACE_MS = 5_000;

export function isJsonMediaType(contentType: string | undefined): boolean {
  // The value nearly every client sends is compared as a string before the pattern runs.
  return contentType === "application/json" || (contentType !== undefined && JSON_MEDIA_TYPE.test(contentType));
}

const discarding = new WeakSet<IncomingMessage>();

/** Reads and drops what is left of a request body, bounded in time (see DISCARD_GRACE_MS). Idempotent. */
export function discardBody(req: IncomingMessage): void {
  req.resume();
  if (req.complete || discarding.has(req)) return;
  discarding.add(req);
  const timer = setTimeout(() => req.socket.destroy(), DISCARD_GRACE_MS);
  timer.unref();
  const stop = (): void => clearTimeout(timer);
  req.once("end", stop);
  req.once("close", stop);
}

/** Whether the request carries no body: neither a length above 0 nor a transfer coding (RFC 9112 §6.3). */
export function isBodyless(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] === undefined && (length === undefined || length === "0");
}

/**
 * Reads a request without a body before its route runs. Left unread, node "dumps" it once the answer
 * is written: resume, end, destroy and close, eight `process.nextTick` calls per request, and every
 * async_hooks init hook in the process (on Node 20, the request scope's AsyncLocalStorage) runs again
 * for each. Read, node leaves it alone, and the next request on the connection (or its close)
 * releases it. A route that listens for its `end` or `close` still hears them: see endReadBodyless.
 */
export function readBodyless(req: IncomingMessage): boolean {
  if (!isBodyless(req)) return false;
  req.read();
  return true;
}

/**
 * After the route of a request readBodyless read: if anyone listens for its `end` or `close`, it is
 * resumed once its answer is written, as node would have done, so they come then (a held answer, an SSE
 * stream, is decided when it ends: its client leaving closes the request as before).
 */
export function endReadBodyless(req: IncomingMessage, res: ServerResponse): void {
  if (!res.writableEnded) {
    res.once("finish", () => endReadBodyless(req, res));
    return;
  }
  if (req.readableFlowing !== null || req.listenerCount("end") + req.listenerCount("close") === 0) return;
  if (res.writableFinished) req.resume();
  else res.once("finish", () => req.resume());
}

function tooLarge(limit: number): ManifoldError {
  return new ManifoldError("PAYLOAD_TOO_LARGE", `request body exceeds the limit of ${limit} bytes`);
}

/**
 * Deepest nesting of arrays and objects a body may have. Every later stage (validation, templates,
 * the plan checker) walks values recursively; refusing depth here keeps them all out of a stack
 * overflow, for a few ms of scanning on the largest bodies and nothing on small ones.
 */
export const MAX_JSON_DEPTH = 64;

/** How many `{` and `[` the text holds, counted up to the first past `max`. */
function openings(text: string, max: number): number {
  let count = 0;
  for (let at = text.indexOf("{"); at !== -1 && count <= max; at = text.indexOf("{", at + 1)) count++;
  for (let at = text.indexOf("["); at !== -1 && count <= max; at = text.indexOf("[", at + 1)) count++;
  return count;
}

/** The nesting depth of JSON text, counting brackets outside strings, up to the first level past `max`. */
function exceedsDepth(text: string, max: number): boolean {
  // A body shorter than the depth cannot reach it: the common case costs one comparison.
  if (text.length <= max) return false;
  // Nor can one with no more brackets than the depth: a few native searches instead of a loop in
  // JavaScript over every character, for the small bodies nearly every request sends.
  if (openings(text, max) <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** Throws INVALID_JSON (or INVALID_INPUT for nesting past MAX_JSON_DEPTH); only called with a non-empty body. */
function parseObject(bytes: Buffer): Record<string, unknown> {
  // JSON is UTF-8 (RFC 8259); bad bytes are refused, not silently replaced with U+FFFD. Decoding
  // replaces every bad sequence with U+FFFD, so only a text holding one needs the bytes checked:
  // one native call per request instead of two.
  const text = bytes.toString("utf8");
  if (text.includes("\uFFFD") && !isUtf8(bytes)) throw new ManifoldError("INVALID_JSON", "request body is not valid UTF-8");
  if (exceedsDepth(text, MAX_JSON_DEPTH))
    throw new ManifoldError("INVALID_INPUT", `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ManifoldError("INVALID_JSON", "request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ManifoldError("INVALID_JSON", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/**
 * A Content-Length as a number. llhttp has already refused any but digits, so they are read here
 * one by one instead of through Number's generic conversion (a runtime call on every request);
 * anything else, or more digits than a double holds exactly, still goes through Number.
 */
function lengthOf(declared: string): number {
  if (declared.length > 15) return Number(declared);
  let length = 0;
  for (let i = 0; i < declared.length; i++) {
    const digit = declared.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number(declared);
    length = length * 10 + digit;
  }
  return length;
}

/**
 * Called exactly once, with an error or with the body; maybe synchronously (an absent body). `whole`:
 * the body was read to its end (so with its JSON's 400, not with a 413 or 415 answered before it all came).
 */
export type BodyCallback = (error: unknown, body: Record<string, unknown> | undefined, whole?: boolean) => void;

/**
 * Reads a JSON object body straight from the request stream: no body-parser, no stream helpers, no
 * promise. The limit is checked on `Content-Length` before reading and again on the bytes actually
 * received, since a chunked body declares no length. Errors are ManifoldErrors (415, 413, 400); an
 * absent or empty body is `{}`. A client that disconnects mid-body gets no callback: there is
 * nobody left to answer, and the listeners go away with the request.
 *
 * `owned`: nobody but the caller can reach the request (a capability's handler sees its headers
 * only). A body with a length is then whole at its last byte: `done` is called in that chunk's
 * `data` event, before node marks the request `complete` (the caller's answer must not linger for
 * the rest of a body it has: writeReply's `read`), and the request is paused, so node leaves it
 * alone instead of ending, destroying and closing it (three `process.nextTick` calls a tick later,
 * each paid again by every async_hooks init hook in the process).
 */
export function readBody(req: IncomingMessage, limit: number, done: BodyCallback, owned = false): void {
  const { headers } = req;
  const declared = headers["content-length"];
  if (isBodyless(req)) return done(undefined, {});
  if (!isJsonMediaType(headers["content-type"])) {
    discardBody(req);
    return done(new ManifoldError("UNSUPPORTED_MEDIA_TYPE", "request body must be application/json"), undefined);
  }
  const expected = declared === undefined ? -1 : lengthOf(declared);
  if (expected > limit) {
    discardBody(req);
    return done(tooLarge(limit), undefined);
  }
  // Inline listeners, never removed (a flag ignores late chunks): cheaper per request than naming
  // them and calling removeListener, and nothing fires after `end` anyway. Most bodies arrive in one
  // chunk, so the array is only made for a second one.
  let first: Buffer | undefined;
  let rest: Buffer[] | undefined;
  let received = 0;
  let over = false;
  const whole = (): void => {
    // The listeners live as long as the request, which a held stream (chat) keeps open: drop the
    // buffers and the caller's callback (with the promise resolvers it closes over) once the body is read.
    over = true;
    if (owned) req.pause();
    const body = first === undefined ? undefined : rest === undefined ? first : Buffer.concat(rest, received);
    first = rest = undefined;
    const settle = done;
    done = ignore;
    if (body === undefined) return settle(undefined, {}, true);
    let value: Record<string, unknown>;
    try {
      value = parseObject(body);
    } catch (error) {
      return settle(error, undefined, true);
    }
    settle(undefined, value, true);
  };
  req.on("data", (chunk: Buffer) => {
    if (over) return;
    received += chunk.length;
    if (received > limit) {
      over = true;
      first = rest = undefined;
      discardBody(req);
      return done(tooLarge(limit), undefined);
    }
    if (first === undefined) first = chunk;
    else (rest ??= [first]).push(chunk);
    if (owned && received === expected) whole();
  });
  // Owned with a declared length, the last chunk's `data` event has read it whole and paused the
  // request, which then never ends: an `end` listener would be one more closure per request for nothing.
  if (owned && expected >= 0) return;
  req.on("end", () => {
    if (!over) whole();
  });
}

const ignore: BodyCallback = () => undefined;

/** readBody as a promise. */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    readBody(req, limit, (error, body) => (body === undefined ? reject(error) : resolve(body)));
  });
}
