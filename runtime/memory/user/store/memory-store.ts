/**
 * Facts in this process's memory: one entry per user, expiring `ttlMs` after its last write, and the
 * whole store bounded by users and bytes (past either the least recently written user goes first,
 * as if expired). Every method runs synchronously between awaits, so each write is atomic.
 */
import { ManifoldError } from "../../../errors/index.js";
import { checkFact, checkSummary, checkUser, DEFAULT_FACTS_TTL_MS, DEFAULT_MAX_FACTS, firstRevision, isFactKey, normalFact } from "./bounds.js";
import type { Fact, FactStore, FactSummary } from "./types.js";

export interface MemoryFactStoreOptions {
  /** Facts per user; a put of a new key past it is LIMIT_EXCEEDED. @defaultValue 1000 */
  readonly maxFacts?: number;
  /** @defaultValue 90 days */
  readonly ttlMs?: number;
  /** Users kept at most. @defaultValue 10,000 */
  readonly maxUsers?: number;
  /** Bytes of facts and summaries kept at most (JSON). @defaultValue 64 MiB */
  readonly maxBytes?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface UserEntry {
  readonly facts: Map<string, Fact>;
  revision: number;
  summary: FactSummary | undefined;
  expiresAt: number;
  bytes: number;
}

const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

interface UserTable {
  /** The user's entry unless it has expired (then it is dropped). */
  live(user: string): UserEntry | undefined;
  /** The user's entry for a write, made when absent, moved to the newest end, its TTL refreshed. */
  writable(user: string): UserEntry;
  /** Adds `delta` bytes to the entry's (and the table's) size. */
  resize(entry: UserEntry, delta: number): void;
  /** Replaces (or, with undefined, drops) the entry's summary, keeping the sizes right. */
  summarise(entry: UserEntry, summary: FactSummary | undefined): void;
  /** Evicts the least recently written users (never `keep`) until the bounds hold. */
  evict(keep: string): void;
  /** Users, the most recently written first. */
  newestFirst(): string[];
}

function createUserTable({ ttlMs, maxUsers, maxBytes, now }: Required<Omit<MemoryFactStoreOptions, "maxFacts">>): UserTable {
  // Insertion order is write order: a write moves its user to the end, so the first is the least recently written.
  const users = new Map<string, UserEntry>();
  let totalBytes = 0;
  const drop = (user: string): void => {
    const entry = users.get(user);
    if (entry === undefined) return;
    totalBytes -= entry.bytes;
    users.delete(user);
  };
  const resize = (entry: UserEntry, delta: number): void => {
    entry.bytes += delta;
    totalBytes += delta;
  };
  const live = (user: string): UserEntry | undefined => {
    const entry = users.get(user);
    if (entry !== undefined && entry.expiresAt <= now()) {
      drop(user);
      return undefined;
    }
    return entry;
  };
  return {
    live,
    writable(user) {
      const entry = live(user) ?? { facts: new Map(), revision: firstRevision(now()), summary: undefined, expiresAt: 0, bytes: 0 };
      users.delete(user);
      users.set(user, entry);
      entry.expiresAt = now() + ttlMs;
      return entry;
    },
    resize,
    summarise(entry, summary) {
      resize(entry, (summary === undefined ? 0 : sizeOf(summary)) - (entry.summary === undefined ? 0 : sizeOf(entry.summary)));
      entry.summary = summary;
    },
    evict(keep) {
      for (const [user] of users) {
        if (users.size <= maxUsers && totalBytes <= maxBytes) return;
        if (user !== keep) drop(user);
      }
    },
    newestFirst: () => [...users.keys()].reverse(),
  };
}

export function createMemoryFactStore({
  maxFacts = DEFAULT_MAX_FACTS,
  ttlMs = DEFAULT_FACTS_TTL_MS,
  maxUsers = 10_000,
  maxBytes = 64 * 1024 * 1024,
  now = Date.now,
}: MemoryFactStoreOptions = {}): FactStore {
  const { live, writable, resize, summarise, evict, newestFirst } = createUserTable({ ttlMs, maxUsers, maxBytes, now });
  return {
    kind: "memory",
    async list(user) {
      const entry = live(user);
      return entry === undefined ? [] : [...entry.facts.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async get(user, key) {
      return live(user)?.facts.get(key);
    },
    async put(user, fact) {
      checkUser(user);
      const stored = normalFact(checkFact(fact));
      const current = live(user);
      const before = current?.facts.get(stored.key);
      if (before === undefined && (current?.facts.size ?? 0) >= maxFacts)
        throw new ManifoldError("LIMIT_EXCEEDED", `a user keeps at most ${maxFacts} facts; delete one first`);
      const entry = writable(user);
      entry.facts.set(stored.key, stored);
      resize(entry, sizeOf(stored) - (before === undefined ? 0 : sizeOf(before)));
      entry.revision += 1;
      evict(user);
    },
    async delete(user, key) {
      const entry = live(user);
      const before = isFactKey(key) ? entry?.facts.get(key) : undefined;
      if (entry === undefined || before === undefined) return false;
      entry.facts.delete(key);
      resize(entry, -sizeOf(before));
      // The summary may quote the forgotten value: it goes with it (the next extraction writes another).
      summarise(entry, undefined);
      writable(user).revision += 1;
      return true;
    },
    async clear(user) {
      const entry = live(user);
      if (entry === undefined) return 0;
      const count = entry.facts.size;
      if (count === 0 && entry.summary === undefined) return 0;
      entry.facts.clear();
      entry.summary = undefined;
      resize(entry, -entry.bytes);
      // The revision stays (and moves on), so no recall cache keyed by an earlier one is taken for current.
      writable(user).revision += 1;
      return count;
    },
    async revision(user) {
      return live(user)?.revision ?? 0;
    },
    async summary(user) {
      return live(user)?.summary;
    },
    async setSummary(user, summary) {
      checkUser(user);
      const kept = { text: checkSummary(summary).text, revision: summary.revision, updated_at: summary.updated_at };
      // Not kept: a summary of nothing (expired or cleared meanwhile) or of facts changed since (a deleted one must not come back in it).
      if ((live(user)?.facts.size ?? 0) === 0 || live(user)!.revision !== kept.revision) return;
      summarise(writable(user), kept);
      evict(user);
    },
    async users(limit = 100) {
      const found: string[] = [];
      for (const user of newestFirst()) {
        const entry = live(user);
        if (entry === undefined || entry.facts.size === 0) continue;
        if (found.length === limit) return { users: found, truncated: true };
        found.push(user);
      }
      return { users: found, truncated: false };
    },
    async close() {},
  };
}
