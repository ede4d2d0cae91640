import { durationFromEnv } from "../../spec/index.js";
import { createStore, type Store } from "../../store/index.js";
import { envFlag, integerFromEnv } from "../../util/index.js";
import { createMemoryLlmDebugStore } from "./memory-store.js";
import { createRedisLlmDebugStore } from "./redis-store.js";
import {
  DEFAULT_LLM_DEBUG_MAX_BYTES,
  DEFAULT_LLM_DEBUG_TTL_MS,
  DEFAULT_MAX_INTERACTIONS,
  DEFAULT_MAX_RECORDS,
  DEFAULT_MAX_TEXT_BYTES,
  type LlmDebugStore,
} from "./types.js";

type Env = Readonly<Record<string, string | undefined>>;

export const LLM_DEBUG_ENV = "MANIFOLD_LLM_DEBUG_ENABLED";
export const LLM_DEBUG_TTL_ENV = "MANIFOLD_LLM_DEBUG_TTL";
export const LLM_DEBUG_ERROR_TTL_ENV = "MANIFOLD_LLM_DEBUG_ERROR_TTL";
export const LLM_DEBUG_MAX_BYTES_ENV = "MANIFOLD_LLM_DEBUG_MAX_BYTES";

/** `MANIFOLD_LLM_DEBUG_ENABLED`: `true` turns LLM debug records on; unset, empty or `false` leaves them off. */
export function llmDebugEnabled(env: Env = process.env): boolean {
  return envFlag(env, LLM_DEBUG_ENV) ?? false;
}

export interface LlmDebugStoreOptions {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the debug store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Env;
  /** How long a record whose calls all succeeded is kept after its last append. @defaultValue `MANIFOLD_LLM_DEBUG_TTL`, else 72 h */
  readonly ttlMs?: number;
  /** How long a record with a failed call is kept after its last append. @defaultValue `MANIFOLD_LLM_DEBUG_ERROR_TTL`, else 72 h */
  readonly errorTtlMs?: number;
  /** Most records kept (memory) or indexed (Redis). @defaultValue 1000 */
  readonly maxRecords?: number;
  /** Interactions per record; the oldest are dropped beyond it. @defaultValue 100 */
  readonly maxInteractions?: number;
  /** Prompt and response (each) are cut to this many UTF-8 bytes. @defaultValue 65536 */
  readonly maxTextBytes?: number;
  /** The memory adapter's byte budget (Redis is bounded by maxRecords). @defaultValue `MANIFOLD_LLM_DEBUG_MAX_BYTES`, else 32 MiB */
  readonly maxBytes?: number;
}

/**
 * The LLM debug store for a store, chosen like every storage port: the Redis adapter on a Redis
 * store, else the memory adapter, whose records live in the memory store's namespace so that every
 * agent of one process shares them, as they would share a Redis.
 */
export function createLlmDebugStore({
  store: given,
  env = process.env,
  ttlMs = durationFromEnv(env, LLM_DEBUG_TTL_ENV, DEFAULT_LLM_DEBUG_TTL_MS),
  errorTtlMs = durationFromEnv(env, LLM_DEBUG_ERROR_TTL_ENV, DEFAULT_LLM_DEBUG_TTL_MS),
  maxRecords = DEFAULT_MAX_RECORDS,
  maxInteractions = DEFAULT_MAX_INTERACTIONS,
  maxTextBytes = DEFAULT_MAX_TEXT_BYTES,
  maxBytes,
}: LlmDebugStoreOptions = {}): LlmDebugStore {
  const limits = { ttlMs, errorTtlMs, maxRecords, maxInteractions, maxTextBytes };
  const store = given ?? createStore({ env });
  if (store.kind === "memory") {
    const budget = maxBytes ?? integerFromEnv(env, LLM_DEBUG_MAX_BYTES_ENV, DEFAULT_LLM_DEBUG_MAX_BYTES, { min: 1 });
    return store.slot(`llm-debug:${[...Object.values(limits), budget].join(":")}`, () => createMemoryLlmDebugStore({ ...limits, maxBytes: budget }));
  }
  return createRedisLlmDebugStore(store, { ...limits, ownsStore: given === undefined });
}
