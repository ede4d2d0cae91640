/**
 * Facts on Redis: one hash per user, `manifold:v1:<ns>:{user_facts:<digest>}:facts`, holding each
 * fact (`f:<key>`, JSON), the count (`n`), the revision (`rev`), the summary and the owner key. One
 * key per user, so each write is one script on one Cluster slot: the put, delete and clear scripts
 * change the facts and bump the revision in one step, and the hash expires `ttlMs` after its last
 * write. The user part of the key is a digest of the owner key (which may hold any character).
 * `users()` reads a sorted set of owners by last write (`manifold:v1:<ns>:user_facts:users`), kept
 * beside the hashes (another slot) and pruned of users whose facts are gone as it is read.
 */
import { createHash } from "node:crypto";
import { ManifoldError } from "../../../errors/index.js";
import { defineLuaScript, runScript, type RedisStore } from "../../../store/index.js";
import { checkFact, checkSummary, checkUser, DEFAULT_FACTS_TTL_MS, DEFAULT_MAX_FACTS, firstRevision, isFactKey, normalFact } from "./bounds.js";
import type { Fact, FactStore, FactSummary } from "./types.js";

const lua = (file: string) => defineLuaScript("user-facts", new URL(`./lua/${file}`, import.meta.url));
const PUT = lua("put-1.lua");
const DELETE = lua("delete-1.lua");
const CLEAR = lua("clear-1.lua");
const SET_SUMMARY = lua("set-summary-1.lua");

/** Users whose facts are checked per round while listing. */
const USERS_WINDOW = 100;

export interface RedisFactStoreOptions {
  /** @defaultValue 1000 */
  readonly maxFacts?: number;
  /** @defaultValue 90 days */
  readonly ttlMs?: number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

function factsOf(hash: Record<string, string>): Fact[] {
  return Object.keys(hash)
    .filter((field) => field.startsWith("f:"))
    .sort()
    .map((field) => JSON.parse(hash[field]!) as Fact);
}

export function createRedisFactStore(
  store: RedisStore,
  { maxFacts = DEFAULT_MAX_FACTS, ttlMs = DEFAULT_FACTS_TTL_MS, ownsStore = false, now = Date.now }: RedisFactStoreOptions = {},
): FactStore {
  const { client, keys } = store;
  const factsKey = (user: string): string => keys.tagged(`user_facts:${createHash("sha256").update(user).digest("hex").slice(0, 32)}`, "facts");
  const usersKey = keys.key("user_facts", "users");

  const listUsers = async (limit: number): Promise<{ users: string[]; truncated: boolean }> => {
    // Owners not written for a TTL have no facts left: drop them before reading.
    await client.zremrangebyscore(usersKey, "-inf", now() - ttlMs);
    const found: string[] = [];
    for (let start = 0; ; start += USERS_WINDOW) {
      const owners = await client.zrevrange(usersKey, start, start + USERS_WINDOW - 1);
      if (owners.length === 0) return { users: found, truncated: false };
      // One read per user, concurrently: on a Cluster they live in different slots.
      const counts = await Promise.all(owners.map((owner) => client.hget(factsKey(owner), "n")));
      const gone = owners.filter((_, i) => Number(counts[i] ?? "0") === 0);
      for (const [i, owner] of owners.entries()) {
        if (Number(counts[i] ?? "0") === 0) continue;
        if (found.length === limit) return { users: found, truncated: true };
        found.push(owner);
      }
      if (gone.length > 0) {
        await client.zrem(usersKey, ...gone);
        start -= gone.length;
      }
      if (owners.length < USERS_WINDOW) return { users: found, truncated: false };
    }
  };

  return {
    kind: "redis",
    list: async (user) => factsOf(await client.hgetall(factsKey(user))),
    async get(user, key) {
      if (!isFactKey(key)) return undefined;
      const text = await client.hget(factsKey(user), `f:${key}`);
      return text === null ? undefined : (JSON.parse(text) as Fact);
    },
    async put(user, fact) {
      checkUser(user);
      const stored = normalFact(checkFact(fact));
      const at = now();
      const answer = await runScript(client, PUT, [factsKey(user)], [stored.key, JSON.stringify(stored), maxFacts, ttlMs, user, firstRevision(at)]);
      if (answer === "LIMIT") throw new ManifoldError("LIMIT_EXCEEDED", `a user keeps at most ${maxFacts} facts; delete one first`);
      // The owner list forgets owners not written for a TTL (their facts are gone), so it stays as large as the live users.
      await client
        .multi()
        .zadd(usersKey, at, user)
        .zremrangebyscore(usersKey, "-inf", at - ttlMs)
        .exec();
    },
    async delete(user, key) {
      if (!isFactKey(key)) return false;
      return (await runScript(client, DELETE, [factsKey(user)], [key, ttlMs])) === 1;
    },
    async clear(user) {
      const removed = Number(await runScript(client, CLEAR, [factsKey(user)], [ttlMs]));
      await client.zrem(usersKey, user);
      return removed;
    },
    revision: async (user) => Number((await client.hget(factsKey(user), "rev")) ?? "0"),
    async summary(user) {
      const text = await client.hget(factsKey(user), "summary");
      return text === null ? undefined : (JSON.parse(text) as FactSummary);
    },
    async setSummary(user, summary) {
      checkUser(user);
      const kept = { text: checkSummary(summary).text, revision: summary.revision, updated_at: summary.updated_at };
      await runScript(client, SET_SUMMARY, [factsKey(user)], [JSON.stringify(kept), ttlMs, String(kept.revision)]);
    },
    users: (limit = 100) => listUsers(limit),
    async close() {
      if (ownsStore) await store.close();
    },
  };
}
