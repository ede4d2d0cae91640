import { createStore, type Store } from "../../store/index.js";
import { createMemorySessionStore, type MemorySessionStoreOptions } from "./memory-store.js";
import { createRedisSessionStore } from "./redis-store.js";
import type { ChatSessionStore } from "./types.js";

export interface SessionStoreOptions extends Pick<MemorySessionStoreOptions, "maxSessions" | "maxBytes"> {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the session store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @defaultValue 48 h (the spec's); shorter only for tests */
  readonly ttlMs?: number;
}

/**
 * The session store for a store: Redis adapter on a Redis store, else the memory adapter, held in the
 * memory store's namespace so every agent of one process shares it, as replicas share a Redis.
 */
export function createSessionStore({ store: given, env = process.env, ttlMs, maxSessions, maxBytes }: SessionStoreOptions = {}): ChatSessionStore {
  const store = given ?? createStore({ env });
  const options = { ...(ttlMs !== undefined && { ttlMs }) };
  if (store.kind === "memory") {
    return store.slot(`sessions:${ttlMs ?? "default"}`, () =>
      createMemorySessionStore({ ...options, ...(maxSessions !== undefined && { maxSessions }), ...(maxBytes !== undefined && { maxBytes }) }),
    );
  }
  return createRedisSessionStore(store, { ...options, ownsStore: given === undefined });
}
