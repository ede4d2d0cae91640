/**
 * The feature list: every agent feature, in the order `serveAgent` builds them and their paths
 * appear in the OpenAPI document. Adding a feature is its folder plus one entry here (and its
 * option type in `AgentFeatureOptions` when it takes `serve()` options).
 *
 * This module is importable on its own (gen and the manifest layer read it): it loads the feature
 * descriptors only, about 10 ms, where the agent's index loads the whole serving runtime.
 */
import { chatFeature, type ChatServeOptions } from "../chat/feature.js";
import { hitlFeature, type HitlServeOptions } from "../hitl/feature.js";
import { orchestrationFeature, type OrchestrationServeOptions } from "../orchestration/feature.js";
import { scheduledFeature, type ScheduledServeOptions } from "../scheduling/feature.js";
import { tasksFeature, type AgentTaskTypes, type TasksServeOptions } from "../tasks/feature.js";
import type { AgentSpec, OpenApiAddition } from "../spec/index.js";
import type { AgentFeature } from "./feature.js";

// Each entry keeps its own option type; the list only needs the common shape.
export const AGENT_FEATURES: readonly AgentFeature<never>[] = [orchestrationFeature, tasksFeature, scheduledFeature, chatFeature, hitlFeature];

/** What an agent's `serve()` takes beside the component options: each feature's own part. */
export type AgentFeatureOptions<T extends AgentTaskTypes> = OrchestrationServeOptions &
  TasksServeOptions<T> &
  ScheduledServeOptions &
  ChatServeOptions &
  HitlServeOptions;

/** Every path prefix some agent feature owns: a capability endpoint of an agent may not take one. */
export const AGENT_ROUTE_PREFIXES: readonly string[] = [...new Set(AGENT_FEATURES.flatMap((feature) => feature.routePrefixes))].sort();

/** The agent features' paths and schemas, in feature-list order: what gen emits and `/openapi.json` serves. */
export function agentOpenApi(agent: AgentSpec | undefined): OpenApiAddition[] {
  if (agent === undefined) return [];
  return AGENT_FEATURES.flatMap((feature) => {
    const { openapi } = feature;
    return openapi === undefined ? [] : [(parts) => openapi(agent, parts)];
  });
}
