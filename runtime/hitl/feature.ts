/**
 * Human approval as an agent feature: the manifest's `hitl:` block (or `MANIFOLD_HITL_ENABLED=true`)
 * makes runs pause at checkpoints, served under `/hitl` (command, resume, the checkpoint list). The
 * extension decides at build time whether the policy is on; this module only describes the feature,
 * so reading the feature list never loads a checkpoint store.
 */
import type { AgentFeature } from "../agent/index.js";
import { addHitlPaths } from "./openapi.js";
import type { CheckpointStore } from "./store/index.js";

/** The HITL feature's part of an agent's `serve()` options. */
export interface HitlServeOptions {
  readonly hitl?: {
    /** Where checkpoints live. @defaultValue `createCheckpointStore`: Redis when configured, else in memory */
    readonly store?: CheckpointStore;
    /** The expiry processor that applies default actions; `false` runs none in this process. @defaultValue on */
    readonly expiry?: false | { readonly intervalMs?: number };
    /** For tests: the clock of decisions and expiry. @defaultValue Date.now */
    readonly clock?: () => number;
  };
}

export const hitlFeature: AgentFeature<HitlServeOptions> = {
  key: "hitl",
  routePrefixes: ["/hitl"],
  optionKeys: ["hitl"],
  // Always built: MANIFOLD_HITL_ENABLED can turn approval on for an agent without a `hitl:` block.
  enabled: () => true,
  openapi: addHitlPaths,
  async build(options, services) {
    const { createHitlExtension } = await import("./extension.js");
    return createHitlExtension(options, services);
  },
};
