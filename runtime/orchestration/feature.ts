/**
 * Orchestration as an agent feature: `POST /orchestrate/<workflow>` for each served workflow,
 * `POST /orchestrate/custom` and `POST /orchestrate/natural`. Its orchestrator is a service every agent has (tasks and scheduled
 * runs call workflows through it), so `serveAgent` creates it, offers it to the other features as
 * `services.orchestration`, and this feature serves its routes.
 */
import type { AgentFeature } from "../feature/index.js";
import type { LlmOptions, LlmProvider } from "../llm/index.js";
import type { OrchestrationExtension, OrchestrationOptions } from "./extension.js";
import { linkOrchestration, normaliseOrchestration, orchestrationSchema, servedWorkflows } from "./manifest.js";
import { addOrchestrationPaths } from "./openapi.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

declare module "../feature/index.js" {
  interface FeatureServices {
    /** The agent's orchestrator: runs its workflows by name, for tasks, scheduled runs and chat. */
    readonly orchestration: OrchestrationExtension;
  }
}

/** The orchestration feature's part of an agent's `serve()` options. */
export interface OrchestrationServeOptions {
  /** Orchestration settings: base URLs or registry for the used components, hooks, concurrency, execution records. */
  readonly orchestration?: Omit<OrchestrationOptions, "components">;
  /**
   * The language model of natural mode and `ai_synthesis`: endpoint settings, a provider, or `false`
   * for none. @defaultValue `MANIFOLD_LLM_*`, else `OPENAI_BASE_URL` / `OPENAI_API_KEY`, with the manifest's model
   */
  readonly llm?: LlmOptions | LlmProvider | false;
}

export const orchestrationFeature: AgentFeature<OrchestrationServeOptions> = {
  key: "orchestration",
  schema: orchestrationSchema,
  routePrefixes: ["/orchestrate"],
  normalise: normaliseOrchestration,
  link: linkOrchestration,
  workflows: servedWorkflows,
  optionKeys: ["orchestration", "llm"],
  openapi: addOrchestrationPaths,
  build: async (_options, { orchestration }) => ({ extension: orchestration }),
};
