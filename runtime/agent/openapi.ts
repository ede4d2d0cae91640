import type { OpenApiAddition } from "../spec/index.js";
import type { AgentSpec } from "../spec/index.js";
import { AGENT_FEATURES } from "./features.js";

/** The agent features' paths and schemas, in feature-list order: what gen emits and `/openapi.json` serves. */
export function agentOpenApi(agent: AgentSpec | undefined): OpenApiAddition[] {
  if (agent === undefined) return [];
  return AGENT_FEATURES.flatMap((feature) => {
    const { openapi } = feature;
    return openapi === undefined ? [] : [(parts) => openapi(agent, parts)];
  });
}
