/**
 * The HITL feature's running part: the policy in force (the manifest's `hitl:` block and the
 * environment), the checkpoint store (Redis when configured, else this process's memory), the
 * orchestrator's interceptors (interceptors.ts), the `/hitl` routes and the expiry processor. An expired
 * non-streaming checkpoint whose default action approves is resumed by the processor; a streaming one
 * waits for its client's resume; one that rejects ends its run.
 */
import type { FeatureBuild, FeatureServices } from "../feature/index.js";
import { durationFromEnv } from "../spec/index.js";
import { systemClock } from "../util/index.js";
import { createCoordinator } from "./coordinator.js";
import { createExpiryProcessor, type ExpiryProcessor } from "./expiry.js";
import { resolveHitlPolicy } from "./policy.js";
import { addHitlRoutes, approversOf } from "./routes.js";
import type { HitlServeOptions } from "./serve-options.js";
import { createCheckpointStore } from "./store/index.js";

export async function createHitlExtension({ hitl: options = {} }: HitlServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const { spec, agent, orchestration, env } = services;
  const log = services.log("hitl");
  const policy = resolveHitlPolicy(agent.hitl, env);
  const store = options.store ?? createCheckpointStore({ env });
  const clock = options.clock ?? Date.now;
  let address: string | undefined;
  const coordinator = createCoordinator({
    policy,
    store,
    agentName: spec.name,
    agentUrl: () => address,
    orchestration,
    clock,
    log: (message, error) => log.warn(message, { error }),
  });
  const running = new Set<AbortController>();
  const heartbeatMs = durationFromEnv(env, "MANIFOLD_CHAT_HEARTBEAT_INTERVAL", 15_000);
  let expiry: ExpiryProcessor | undefined;
  if (policy.enabled && options.expiry !== false) {
    expiry = createExpiryProcessor({
      store,
      // The given clock reads time (a test's fixed one); waits between passes stay real.
      clock: { ...systemClock, now: clock },
      ...(options.expiry?.intervalMs === undefined ? {} : { intervalMs: options.expiry.intervalMs }),
      // Auto-approved: a non-streaming run goes on without a human (its request answered 202 long ago,
      // nobody else is waiting to resume it); a streaming one is its connected client's to resume (the
      // spec: only the connected client resolves it), so the processor leaves it `expired_approved`.
      // Only its own agent can continue a run (another agent's processor may have claimed it: followUps).
      onExpired: async (checkpoint) => {
        if (checkpoint.status !== "expired_approved" || checkpoint.agent_name !== spec.name || checkpoint.request_mode === "streaming") return;
        // As its requester's, gated like a route's request (the coordinator's asRequester).
        await coordinator.resume(checkpoint.checkpoint_id, { requestMode: "non_streaming" });
      },
      followUps: async () =>
        (await store.list({ status: "expired_approved", agent_name: spec.name, limit: 100 })).checkpoints.filter((c) => c.request_mode !== "streaming"),
      log: (message, error) => log.warn(message, { error }),
    });
  }
  return {
    extension: {
      name: "hitl",
      // Every request the agent's routes serve (chat, scheduled runs, …) starts gated, not only a run's steps (gate.ts).
      gated: policy.enabled ? policy.sensitiveCapabilities : [],
      routes(add, { bodyLimit }) {
        addHitlRoutes(add, { store, coordinator, agentName: spec.name, bodyLimit, heartbeatMs, clock, running, approvers: approversOf(env) });
      },
      start(context) {
        address = context?.url;
        expiry?.start();
      },
      async stop() {
        await expiry?.stop();
        for (const controller of running) controller.abort();
        if (options.store === undefined) await store.close();
      },
    },
  };
}
