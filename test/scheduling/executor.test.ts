/**
 * The executor in one process against a local OTLP receiver: a schedule made through the tool's
 * HTTP reaches a real agent; the executor's `task.process` span starts a trace of its own linked to
 * the scheduler's fire span, and the agent's server span continues the executor's trace; metrics
 * carry `module=scheduled-executor` and the spec's labels, logs the spec's `operation` values; no
 * more than `workerCount` dispatches are ever in flight.
 */
import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { defineAgent, type ComponentSpec } from "../../runtime/codegen/v1/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { serveScheduler, type RunningScheduler } from "../../runtime/scheduling/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { createLogger, initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { eventually, sleep } from "../support/wait.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";

const spec = (name: string): ComponentSpec => ({
  kind: "agent",
  name,
  description: "counts scheduled runs",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [], orchestration: { custom: false, workflows: [], endpoints: [] }, tasks: [], scheduled: true },
});

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  store: Store;
  scheduler: RunningScheduler;
  lines: Record<string, unknown>[];
  agent: { close(): Promise<void> };
  flaky: { close(): Promise<void> };
  inFlight: { now: number; max: number; runs: number };
  failures: number;
}
const test = suite<Context>("scheduled executor", {} as Context);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "executor-traced" });
  context.store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `x${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const registry = createRegistry({ store: context.store });
  context.inFlight = { now: 0, max: 0, runs: 0 };
  const quiet = { port: 0, registry, handleSignals: false, log: () => undefined, handlers: {} } as const;
  context.agent = await defineAgent<{}, {}>(spec("clock-agent"), {}).serve({
    ...quiet,
    scheduled: async () => {
      const counts = context.inFlight;
      counts.now += 1;
      counts.max = Math.max(counts.max, counts.now);
      await sleep(20);
      counts.now -= 1;
      counts.runs += 1;
      return "ok";
    },
  });
  context.failures = 0;
  context.flaky = await defineAgent<{}, {}>(spec("flaky-agent"), {}).serve({
    ...quiet,
    scheduled: () => {
      context.failures += 1;
      throw new Error("down");
    },
  });
  context.lines = [];
  const log = createLogger({ component: "scheduled-executor", level: "debug", env: {}, write: (line) => context.lines.push(JSON.parse(line)) });
  context.scheduler = await serveScheduler({
    port: 0,
    store: context.store,
    registry,
    handleSignals: false,
    log: () => undefined,
    // The test schedules as a trusted gateway would (X-Manifold-Agent-Name); agent tokens: test/trust/identity-ownership.test.ts.
    auth: { required: false, trustIdentityHeaders: true },
    // One agent may take every place here (the default share is half): this suite checks the pool's own bound.
    executor: { workerCount: 3, perAgentLimit: 3, maxRetries: 1, retryBaseDelayMs: 10, retryMaxDelayMs: 10, log },
  });
});

test.after(async ({ receiver, scheduler, agent, flaky, store }) => {
  await scheduler.close();
  await agent.close();
  await flaky.close();
  await store.close();
  await shutdownTelemetry();
  await receiver.close();
});

async function schedule(scheduler: RunningScheduler, agent: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${scheduler.url}/api/capabilities/schedule_task`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-manifold-agent-name": agent },
    body: JSON.stringify(body),
  });
  assert.is(response.status, 200);
  return ((await response.json()) as { schedule_id: string }).schedule_id;
}

test("the fire span is linked, not a parent; the agent continues the executor's trace", async ({ receiver, scheduler }) => {
  const id = await schedule(scheduler, "clock-agent", { delay: "200ms", instruction: "trace me" });
  const spans = receiver.spans;
  await receiver.until(() => spans.some((s) => s.name === "HTTP POST /api/v1/scheduled"), "the agent's server span");
  const fire = spans.find((s) => s.name === "scheduler.fire" && s.attributes["manifold.schedule_id"] === id)!;
  assert.ok(fire, "the scheduler's fire span");
  // task.process ends once the run's outcome is written, after the agent has answered: wait for it
  // too (on a busy machine it is exported well after the agent's span).
  const linked = () => spans.find((s) => s.name === "task.process" && s.links.some((l) => l.spanId === fire.spanId));
  await receiver.until(() => linked() !== undefined, "task.process linked to the fire span");
  const process_ = linked()!;
  assert.is.not(process_.traceId, fire.traceId, "a trace of its own, not a child");
  assert.is(process_.parentSpanId, undefined);
  const server = spans.find((s) => s.name === "HTTP POST /api/v1/scheduled" && s.traceId === process_.traceId);
  assert.ok(server, "the agent's span is in the executor's trace");
});

test("at most workerCount dispatches in flight", async ({ scheduler, inFlight }) => {
  const before = inFlight.runs;
  await Promise.all(Array.from({ length: 12 }, () => schedule(scheduler, "clock-agent", { delay: "100ms", instruction: "load" })));
  await eventually("all 12 runs at the agent", () => inFlight.runs >= before + 12);
  assert.is(inFlight.runs, before + 12);
  assert.is(inFlight.max, 3);
});

test("metrics carry module=scheduled-executor and the spec's labels; logs the spec's operations", async (context) => {
  const { receiver, scheduler, lines } = context;
  await schedule(scheduler, "flaky-agent", { delay: "100ms", instruction: "fail" });
  const points = receiver.points;
  const has = (metric: string, labels: Record<string, unknown>) =>
    points.some((p) => p.metric === metric && Object.entries(labels).every(([k, v]) => p.attributes[k] === v));
  await receiver.until(() => has("manifold.scheduled_executor.dlq_writes_total", { status: "success" }), "a dead letter's metric");
  const module = { module: "scheduled-executor" };
  for (const [metric, labels] of [
    ["manifold.scheduled_executor.tasks_received", { target_agent: "flaky-agent" }],
    ["manifold.scheduled_executor.tasks_dispatched", { target_agent: "clock-agent", status: "success" }],
    ["manifold.scheduled_executor.tasks_dispatched", { target_agent: "flaky-agent", status: "error" }],
    ["manifold.scheduled_executor.tasks_dispatched", { target_agent: "flaky-agent", status: "dead_letter" }],
    ["manifold.scheduled_executor.dispatch_duration_ms", { target_agent: "clock-agent", status: "success" }],
    ["manifold.scheduled_executor.retry_attempts", { target_agent: "flaky-agent", attempt: 1 }],
    ["manifold.scheduled_executor.catalog_refresh_total", { status: "success", trigger: "cache_miss" }],
    ["manifold.scheduled_executor.catalog_agents_known", {}],
    ["manifold.scheduled_executor.tasks_handled_total", { status: "success" }],
    ["manifold.scheduled_executor.tasks_handled_total", { status: "error" }],
    ["manifold.scheduled_executor.tasks_handled_duration_ms", { status: "success" }],
  ] as const) {
    await receiver.until(() => has(metric, { ...module, ...labels }), `${metric} ${JSON.stringify(labels)}`);
  }
  assert.ok(points.filter((p) => p.metric.startsWith("manifold.scheduled_executor.")).every((p) => p.attributes["module"] === "scheduled-executor"));
  const operations = new Set(lines.map((l) => l["operation"]));
  for (const operation of ["executor_start", "executor_consume", "executor_dispatch"]) assert.ok(operations.has(operation), operation);
  const letters = await scheduler.executor!.deadLetters.list();
  assert.is(letters.at(-1)?.reason, "max_retries_exhausted");
  assert.is(letters.at(-1)?.attempts, 2);
  assert.is(context.failures, 2, "the first try and one retry reached the agent");
});

test.run();
