import { createStore, type Store } from "../../store/index.js";
import { envFlag } from "../../util/index.js";
import { createMemoryExecutionStore } from "./memory-store.js";
import { createRedisExecutionStore } from "./redis-store.js";
import { DEFAULT_EXECUTION_TTL_MS, DEFAULT_MAX_RECORDS, type ExecutionStore } from "./types.js";

export const EXECUTION_DEBUG_ENV = "MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED";

/** `MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED`: `true` turns execution records on; unset, empty or `false` leaves them off. */
export function executionDebugEnabled(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return envFlag(env, EXECUTION_DEBUG_ENV) ?? false;
}

export interface ExecutionStoreOptions {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the execution store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long a record is kept. @defaultValue 24 h */
  readonly ttlMs?: number;
  /** Most records kept (memory) or indexed (Redis). @defaultValue 1000 */
  readonly maxRecords?: number;
}

/**
 * The execution store for a store, chosen like every storage port: the Redis adapter on a Redis
 * store, else the memory adapter, whose records live in the memory store's namespace so that every
 * agent of one process shares them, as they would share a Redis.
 */
export function createExecutionStore({
  store: given,
  env = process.env,
  ttlMs = DEFAULT_EXECUTION_TTL_MS,
  maxRecords = DEFAULT_MAX_RECORDS,
}: ExecutionStoreOptions = {}): ExecutionStore {
  const store = given ?? createStore({ env });
  if (store.kind === "memory") return store.slot(`executions:${ttlMs}:${maxRecords}`, () => createMemoryExecutionStore({ ttlMs, maxRecords }));
  return createRedisExecutionStore(store, { ttlMs, maxRecords, ownsStore: given === undefined });
}
