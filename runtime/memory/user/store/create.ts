import { createStore, type Store } from "../../../store/index.js";
import { USER_MEMORY_TTL_ENV, userFactsTtlMs, userMaxFacts } from "../settings.js";
import { createMemoryFactStore, type MemoryFactStoreOptions } from "./memory-store.js";
import { createRedisFactStore } from "./redis-store.js";
import type { FactStore } from "./types.js";

type Env = Readonly<Record<string, string | undefined>>;

export { USER_MEMORY_MAX_FACTS_ENV, USER_MEMORY_TTL_ENV } from "../settings.js";

export interface FactStoreOptions extends Pick<MemoryFactStoreOptions, "maxUsers" | "maxBytes" | "now"> {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the fact store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Env;
  /** Facts per user. @defaultValue `MANIFOLD_USER_MEMORY_MAX_FACTS`, else 1000 */
  readonly maxFacts?: number;
  /** How long a user's facts live after their last write. @defaultValue `MANIFOLD_USER_MEMORY_TTL`, else 90 days */
  readonly ttlMs?: number;
}

/**
 * The fact store for a store: the Redis adapter on a Redis store, else the memory adapter, held in
 * the memory store's namespace so every agent of one process (and the dashboard) shares it, as
 * replicas share a Redis. Calls with the same limits get the same memory store.
 */
export function createFactStore({
  store: given,
  env = process.env,
  maxFacts = userMaxFacts(env),
  ttlMs = userFactsTtlMs(env),
  maxUsers,
  maxBytes,
  now,
}: FactStoreOptions = {}): FactStore {
  if (!(ttlMs >= 1000)) throw new RangeError(`${USER_MEMORY_TTL_ENV} must be at least 1s`);
  const store = given ?? createStore({ env });
  const clock = now === undefined ? {} : { now };
  if (store.kind === "memory") {
    const options = { maxFacts, ttlMs, ...(maxUsers !== undefined && { maxUsers }), ...(maxBytes !== undefined && { maxBytes }), ...clock };
    return store.slot(`user-facts:${maxFacts}:${ttlMs}:${maxUsers ?? ""}:${maxBytes ?? ""}`, () => createMemoryFactStore(options));
  }
  return createRedisFactStore(store, { maxFacts, ttlMs, ownsStore: given === undefined, ...clock });
}
