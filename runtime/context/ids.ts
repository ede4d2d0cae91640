/**
 * Ids that arrive from outside (headers, baggage) end up in response headers, log lines and span
 * attributes, so each is accepted only in a short, printable form; anything else is ignored.
 */

import { randomFillSync } from "node:crypto";
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

/**
 * How many request ids one draw of random bytes makes (node's randomUUID draws for 128). Each id is a
 * slice of its batch's string and keeps it (64 x 36 bytes) alive while the id lives.
 */
const BATCH = 64;
const UUID_LENGTH = 36;
const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");
const entropy = Buffer.allocUnsafeSlow(16 * BATCH);
const formatted = Buffer.allocUnsafeSlow(UUID_LENGTH * BATCH);
let batch = "";
let used = BATCH;

/** Fills `batch` with BATCH random (version 4) UUIDs, written as latin1 bytes and read back as one string (one call into C++ per batch). */
function refill(): void {
  randomFillSync(entropy);
  let at = 0;
  for (let i = 0; i < entropy.length; i++) {
    const position = i & 15;
    let byte = entropy[i]!;
    if (position === 6) byte = (byte & 0x0f) | 0x40;
    else if (position === 8) byte = (byte & 0x3f) | 0x80;
    formatted[at++] = HEX_DIGITS[byte >> 4]!;
    formatted[at++] = HEX_DIGITS[byte & 15]!;
    if (position === 3 || position === 5 || position === 7 || position === 9) formatted[at++] = 45; // "-"
  }
  batch = formatted.toString("latin1");
  used = 0;
}

/**
 * A fresh random UUID (version 4, from the CSPRNG), as randomUUID makes, cut from a string of BATCH
 * made at once: node's randomUUID joins 20 strings per id (2.8k instructions under callgrind), this
 * is one slice (1.4k, the batch's formatting included). Reading each id out of the bytes as its own
 * string instead (a latin1 read per id) measured 2.4k: the call into C++ is most of it.
 */
export function freshRequestId(): string {
  if (used === BATCH) refill();
  const start = used++ * UUID_LENGTH;
  return batch.slice(start, start + UUID_LENGTH);
}

/**
 * A caller's request id is echoed in a response header and copied into logs, so only a short token
 * of visible ASCII is taken as is (the header, else the baggage's `request_id`); else a fresh id.
 */
export function requestIdOf(req: IncomingMessage, fromBaggage?: string): string {
  return validRequestId(req.headers["x-manifold-request-id"]) ?? fromBaggage ?? freshRequestId();
}
