/**
 * The language model: the `openai` client against any OpenAI-compatible endpoint, and the LLM debug
 * store. See README.md.
 */
export type { EmbeddingRequest, EmbeddingResult, LlmCompletion, LlmMessage, LlmPhase, LlmProvider, LlmRequest, LlmUsage } from "./types.js";
export {
  DEFAULT_LLM_DEBUG_MAX_BYTES,
  DEFAULT_LLM_DEBUG_TTL_MS,
  LLM_DEBUG_ENV,
  LLM_DEBUG_ERROR_TTL_ENV,
  cutUtf8,
  LLM_DEBUG_TTL_ENV,
  createLlmDebugStore,
  createMemoryLlmDebugStore,
  createRedisLlmDebugStore,
  llmDebugEnabled,
  type LlmDebugEntry,
  type LlmDebugFinal,
  type LlmDebugFinish,
  type LlmDebugListOptions,
  type LlmDebugRecord,
  type LlmDebugStatus,
  type LlmDebugStore,
  type LlmDebugStoreOptions,
  type LlmInteraction,
  type MemoryLlmDebugStore,
  type MemoryLlmDebugStoreOptions,
  type RedisLlmDebugStoreOptions,
} from "./debug/index.js";
export {
  PLAN_JSON_SCHEMA,
  continuationMessages,
  describeCatalog,
  parseCorrectionMessages,
  planningMessages,
  promptBytes,
  regenerationMessages,
  renderMessages,
  synthesisMessages,
  DATA_RULE,
  toolOutput,
  type PhaseResults,
  type PromptComponent,
  type SynthesisStep,
} from "./prompts.js";
export {
  DEFAULT_LLM_BASE_URL,
  DEFAULT_LLM_MODEL,
  LLM_VARIABLES,
  llmUnavailable,
  resolveLlmConfig,
  type LlmConfig,
  type LlmOptions,
  type ResolveLlmOptions,
} from "./config.js";
export { createLlmProvider, NO_USAGE } from "./provider.js";
export { DEFAULT_EMBEDDING_MODEL, MAX_EMBEDDING_INPUT_BYTES, MAX_EMBEDDING_INPUTS } from "./embeddings.js";
export { parseJsonAnswer, unfenceAnswer } from "./json-answer.js";
