/**
 * The episode store: one agent domain's episodes, activity digest and knowledge, behind one port with
 * memory and Redis adapters and one contract suite (test/contract/episodes.cases.ts).
 */
export { createEpisodeStore, type EpisodeStoreOptions } from "./create.js";
export { createMemoryEpisodeStore, type MemoryEpisodeStoreOptions } from "./memory-store.js";
export { createRedisEpisodeStore, type RedisEpisodeStoreOptions } from "./redis-store.js";
export {
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_MAX_EPISODES,
  DEFAULT_RETENTION_MS,
  MAX_CLAIM_LEASE_MS,
  MAX_CLAIM_LIMIT,
  MAX_DIGEST_BYTES,
  MAX_ENTITIES,
  MAX_ENTITY_BYTES,
  MAX_EVENT_TEXT_BYTES,
  MAX_EVENTS,
  MAX_FRAGMENT_BYTES,
  MAX_FRAGMENTS,
  MAX_KNOWLEDGE_LIMIT,
  MAX_READ_LIMIT,
  MAX_SUMMARY_BYTES,
  MAX_SWEEP_LIMIT,
  newRecordId,
} from "./records.js";
export type { ActivityDigest, Episode, EpisodeEvent, EpisodeStore, KnowledgeFragment } from "./types.js";
