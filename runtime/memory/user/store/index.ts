/** The user memory port and its adapters (memory, Redis), chosen by `createFactStore`. */
export type { Fact, FactChange, FactSource, FactStore, FactSummary } from "./types.js";
export {
  checkFact,
  DEFAULT_FACTS_TTL_MS,
  DEFAULT_MAX_FACTS,
  FACT_KEY,
  isFactKey,
  isFactValue,
  MAX_SUMMARY_CHARS,
  MAX_VALUE_CHARS,
} from "./bounds.js";
export { createMemoryFactStore, type MemoryFactStoreOptions } from "./memory-store.js";
export { createRedisFactStore, type RedisFactStoreOptions } from "./redis-store.js";
export { createFactStore, USER_MEMORY_MAX_FACTS_ENV, USER_MEMORY_TTL_ENV, type FactStoreOptions } from "./create.js";
