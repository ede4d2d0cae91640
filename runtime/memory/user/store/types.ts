/**
 * The user memory port: durable facts about one user (keyed by the caller's identity, `ownerKey`),
 * and a summary of them. `memory` and `redis` adapters implement it; one contract suite
 * (test/contract/user-facts.cases.ts) runs against memory, Redis and Redis Cluster. Every user's
 * facts are bounded in count and bytes and expire after the store's TTL without use.
 */

/** Where a fact was learnt: the chat turn that stated it. */
export interface FactSource {
  readonly session_id?: string;
  /** The user message's id in that session. */
  readonly message_id?: string;
  readonly request_id?: string;
}

export interface Fact {
  /** A short snake_case key (`home_city`, `diet`): one value per key. */
  readonly key: string;
  readonly value: string;
  readonly source: FactSource;
  /** ISO 8601. */
  readonly created_at: string;
  readonly updated_at: string;
  /** The value this one replaced when it was contradicted, for the dashboard. */
  readonly previous?: string;
}

/** How one candidate was reconciled with what was stored. */
export type FactChange =
  | { readonly action: "added"; readonly fact: Fact }
  | { readonly action: "updated" | "contradicted"; readonly fact: Fact; readonly previous: string }
  | { readonly action: "deleted"; readonly key: string }
  | {
      readonly action: "dropped";
      readonly key: string;
      /** `forgotten`: the user deleted the key while the extraction ran; a turn from before the delete does not bring it back. */
      readonly reason: "unchanged" | "secret" | "invalid" | "limit" | "unknown_key" | "forgotten";
    };

export interface FactSummary {
  readonly text: string;
  /** The facts revision it was made from: stale when the facts have moved on. */
  readonly revision: number;
  readonly updated_at: string;
}

export interface FactStore {
  readonly kind: "memory" | "redis";
  /** Every fact of a user, sorted by key; bounded by the store's per-user limit. */
  list(user: string): Promise<Fact[]>;
  /** One fact; undefined when absent. */
  get(user: string, key: string): Promise<Fact | undefined>;
  /**
   * Writes a fact (adds or replaces its key) as one atomic step and bumps the user's revision.
   * LIMIT_EXCEEDED past the per-user count; INVALID_INPUT for a key or value out of bounds.
   */
  put(user: string, fact: Fact): Promise<void>;
  /**
   * Removes a fact everywhere at once (list, get, recall) and the summary with it (it may quote the
   * value); false when it was absent. Bumps the revision.
   */
  delete(user: string, key: string): Promise<boolean>;
  /** Removes every fact and the summary of a user; the count removed. */
  clear(user: string): Promise<number>;
  /** Changes each time the user's facts change (recall caches its index by it); 0 for a user with none. */
  revision(user: string): Promise<number>;
  summary(user: string): Promise<FactSummary | undefined>;
  /** Keeps the summary only while `summary.revision` is the user's current revision (else it is stale already); nothing for a user without facts. */
  setSummary(user: string, summary: FactSummary): Promise<void>;
  /** Users with facts, for the dashboard; bounded, `truncated` when cut. */
  users(limit?: number): Promise<{ readonly users: readonly string[]; readonly truncated: boolean }>;
  close(): Promise<void>;
}
