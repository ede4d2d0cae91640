/**
 * Orchestration as an agent feature: `POST /orchestrate/<workflow>` for each served workflow and
 * `POST /orchestrate/custom`. Its orchestrator is a service every agent has (tasks and scheduled
 * runs call workflows through it), so `serveAgent` creates it and this feature serves its routes.
 */
import type { AgentFeature } from "../agent/index.js";
import type { OrchestrationOptions } from "./extension.js";
import { addOrchestrationPaths } from "./openapi.js";

/** The orchestration feature's part of an agent's `serve()` options. */
export interface OrchestrationServeOptions {
  /** Orchestration settings: base URLs or registry for the used components, hooks, concurrency, execution records. */
  readonly orchestration?: Omit<OrchestrationOptions, "components">;
}

export const orchestrationFeature: AgentFeature<OrchestrationServeOptions> = {
  key: "orchestration",
  routePrefixes: ["/orchestrate"],
  pending: [{ path: ["orchestration", "natural"], serves: "POST /orchestrate/natural" }],
  optionKeys: ["orchestration"],
  openapi: addOrchestrationPaths,
  build: async (_options, { orchestration }) => ({ extension: orchestration }),
};
