/**
 * The language model: the `openai` client against any OpenAI-compatible endpoint, and the LLM debug
 * store. See README.md.
 */
export type { LlmCompletion, LlmMessage, LlmPhase, LlmProvider, LlmRequest, LlmUsage } from "./types.js";
export {
  DEFAULT_LLM_DEBUG_TTL_MS,
  LLM_DEBUG_ENV,
  LLM_DEBUG_ERROR_TTL_ENV,
  LLM_DEBUG_TTL_ENV,
  createLlmDebugStore,
  createMemoryLlmDebugStore,
  createRedisLlmDebugStore,
  llmDebugEnabled,
  type LlmDebugEntry,
  type LlmDebugListOptions,
  type LlmDebugRecord,
  type LlmDebugStatus,
  type LlmDebugStore,
  type LlmDebugStoreOptions,
  type LlmInteraction,
  type MemoryLlmDebugStoreOptions,
  type RedisLlmDebugStoreOptions,
} from "./debug/index.js";
