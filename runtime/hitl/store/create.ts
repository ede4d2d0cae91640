import { createStore, type Store } from "../../store/index.js";
import { createMemoryCheckpointStore, type MemoryCheckpointStoreOptions } from "./memory-store.js";
import { createRedisCheckpointStore } from "./redis-store.js";
import type { CheckpointStore } from "./types.js";

export interface CheckpointStoreOptions extends Pick<MemoryCheckpointStoreOptions, "retentionMs" | "maxRecordBytes" | "maxCheckpoints" | "maxBytes"> {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the checkpoint store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The checkpoint store for a store: the Redis adapter on a Redis store, else the memory adapter, held
 * in the memory store's namespace so every agent and expiry processor of one process shares it, as
 * replicas share a Redis. Calls with the same options get the same memory store.
 */
export function createCheckpointStore({
  store: given,
  env = process.env,
  retentionMs,
  maxRecordBytes,
  maxCheckpoints,
  maxBytes,
}: CheckpointStoreOptions = {}): CheckpointStore {
  const store = given ?? createStore({ env });
  const shared = { ...(retentionMs !== undefined && { retentionMs }), ...(maxRecordBytes !== undefined && { maxRecordBytes }) };
  if (store.kind === "memory") {
    const options = { ...shared, ...(maxCheckpoints !== undefined && { maxCheckpoints }), ...(maxBytes !== undefined && { maxBytes }) };
    return store.slot(`checkpoints:${JSON.stringify(options)}`, () => createMemoryCheckpointStore(options));
  }
  return createRedisCheckpointStore(store, { ...shared, ownsStore: given === undefined });
}
