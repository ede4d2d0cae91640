/** Reading what a chat request says: its owner, the message, paging; each bad value a 400 with a pointer. */
import { ManifoldError } from "../errors/index.js";
import type { RouteContext } from "../component/index.js";
import { ANONYMOUS, callerIdentity, ownerKey } from "../context/index.js";
import { DEFAULT_PAGE, MAX_PAGE, type ListPage } from "./store/index.js";
import { MAX_MESSAGE_CHARS } from "./wire.js";

/** The header a trusted gateway names the user with: honoured only with `MANIFOLD_TRUST_IDENTITY_HEADERS=true` (component/auth.ts). */
export const USER_HEADER = "x-user-id";
/** Sessions made by a caller nothing identifies belong to this user (`ANONYMOUS.subject`). */
export const ANONYMOUS_USER = ANONYMOUS.subject;
const MAX_METADATA_BYTES = 4096;
const MAX_TITLE_CHARS = 200;

function invalid(pointer: string, message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", message, { details: [{ pointer, message }] });
}

/**
 * The owner of the sessions this request makes and may touch: the caller's proven identity (a verified
 * token's subject; `X-User-ID` only behind a trusted gateway, `MANIFOLD_TRUST_IDENTITY_HEADERS`), else
 * the anonymous user. `required` (listing) refuses an anonymous caller: its sessions are nobody's to list.
 */
export function ownerOf(required: boolean): string {
  const identity = callerIdentity();
  if (required && identity.via === "anonymous")
    throw new ManifoldError("UNAUTHORIZED", "listing sessions needs an identity: a verified bearer token (or X-User-ID from a trusted gateway)");
  return ownerKey(identity);
}

/** The caller may touch this session: its owner only. Another owner's session is reported as missing, so its existence does not leak. */
export function isOwnSession(session: { readonly user_id: string }): boolean {
  return session.user_id === ownerKey(callerIdentity());
}

export function messageOf(body: Record<string, unknown>): string {
  const message = body["message"];
  if (typeof message !== "string" || message.trim() === "") throw invalid("/message", "`message` is required: a non-empty string");
  if (message.length > MAX_MESSAGE_CHARS) throw new ManifoldError("PAYLOAD_TOO_LARGE", `\`message\` is longer than ${MAX_MESSAGE_CHARS} characters`);
  return message;
}

/** An optional `session_id`: a string when present (its format is checked by the lookup, which then finds nothing). */
export function sessionIdOf(body: Record<string, unknown>): string | undefined {
  const id = body["session_id"];
  if (id === undefined || id === null || id === "") return undefined;
  if (typeof id !== "string") throw invalid("/session_id", "`session_id` must be a string");
  return id;
}

export function metadataOf(body: Record<string, unknown>): Record<string, unknown> {
  const metadata = body["metadata"];
  if (metadata === undefined) return {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw invalid("/metadata", "`metadata` must be an object");
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw invalid("/metadata", `\`metadata\` is larger than ${MAX_METADATA_BYTES} bytes`);
  return metadata as Record<string, unknown>;
}

export function titleOf(body: Record<string, unknown>): string {
  const title = body["title"];
  if (typeof title !== "string" || title.trim() === "") throw invalid("/title", "`title` is required: a non-empty string");
  if ([...title].length > MAX_TITLE_CHARS) throw invalid("/title", `\`title\` is longer than ${MAX_TITLE_CHARS} characters`);
  return title.trim();
}

function queryInteger(ctx: RouteContext, name: string, fallback: number): number {
  const raw = ctx.query[name];
  if (raw === undefined || raw === "") return fallback;
  const text = Array.isArray(raw) ? raw[0]! : raw;
  if (!/^\d{1,9}$/.test(text))
    throw new ManifoldError("INVALID_INPUT", `query parameter ${name} must be a whole number`, {
      details: [{ pointer: `/${name}`, message: "must be a whole number" }],
    });
  return Number(text);
}

/** `offset` (default 0) and `limit` (default 20, capped at 50, at least 1). */
export function pageOf(ctx: RouteContext): ListPage {
  return { offset: queryInteger(ctx, "offset", 0), limit: Math.max(1, Math.min(MAX_PAGE, queryInteger(ctx, "limit", DEFAULT_PAGE))) };
}
