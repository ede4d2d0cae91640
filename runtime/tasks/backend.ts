import { createStore, type Store } from "../store/index.js";
import { integerFromEnv } from "../util/index.js";
import { createMemoryTaskBackend, createMemoryTaskState } from "./memory-backend.js";
import { createRedisTaskBackend } from "./redis-backend.js";
import type { TaskBackend, TaskBackendOptions } from "./types.js";

export interface CreateTaskBackendOptions extends TaskBackendOptions {
  /**
   * Where tasks live. @defaultValue `createStore()`: Redis (or Redis Cluster) when the environment
   * configures one (REDIS_URL, MANIFOLD_REDIS_*), else the embedded memory store; owned, and closed,
   * by the backend
   */
  readonly store?: Store;
  /** Where the embedded store's budgets are read (MANIFOLD_MEMORY_MAX_TASKS, MANIFOLD_MEMORY_MAX_TASK_BYTES). @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The task backend for a store: the Redis adapter on the store's shared connection, or the memory
 * adapter over the store's process-wide state, so the API and the workers of one process (and every
 * backend of the same namespace and queue) see the same tasks, as they would on a shared Redis.
 * The namespace defaults to the store's.
 */
export function createTaskBackend(options: CreateTaskBackendOptions = {}): TaskBackend {
  const { store: given, env = process.env, ...rest } = options;
  const store = given ?? createStore();
  const namespace = rest.namespace ?? store.namespace;
  if (store.kind === "memory") {
    const state = store.slot(`tasks:${namespace}:${rest.queue ?? "default"}`, createMemoryTaskState);
    // The embedded store lives in this process's heap: bounded, whatever clients send.
    const maxRecords = integerFromEnv(env, "MANIFOLD_MEMORY_MAX_TASKS", 100_000, { min: 1 });
    const maxBytes = integerFromEnv(env, "MANIFOLD_MEMORY_MAX_TASK_BYTES", 64 * 1024 * 1024, { min: 1024 });
    return createMemoryTaskBackend({ ...rest, namespace, state, maxRecords, maxBytes });
  }
  const backend = createRedisTaskBackend(store.client, { ...rest, namespace });
  if (given !== undefined) return backend;
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await store.close();
    },
  };
}
