/**
 * Reconciliation: what each candidate fact the model proposed does to what is stored. Pure: it
 * reads the user's facts as they are and returns the changes, in candidate order, each candidate
 * seeing the ones before it (two candidates for one key: the second compares with the first).
 *
 * - a new key → `added` (or dropped `limit` when the user is full);
 * - a kept key with another value → `updated` when the model said update, `contradicted` when it
 *   said add (it did not know, or the user changed their mind); either keeps the `previous` value;
 * - the same value → dropped `unchanged`;
 * - delete → `deleted`, or dropped `unknown_key`;
 * - a key or value out of bounds, or an unknown action → dropped `invalid`;
 * - a value that looks like a credential, or a key that names one → dropped `secret` (secrets.ts);
 * - an add or update of a key the user deleted while the model was answering → dropped `forgotten`.
 */
import { isFactKey, isFactValue } from "./store/bounds.js";
import type { Fact, FactChange, FactSource } from "./store/types.js";
import { looksSecret } from "./secrets.js";

/** Candidates read from one extraction at most; the rest are dropped (`limit`). */
export const MAX_CANDIDATES = 20;

export interface ReconcileOptions {
  /** The turn that stated them. */
  readonly source: FactSource;
  /** ISO 8601: the facts' `updated_at` (and `created_at` when new). */
  readonly now: string;
  /** Facts a user keeps at most. */
  readonly maxFacts: number;
  /** Whether the user deleted this key since the turn was read (its facts must stay deleted). @defaultValue none */
  readonly forgotten?: (key: string) => boolean;
}

/** A key fit to name in a change: the key when it is one, else a bounded, printable stand-in. */
function keyOf(raw: unknown): string {
  return typeof raw === "string" ? raw.replace(/[^\x20-\x7e]/g, "?").slice(0, 64) : "";
}

type Dropped = Extract<FactChange, { action: "dropped" }>["reason"];

function dropped(key: unknown, reason: Dropped): FactChange {
  return { action: "dropped", key: keyOf(key), reason };
}

function one(raw: unknown, facts: Map<string, Fact>, { source, now, maxFacts, forgotten }: ReconcileOptions): FactChange {
  const candidate = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const { key, action } = candidate;
  if (!isFactKey(key) || (action !== "add" && action !== "update" && action !== "delete")) return dropped(key, "invalid");
  const kept = facts.get(key);
  if (action === "delete") {
    if (kept === undefined) return dropped(key, "unknown_key");
    facts.delete(key);
    return { action: "deleted", key };
  }
  // One line: recall shows a fact per line, so a value's line breaks could forge lines of other facts.
  const value = typeof candidate["value"] === "string" ? candidate["value"].replace(/[\s\p{Cc}]+/gu, " ").trim() : candidate["value"];
  if (!isFactValue(value)) return dropped(key, "invalid");
  if (looksSecret(key, value)) return dropped(key, "secret");
  if (forgotten?.(key) === true) return dropped(key, "forgotten");
  if (kept === undefined) {
    if (facts.size >= maxFacts) return dropped(key, "limit");
    const fact: Fact = { key, value, source, created_at: now, updated_at: now };
    facts.set(key, fact);
    return { action: "added", fact };
  }
  if (kept.value === value) return dropped(key, "unchanged");
  const fact: Fact = { key, value, source, created_at: kept.created_at, updated_at: now, previous: kept.value };
  facts.set(key, fact);
  return { action: action === "update" ? "updated" : "contradicted", fact, previous: kept.value };
}

export function reconcile(candidates: readonly unknown[], stored: readonly Fact[], options: ReconcileOptions): FactChange[] {
  const facts = new Map(stored.map((fact) => [fact.key, fact]));
  return candidates.map((raw, i) => (i < MAX_CANDIDATES ? one(raw, facts, options) : dropped((raw as { key?: unknown } | null)?.key, "limit")));
}

/** Whether a change writes to the store (a put or a delete). */
export function isStored(change: FactChange): boolean {
  return change.action !== "dropped";
}
