/**
 * Memory as an agent feature: user memory (facts about each proven user, extracted after chat turns
 * and recalled into planning), episodic memory per agent domain, and the retrieval both rank with.
 * See README.md beside this file.
 */
export type { MemorySpec, RawMemory } from "./manifest.js";
export { AGENT_DOMAIN_ENV, MEMORY_ENABLED_ENV, resolveMemorySettings, type MemorySettings } from "./settings.js";
export {
  createFactStore,
  createMemoryFactStore,
  createRedisFactStore,
  DEFAULT_FACTS_TTL_MS,
  DEFAULT_MAX_FACTS,
  USER_MEMORY_MAX_FACTS_ENV,
  USER_MEMORY_TTL_ENV,
  type Fact,
  type FactChange,
  type FactSource,
  type FactStore,
  type FactStoreOptions,
  type FactSummary,
  type MemoryFactStoreOptions,
  type RedisFactStoreOptions,
} from "./user/store/index.js";
// The episode store, for readers outside the feature (the dashboard's Memory view).
export {
  createEpisodeStore,
  type ActivityDigest,
  type Episode,
  type EpisodeEvent,
  type EpisodeStore,
  type EpisodeStoreOptions,
  type KnowledgeFragment,
} from "./episodic/store/index.js";
