/**
 * The rules for headers that carry a request's identity from one hop to the next: which names the
 * caller owns (never propagated), what a valid name, value and bearer token look like.
 */
import { ManifoldError } from "../errors/index.js";

/** Wire names of the headers the caller owns. */
export const HEADER = {
  CONTENT_TYPE: "content-type",
  AUTHORIZATION: "authorization",
  REQUEST_ID: "x-manifold-request-id",
  STEP_ID: "x-manifold-step-id",
  WORKFLOW_ID: "x-workflow-id",
  WORKFLOW_STEP_ID: "x-step-id",
  /** The calling agent's name, set by every agent's outbound caller (the scheduler takes `target_agent` from it). */
  AGENT_NAME: "x-manifold-agent-name",
  /** A scheduled run's deterministic id (`<schedule_id>:<fire_unix_seconds>`): the agent drops a second delivery of it. */
  IDEMPOTENCY_KEY: "x-manifold-idempotency-key",
  /** The calling agent's proof of its name (agent-token.ts): minted per call, never copied from an inbound request. */
  AGENT_TOKEN: "x-manifold-agent-token",
  /** The sensitive capabilities the request may not call unapproved (approval.ts); only the caller sets it. */
  APPROVAL_GATE: "x-manifold-approval-gate",
} as const;

/** A propagated header with one of these names (any case) is skipped: the caller sets them itself. */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set(Object.values(HEADER));

/**
 * Hop-by-hop and framing headers: forwarding them from an incoming request would break the outgoing
 * one (fetch refuses several outright), so they are skipped like reserved ones.
 */
const UNFORWARDABLE: ReadonlySet<string> = new Set([
  "connection",
  "content-length",
  "expect",
  "host",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** RFC 9110 token, and a field value without control characters (CR/LF above all). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function isSkippedHeader(lowerName: string): boolean {
  return RESERVED_HEADERS.has(lowerName) || UNFORWARDABLE.has(lowerName);
}

/**
 * Header values carry tokens, so no error here may quote one: fetch's own Headers would put an
 * invalid value into its message, hence this check in front of it, which names the header only.
 */
export function checkHeader(name: string, value: unknown): string {
  if (!HEADER_NAME.test(name) || typeof value !== "string" || !HEADER_VALUE.test(value)) {
    throw new ManifoldError("INVALID_INPUT", `header ${HEADER_NAME.test(name) ? name : "(invalid name)"} has an invalid name or value`);
  }
  return value;
}

/** A bare token: the caller adds `Bearer ` itself, so a token that already has it is a mistake to name. */
export function checkToken(token: unknown, source: string): string {
  if (typeof token === "string" && /^bearer(?:\s|$)/i.test(token)) {
    throw new ManifoldError(
      "INVALID_INPUT",
      `${source}: pass the bare token, without "Bearer " (the caller adds the scheme; a doubled prefix would never authenticate)`,
    );
  }
  if (typeof token !== "string" || !/^[\x21-\x7e]+$/.test(token)) {
    throw new ManifoldError("INVALID_INPUT", `${source}: a token must be a non-empty string of visible ASCII characters`);
  }
  return token;
}

/** The token of an `Authorization: Bearer <token>` value, or undefined for any other form. */
export function bearerToken(value: string | string[] | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(value);
  return match?.[1];
}
