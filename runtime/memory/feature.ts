/**
 * Memory as an agent feature: `memory: true` (or `MANIFOLD_MEMORY_ENABLED=true`) makes the agent
 * remember its proven users (facts extracted after chat turns, recalled into planning, listed and
 * deleted under `/memory/facts`) and its domain's past runs (episodes read back for planning). Which
 * memories are on is decided at build time; the memories themselves load on first use (lazy.ts).
 */
import type { AgentFeature } from "../feature/index.js";
import { memorySchema, normaliseMemory } from "./manifest.js";
import { addMemoryPaths } from "./openapi.js";
import type { MemoryServeOptions } from "./serve-options.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

export type { MemoryServeOptions } from "./serve-options.js";

export const memoryFeature: AgentFeature<MemoryServeOptions> = {
  key: "memory",
  schema: memorySchema,
  routePrefixes: ["/memory"],
  normalise: normaliseMemory,
  optionKeys: ["memory"],
  // Always built: MANIFOLD_MEMORY_ENABLED can turn memory on for an agent without a `memory:` key.
  enabled: () => true,
  openapi: addMemoryPaths,
  async build(options, services) {
    const { buildMemory } = await import("./lazy.js");
    return buildMemory(options, services);
  },
};
