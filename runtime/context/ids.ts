/**
 * Ids that arrive from outside (headers, baggage) end up in response headers, log lines and span
 * attributes, so each is accepted only in a short, printable form; anything else is ignored.
 */

import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** `X-Manifold-Request-ID`, `request_id`, `original_request_id`: 1–128 visible ASCII characters. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** `conversation_id`: letters, digits and `._:-`, starting with a letter or digit, at most 128. */
const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function validRequestId(value: unknown): string | undefined {
  return typeof value === "string" && REQUEST_ID.test(value) ? value : undefined;
}

export function validConversationId(value: unknown): string | undefined {
  return typeof value === "string" && CONVERSATION_ID.test(value) ? value : undefined;
}

const SPAN = 2 ** 48;
const SPLIT = 2 ** 24;
/** The character codes of `0`–`9`, `a`–`f`. */
const HEX_DIGIT = Array.from("0123456789abcdef", (digit) => digit.charCodeAt(0));
/**
 * A request id's 36 character codes: this process's 74 random bits, as a version 8 (custom layout)
 * UUID's first 24 characters, then 12 hex digits rewritten for each id.
 */
const CODES = (() => {
  const random = randomUUID();
  return Array.from(`${random.slice(0, 14)}8${random.slice(15, 24)}000000000000`, (char) => char.charCodeAt(0));
})();
const random48 = (): number => randomBytes(6).readUIntBE(0, 6);
let last = random48();
// Odd, so stepping by it modulo 2^48 visits every 48-bit value once before any repeats.
const STRIDE = 2 * Math.floor(random48() / 2) + 1;

/** Writes `value`'s low 24 bits as six hex digits ending at `end`. */
function writeHex(value: number, end: number): void {
  for (let at = end; at > end - 6; at--) {
    CODES[at] = HEX_DIGIT[value & 15]!;
    value >>>= 4;
  }
}

/**
 * A fresh request id: a version 8 UUID whose first 74 random bits are this process's and whose last
 * 48 step through every value once (a random start, a random odd stride). A request id was never a
 * secret (any caller may choose its own, below), so it must be unique, not unpredictable; the stride
 * keeps ids from counting a process's requests at a glance. Node's `randomUUID` costs several times
 * as much per id (a CSPRNG refill every 128 ids and twenty concatenations), on every request that
 * brings no id of its own. Made in one piece from character codes, not by concatenation: node checks
 * every response header value with a regular expression, which must first copy a concatenated string
 * into one piece through a runtime call (callgrind: ~1.9k instructions per request, against ~0.7k for
 * making the id this way).
 */
export function freshRequestId(): string {
  last += STRIDE;
  if (last >= SPAN) last -= SPAN;
  const high = Math.floor(last / SPLIT);
  writeHex(high, 29);
  writeHex(last - high * SPLIT, 35);
  return String.fromCharCode.apply(null, CODES);
}

/**
 * A caller's request id is echoed in a response header and copied into logs, so only a short token
 * of visible ASCII is taken as is (the header, else the baggage's `request_id`); else a fresh id.
 */
export function requestIdOf(req: IncomingMessage, fromBaggage?: string): string {
  return validRequestId(req.headers["x-manifold-request-id"]) ?? fromBaggage ?? freshRequestId();
}
