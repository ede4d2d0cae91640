/**
 * The feature list: every agent feature, in the order `serveAgent` builds them, their keys appear in
 * the manifest schema and the agent spec, and their paths in the OpenAPI document. Adding a feature
 * is its folder plus one entry here (and its option type in `AgentFeatureOptions` when it takes
 * `serve()` options). Gen and `serveManifest` pass this list to the manifest layer, which imports no feature.
 *
 * This module is importable on its own (gen reads it): it loads the feature descriptors only, where
 * the agent's index loads the whole serving runtime.
 */
import { a2aFeature, type A2aServeOptions } from "../a2a/feature.js";
import { chatFeature, type ChatServeOptions } from "../chat/feature.js";
import type { AgentFeature } from "../feature/index.js";
import { hitlFeature, type HitlServeOptions } from "../hitl/feature.js";
import { memoryFeature, type MemoryServeOptions } from "../memory/feature.js";
import { orchestrationFeature, type OrchestrationServeOptions } from "../orchestration/feature.js";
import { scheduledFeature, type ScheduledServeOptions } from "../scheduling/feature.js";
import { skillsFeature, type SkillsServeOptions } from "../skills/feature.js";
import type { AgentSpec, OpenApiAddition } from "../spec/index.js";
import { tasksFeature, type AgentTaskTypes, type TasksServeOptions } from "../tasks/feature.js";

// Each entry keeps its own option type; the list only needs the common shape.
export const AGENT_FEATURES: readonly AgentFeature<never>[] = [
  orchestrationFeature,
  tasksFeature,
  scheduledFeature,
  chatFeature,
  hitlFeature,
  skillsFeature,
  memoryFeature,
  a2aFeature,
];

/** What an agent's `serve()` takes beside the component options: each feature's own part. */
export type AgentFeatureOptions<T extends AgentTaskTypes> = OrchestrationServeOptions &
  TasksServeOptions<T> &
  ScheduledServeOptions &
  ChatServeOptions &
  HitlServeOptions &
  SkillsServeOptions &
  MemoryServeOptions &
  A2aServeOptions;

/** Every path prefix some agent feature owns: a capability endpoint of an agent may not take one. */
// What the manifest layer's featureRoutePrefixes computes, here without importing that layer (its validators
// and ajv): a served agent never loads the manifest layer.
export const AGENT_ROUTE_PREFIXES: readonly string[] = [...new Set(AGENT_FEATURES.flatMap((feature) => feature.routePrefixes))].sort();

/** The agent features' paths and schemas, in feature-list order: what gen emits and `/openapi.json` serves. */
export function agentOpenApi(agent: AgentSpec | undefined, features: readonly AgentFeature<never>[] = AGENT_FEATURES): OpenApiAddition[] {
  if (agent === undefined) return [];
  return features.flatMap((feature) => {
    const { openapi } = feature;
    return openapi === undefined ? [] : [(parts) => openapi(agent, parts)];
  });
}
