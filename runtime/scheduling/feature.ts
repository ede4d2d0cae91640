/**
 * Scheduled runs as an agent feature: `scheduled: true` serves `POST /api/v1/scheduled`, answered by
 * the agent's typed `scheduled` handler.
 */
import type { AgentFeature } from "../feature/index.js";
import { checkScheduled, normaliseScheduled, scheduledModuleNames, scheduledSchema } from "./manifest.js";
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
  check: checkScheduled,
  moduleNames: scheduledModuleNames,
  optionKeys: ["scheduled"],
  enabled: (agent) => agent.scheduled === true,
  openapi: addScheduledPaths,
  async build({ scheduled }, { orchestration, log, env, agent }) {
    const { createScheduledExtension } = await import("./scheduled-route.js");
    const { createRunClaims } = await import("./run-claims.js");
    const { createStore } = await import("../store/index.js");
    const { dispatchLimitOf, dispatchTimeoutWarning, runLimitOf } = await import("./settings.js");
    const scheduledLog = log("scheduled");
    // A run's deadline is the agent's orchestration timeout; the executor (the scheduler's process)
    // must wait at least that long for the answer. Checked before the store is opened: a bad value fails start-up.
    const run = runLimitOf(env);
    const shortDispatch = dispatchTimeoutWarning(dispatchLimitOf(env), run);
    if (shortDispatch !== undefined) scheduledLog.warn(shortDispatch, { operation: "scheduled_start" });
    // Runs are claimed where the agent's replicas meet (Redis when configured), so a redelivery to
    // any replica is dropped.
    const claims = createRunClaims(createStore({ env }), { ownsStore: true });
    return {
      extension: createScheduledExtension({
        handler: scheduled,
        orchestrator: orchestration.orchestrator,
        log: scheduledLog,
        claims,
        runTimeoutMs: run.ms,
        ...(agent.scheduledInput && { input: agent.scheduledInput }),
      }),
    };
  },
};
