/**
 * The bounds of a user's facts, shared by both adapters and by reconciliation (which drops a
 * candidate out of bounds before it reaches a store): a key is a short snake_case name, a value a
 * short text, a source a few short ids, a summary a short paragraph.
 */
import { ManifoldError } from "../../../errors/index.js";
import type { Fact, FactSummary } from "./types.js";

/** `home_city`, `diet`: lowercase, a letter first, at most 64 characters. */
export const FACT_KEY = /^[a-z][a-z0-9_]{0,63}$/;
export const MAX_VALUE_CHARS = 500;
/** A session, message or request id in a fact's source. */
export const MAX_SOURCE_ID_CHARS = 128;
export const MAX_SUMMARY_CHARS = 600;
/** Facts per user. @defaultValue `MANIFOLD_USER_MEMORY_MAX_FACTS` */
export const DEFAULT_MAX_FACTS = 1000;
/** A user's facts expire this long after their last write. @defaultValue `MANIFOLD_USER_MEMORY_TTL` */
export const DEFAULT_FACTS_TTL_MS = 90 * 24 * 3600_000;
/** An owner key (`ownerKey`): a token's subject or a trusted header's user id. */
export const MAX_USER_CHARS = 256;

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

export function isFactKey(key: unknown): key is string {
  return typeof key === "string" && FACT_KEY.test(key);
}

/** A value a fact may hold: a non-blank string of at most MAX_VALUE_CHARS characters. */
export function isFactValue(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "" && [...value].length <= MAX_VALUE_CHARS;
}

function invalid(pointer: string, message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", `fact ${message}`, { details: [{ pointer, message }] });
}

export function checkUser(user: string): string {
  if (typeof user !== "string" || user === "" || user.length > MAX_USER_CHARS)
    throw invalid("/user", `owner must be a non-empty string of at most ${MAX_USER_CHARS} characters`);
  return user;
}

/** What a store accepts: the key and value in bounds, a source of short ids, ISO times. Messages never quote the value. */
export function checkFact(fact: Fact): Fact {
  if (!isFactKey(fact.key)) throw invalid("/key", "key must be snake_case: a lowercase letter, then up to 63 letters, digits or _");
  if (!isFactValue(fact.value)) throw invalid("/value", `value must be a non-blank string of at most ${MAX_VALUE_CHARS} characters`);
  if (fact.previous !== undefined && !isFactValue(fact.previous)) throw invalid("/previous", "previous must be a value in bounds");
  for (const name of ["session_id", "message_id", "request_id"] as const) {
    const id = fact.source?.[name];
    if (id !== undefined && (typeof id !== "string" || id.length > MAX_SOURCE_ID_CHARS))
      throw invalid(`/source/${name}`, `source ${name} must be a string of at most ${MAX_SOURCE_ID_CHARS} characters`);
  }
  if (!TIME.test(fact.created_at) || !TIME.test(fact.updated_at)) throw invalid("/updated_at", "times must be ISO 8601 UTC");
  return fact;
}

export function checkSummary(summary: FactSummary): FactSummary {
  if (typeof summary.text !== "string" || [...summary.text].length > MAX_SUMMARY_CHARS)
    throw new ManifoldError("INVALID_INPUT", `a summary is at most ${MAX_SUMMARY_CHARS} characters`);
  if (!Number.isSafeInteger(summary.revision) || summary.revision < 0) throw new ManifoldError("INVALID_INPUT", "a summary's revision is a whole number");
  return summary;
}

/** Only the fields of the port, in a fixed order: what both adapters store and return. */
export function normalFact(fact: Fact): Fact {
  const source = {
    ...(fact.source.session_id === undefined ? {} : { session_id: fact.source.session_id }),
    ...(fact.source.message_id === undefined ? {} : { message_id: fact.source.message_id }),
    ...(fact.source.request_id === undefined ? {} : { request_id: fact.source.request_id }),
  };
  return {
    key: fact.key,
    value: fact.value,
    source,
    created_at: fact.created_at,
    updated_at: fact.updated_at,
    ...(fact.previous === undefined ? {} : { previous: fact.previous }),
  };
}

/**
 * The revision a user's facts start from the first time they are written: the write's time in ms
 * × 1000, so a user whose facts expired and came back never reuses a revision an old recall cache
 * may still hold (each change adds 1).
 */
export function firstRevision(now: number): number {
  return Math.max(1, Math.floor(now)) * 1000;
}
