/**
 * Human approval as an agent feature: the manifest's `hitl:` block (or `MANIFOLD_HITL_ENABLED=true`)
 * makes runs pause at checkpoints, served under `/hitl` (command, resume, the checkpoint list). The
 * extension decides at build time whether the policy is on; this module only describes the feature,
 * so reading the feature list never loads a checkpoint store.
 */
import type { AgentFeature } from "../feature/index.js";
import { checkHitl, hitlSchema, linkHitl, normaliseHitl } from "./manifest.js";
import { addHitlPaths } from "./openapi.js";
import type { HitlServeOptions } from "./serve-options.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

export type { HitlServeOptions } from "./serve-options.js";

export const hitlFeature: AgentFeature<HitlServeOptions> = {
  key: "hitl",
  schema: hitlSchema,
  routePrefixes: ["/hitl"],
  normalise: normaliseHitl,
  check: checkHitl,
  link: linkHitl,
  optionKeys: ["hitl"],
  // Always built: MANIFOLD_HITL_ENABLED can turn approval on for an agent without a `hitl:` block.
  enabled: () => true,
  openapi: addHitlPaths,
  async build(options, services) {
    const { createHitlExtension } = await import("./extension.js");
    return createHitlExtension(options, services);
  },
};
