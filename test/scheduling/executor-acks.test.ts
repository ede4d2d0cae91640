/**
 * The executor's acknowledgements through a Redis crash (kill -9 and restart, with AOF
 * `appendfsync always` so acknowledged writes survive, as production is told to run it): a run the
 * agent answers while Redis is down is acknowledged once Redis is back, so it is not delivered
 * again when its lease would have lapsed; the failed acknowledgement is counted in
 * `ack_errors_total` and the failed dequeues in `consume_errors{error_type=dequeue_failed}`.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createScheduledExecutor, createScheduledExtension, SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_TASK_TYPE } from "../../runtime/scheduling/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/index.js";
import { createLogger, initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { startRedisServer } from "../support/redis.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";
import { eventually, sleep } from "../support/wait.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";

const SPEC = agentSpec(agentManifest("acked-agent", { description: "answers while Redis is down", capabilities: {}, more: { scheduled: true } }));
const LEASE_MS = 3_000;

test("a run answered while Redis is down is acknowledged when it is back: delivered once; ack and dequeue errors counted", async () => {
  const receiver = await startOtlpReceiver();
  exportToReceiver(receiver.url);
  await initTelemetry({ serviceName: "executor-acks" });
  const redis = await startRedisServer({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
  const env = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: `a${randomBytes(4).toString("hex")}` };
  const store = createStore({ env, log: () => undefined, maxReconnectDelayMs: 100 }) as RedisStore;
  const registry = createRegistry({ store });
  let release: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (release = resolve));
  let started = 0;
  const extension = createScheduledExtension({
    handler: async () => {
      started += 1;
      await answered;
      return "done";
    },
  });
  const agent = await serveComponent(SPEC, { port: 0, registry, handleSignals: false, log: () => undefined, handlers: {}, extensions: [extension] });
  const log = createLogger({ component: "scheduled-executor", env: {}, write: () => undefined });
  const executor = createScheduledExecutor({ store, registry, workerCount: 1, maxRetries: 0, leaseMs: LEASE_MS, log });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  try {
    const id = `sch-${randomBytes(6).toString("hex")}:1767225600`;
    const input = { schedule_id: id.slice(0, id.indexOf(":")), target_agent: "acked-agent", instruction: "tick", input: {}, due_at: new Date().toISOString() };
    await backend.create({ task_id: id, type: SCHEDULED_TASK_TYPE, input, timeout_ms: 60_000 });
    await executor.start();
    await eventually("the run at the agent", () => started === 1);
    await redis.stop();
    release();
    // The answer arrives and its acknowledgement fails while Redis is down; down for longer than the
    // queue calls' own retries (3 × 100 ms), so the dequeues fail too.
    await sleep(1_000);
    await redis.start();
    // The test's own reads may meet the reconnection too: a failed read is "not yet".
    await eventually("the task completed", async () => (await backend.get(id).catch(() => undefined))?.status === "completed");
    await sleep(LEASE_MS + 500); // a lapsed lease would have delivered it again by now
    const task = await backend.get(id);
    assert.is(task?.status, "completed");
    assert.is(task?.deliveries, 1, "delivered once");
    assert.is(started, 1);
    const has = (metric: string, labels: Record<string, unknown>) =>
      receiver.points.some((p) => p.metric === metric && Object.entries(labels).every(([k, v]) => p.attributes[k] === v));
    await receiver.until(() => has("manifold.scheduled_executor.ack_errors_total", { module: "scheduled-executor" }), "ack_errors_total");
    await receiver.until(
      () => has("manifold.scheduled_executor.consume_errors", { module: "scheduled-executor", error_type: "dequeue_failed" }),
      "consume_errors{error_type=dequeue_failed}",
    );
  } finally {
    await executor.stop();
    await backend.close();
    await agent.close();
    await store.close();
    await redis.close();
    await shutdownTelemetry();
    await receiver.close();
  }
});

test.run();
