/**
 * The skill registry: namespaced, versioned Agent Skills behind one port (types.ts) with memory and
 * Redis adapters and one contract suite (test/contract/skills.cases.ts).
 */
export {
  checkNamespace,
  checkSkillName,
  checkVersion,
  isResourcePath,
  MAX_DESCRIPTION_CHARS,
  MAX_INSTRUCTIONS_BYTES,
  MAX_LIST,
  MAX_NAMESPACES,
  MAX_RESOURCE_BYTES,
  MAX_RESOURCES,
  MAX_RESOURCES_TEXT_BYTES,
  MAX_SKILLS_PER_NAMESPACE,
  MAX_VERSIONS,
  newestFirst,
  SKILL_NAME,
  SKILL_VERSION,
  type SkillStoreLimits,
} from "./checks.js";
export { createSkillStore, type SkillStoreOptions } from "./create.js";
export { createMemorySkillStore, DEFAULT_MAX_BYTES, type MemorySkillStoreOptions } from "./memory-store.js";
export { createRedisSkillStore, type RedisSkillStoreOptions } from "./redis-store.js";
export { storeSpanName } from "./telemetry.js";
export type { SkillEvidence, SkillResource, SkillStore, SkillSummary, SkillVersion, SkillVersionInput } from "./types.js";
