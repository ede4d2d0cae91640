/**
 * Episodic memory per agent domain: each run recorded as an episode, summarised, compacted into the
 * domain's activity digest and read back for planning; reflection passes turn episodes about one
 * entity into knowledge, sweep passes enforce the retention. See the README's "Episodic memory".
 */
export { createEpisodicMemory, DEFAULT_REFLECTION_AGE_MS, type EpisodicMemory, type EpisodicMemoryOptions } from "./episodic.js";
export { FULL_WINDOW, INCREMENTAL_MAX } from "./compaction.js";
export { MAX_REQUEST_ENTITIES, SECTION_TITLE } from "./read.js";
export { MAX_SUMMARIES_IN_FLIGHT } from "./record.js";
export { runReflectionPass, runSweepPass, type ReflectionResult } from "./reflection.js";
export {
  DEFAULT_EPISODIC_BUDGET_BYTES,
  DEFAULT_REFLECTION_INTERVAL_MS,
  EPISODES_MAX_ENV,
  EPISODIC_BUDGET_ENV,
  REFLECTION_INTERVAL_ENV,
  RETENTION_ENV,
  resolveEpisodicSettings,
  type EpisodicSettings,
} from "./settings.js";
export { WINDOW_SIZE } from "./window.js";
export * from "./store/index.js";
