/**
 * LLM debug records: every language-model call of a request (prompt, response, tokens, timing),
 * kept for a while for the dashboard. Off unless `MANIFOLD_LLM_DEBUG_ENABLED=true`; memory and Redis
 * adapters behind one port, bounded in size, count and time.
 */
export {
  LLM_DEBUG_ENV,
  LLM_DEBUG_ERROR_TTL_ENV,
  LLM_DEBUG_MAX_BYTES_ENV,
  LLM_DEBUG_TTL_ENV,
  createLlmDebugStore,
  llmDebugEnabled,
  type LlmDebugStoreOptions,
} from "./create.js";
export { createMemoryLlmDebugStore, type MemoryLlmDebugStore, type MemoryLlmDebugStoreOptions } from "./memory-store.js";
export { createRedisLlmDebugStore, type RedisLlmDebugStoreOptions } from "./redis-store.js";
export {
  DEFAULT_LLM_DEBUG_MAX_BYTES,
  DEFAULT_LLM_DEBUG_TTL_MS,
  cutUtf8,
  type LlmDebugEntry,
  type LlmDebugFinal,
  type LlmDebugFinish,
  type LlmDebugListOptions,
  type LlmDebugRecord,
  type LlmDebugStatus,
  type LlmDebugStore,
  type LlmInteraction,
} from "./types.js";
