/**
 * The HITL feature's running part: the policy in force (the manifest's `hitl:` block and the
 * environment), the checkpoint store (Redis when configured, else this process's memory), the
 * orchestrator's interceptors (interceptors.ts), the `/hitl` routes and the expiry processor. An expired checkpoint whose
 * default action approves is resumed by the processor; one that rejects ends its run.
 */
import type { FeatureBuild, FeatureServices } from "../feature/index.js";
import { durationFromEnv } from "../spec/index.js";
import { systemClock } from "../util/index.js";
import { createCoordinator } from "./coordinator.js";
import { createExpiryProcessor, type ExpiryProcessor } from "./expiry.js";
import { resolveHitlPolicy } from "./policy.js";
import { addHitlRoutes } from "./routes.js";
import type { HitlServeOptions } from "./serve-options.js";
import { createCheckpointStore } from "./store/index.js";

export async function createHitlExtension({ hitl: options = {} }: HitlServeOptions, services: FeatureServices): Promise<FeatureBuild> {
  const { spec, agent, orchestration, env } = services;
  const log = services.log("hitl");
  const policy = resolveHitlPolicy(agent.hitl, env);
  const store = options.store ?? createCheckpointStore({ env });
  const clock = options.clock ?? Date.now;
  let address: string | undefined;
  const coordinator = createCoordinator({ policy, store, agentName: spec.name, agentUrl: () => address, orchestration, clock });
  if (policy.enabled) orchestration.orchestrator.use(...coordinator.interceptors);
  const running = new Set<AbortController>();
  const heartbeatMs = durationFromEnv(env, "MANIFOLD_CHAT_HEARTBEAT_INTERVAL", 15_000);
  let expiry: ExpiryProcessor | undefined;
  if (policy.enabled && options.expiry !== false) {
    expiry = createExpiryProcessor({
      store,
      // The given clock reads time (a test's fixed one); waits between passes stay real.
      clock: { ...systemClock, now: clock },
      ...(options.expiry?.intervalMs === undefined ? {} : { intervalMs: options.expiry.intervalMs }),
      // Auto-approved: the run goes on without a human, as a non-streaming resume would; only its own
      // agent can continue it (another agent's processor may have claimed it: followUps finds those).
      onExpired: async (checkpoint) => {
        if (checkpoint.status !== "expired_approved" || checkpoint.agent_name !== spec.name) return;
        await coordinator.resume(checkpoint.checkpoint_id, { requestMode: "non_streaming" });
      },
      followUps: async () => (await store.list({ status: "expired_approved", agent_name: spec.name, limit: 100 })).checkpoints,
      log: (message, error) => log.warn(message, { error }),
    });
  }
  return {
    extension: {
      name: "hitl",
      routes(add, { bodyLimit }) {
        addHitlRoutes(add, { store, coordinator, agentName: spec.name, bodyLimit, heartbeatMs, clock, running });
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
