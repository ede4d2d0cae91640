/**
 * Scheduled runs as an agent feature: `scheduled: true` serves `POST /api/v1/scheduled`, answered by
 * the agent's typed `scheduled` handler.
 */
import type { AgentFeature } from "../feature/index.js";
import { normaliseScheduled, scheduledSchema } from "./manifest.js";
import { addScheduledPaths } from "./openapi.js";
import type { ScheduledHandler } from "./wire.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

/** The scheduled feature's part of an agent's `serve()` options. */
export interface ScheduledServeOptions {
  /** Answers each scheduled run. @defaultValue natural mode on the request's `instruction` (needs a language model) */
  readonly scheduled?: ScheduledHandler;
}

export const scheduledFeature: AgentFeature<ScheduledServeOptions> = {
  key: "scheduled",
  schema: scheduledSchema,
  routePrefixes: ["/api/v1"],
  normalise: normaliseScheduled,
  optionKeys: ["scheduled"],
  enabled: (agent) => agent.scheduled === true,
  openapi: addScheduledPaths,
  async build({ scheduled }, { orchestration, log, env }) {
    const { createScheduledExtension, DEFAULT_RUN_TIMEOUT_MS } = await import("./scheduled-route.js");
    const { createRunClaims } = await import("./run-claims.js");
    const { createStore } = await import("../store/index.js");
    const { durationFromEnv } = await import("../spec/index.js");
    // Runs are claimed where the agent's replicas meet (Redis when configured), so a redelivery to
    // any replica is dropped; a run's deadline is the agent's orchestration timeout.
    const claims = createRunClaims(createStore({ env }), { ownsStore: true });
    const runTimeoutMs = durationFromEnv(env, "MANIFOLD_ORCHESTRATION_TIMEOUT", DEFAULT_RUN_TIMEOUT_MS);
    return {
      extension: createScheduledExtension({ handler: scheduled, orchestrator: orchestration.orchestrator, log: log("scheduled"), claims, runTimeoutMs }),
    };
  },
};
