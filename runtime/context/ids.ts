/**
 * Ids that arrive from outside (headers, baggage) end up in response headers, log lines and span
 * attributes, so each is accepted only in a short, printable form; anything else is ignored.
 */

import { randomUUID } from "node:crypto";
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
 * A caller's request id is echoed in a response header and copied into logs, so only a short token
 * of visible ASCII is taken as is (the header, else the baggage's `request_id`); else a fresh id.
 */
export function requestIdOf(req: IncomingMessage, fromBaggage?: string): string {
  return validRequestId(req.headers["x-manifold-request-id"]) ?? fromBaggage ?? randomUUID();
}
