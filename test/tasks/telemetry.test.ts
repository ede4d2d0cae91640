/**
 * Task telemetry in one process against a local OTLP receiver: `task.process` is the root of its own
 * trace, linked to the submitting request's span; its events; the handler runs inside it; the task
 * metrics carry the type and status, never an id.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { RunningComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createMemoryTaskBackend, createWorkerPool, type TaskBackend } from "../../runtime/tasks/index.js";
import { getTelemetry, initTelemetry, isIdLabel, looksLikeId, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { json } from "../runtime/support.js";
import { startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { eventually } from "../support/wait.js";
import { post, serveAgent, silentLogger, view } from "./support.js";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

interface Context {
  receiver?: Awaited<ReturnType<typeof startOtlpReceiver>>;
  running?: RunningComponent;
  backend: TaskBackend;
  handlerTraceIds: string[];
}
const test = suite<Context>("task telemetry", { backend: createMemoryTaskBackend(), handlerTraceIds: [] });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: context.receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
    APP_ENV: "development",
    OTEL_TRACES_SAMPLER: "",
  });
  await initTelemetry({ serviceName: "errand-agent" });
  context.running = await serveAgent({
    backend: context.backend,
    runWorkflow: async () => ({}),
    log: silentLogger(),
    handlers: {
      work: async (input: { fail?: boolean }, ctx) => {
        context.handlerTraceIds.push(getTelemetry().currentIds()?.traceId ?? "none");
        await ctx.progress({ current_step: 1, total_steps: 1, percentage: 100 });
        if (input.fail === true) throw new ManifoldError("CONFLICT", "refused");
        return "ok";
      },
      echo: () => ({ text: "" }),
      slowJob: () => "",
    },
  });
});
test.after(async ({ receiver, running, backend }) => {
  await running?.close();
  await backend.close();
  await shutdownTelemetry();
  await receiver?.close();
});

test("task.process: a root span linked to the submitting request's span, with started/progress/completed events; the handler runs in it", async ({
  receiver,
  running,
  handlerTraceIds,
}) => {
  const response = await post(`${running!.url}/api/v1/tasks`, { type: "work", input: {} }, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
  const id = (json(response) as { task_id: string }).task_id;
  await eventually("completed", async () => {
    const v = await view(running!.url, id);
    return v.status === "completed" ? v : undefined;
  });
  await receiver!.until(() => receiver!.spans.some((s) => s.name === "task.process" && s.attributes["manifold.task.id"] === id), "task.process span");
  const submit = receiver!.spans.find((s) => s.traceId === CALLER_TRACE && s.name === "HTTP POST /api/v1/tasks")!;
  assert.ok(submit, "the submit request's server span, in the caller's trace");
  const processed = receiver!.spans.find((s) => s.name === "task.process" && s.attributes["manifold.task.id"] === id)!;
  assert.is.not(processed.traceId, CALLER_TRACE, "a trace of its own, not parented by the request");
  assert.is(processed.parentSpanId, undefined);
  assert.equal(processed.links, [{ traceId: CALLER_TRACE, spanId: submit.spanId }], "linked to the submitting span");
  assert.equal(
    processed.events.map((e) => e.name),
    ["task.started", "task.progress", "task.completed"],
  );
  assert.is(processed.attributes["manifold.task.type"], "work");
  assert.is(processed.attributes["manifold.task.attempt"], 1);
  assert.equal(handlerTraceIds, [processed.traceId], "the handler's outbound calls and logs belong to the task's trace");
});

test("a failed task's span ends with task.failed and the error code", async ({ receiver, running }) => {
  const response = await post(`${running!.url}/api/v1/tasks`, { type: "work", input: { fail: true } });
  const id = (json(response) as { task_id: string }).task_id;
  await eventually("failed", async () => {
    const v = await view(running!.url, id);
    return v.status === "failed" ? v : undefined;
  });
  await receiver!.until(() => receiver!.spans.some((s) => s.name === "task.process" && s.attributes["manifold.task.id"] === id), "span");
  const processed = receiver!.spans.find((s) => s.name === "task.process" && s.attributes["manifold.task.id"] === id)!;
  assert.equal(
    processed.events.map((e) => e.name),
    ["task.started", "task.progress", "task.failed"],
  );
  assert.is(processed.attributes["manifold.error.code"], "HANDLER_ERROR");
  assert.is(processed.status, 2);
  // No traceparent came with this submit: the API's own server span started the trace, and is the link.
  const [link] = processed.links;
  const submit = receiver!.spans.find((s) => s.spanId === link?.spanId);
  assert.is(submit?.name, "HTTP POST /api/v1/tasks");
  assert.is(submit?.traceId, link?.traceId);
});

test("task metrics: submitted, started, completed, duration, queue wait, workers active, queue depth, worker started and stopped; the spec's labels task_type and status, never an id", async ({
  receiver,
  backend,
}) => {
  // A second pool, started and stopped: the worker started / stopped metrics.
  const extra = createWorkerPool({ backend, handlers: {}, workerCount: 1, log: silentLogger(), env: {} });
  await extra.stop(100);
  const wanted = [
    "manifold.tasks.submitted",
    "manifold.tasks.started",
    "manifold.tasks.completed",
    "manifold.tasks.duration",
    "manifold.tasks.queue_wait_ms",
    "manifold.tasks.workers.active",
    "manifold.tasks.queue_depth",
    "manifold.tasks.worker.started",
    "manifold.tasks.worker.stopped",
  ];
  await receiver!.until(() => wanted.every((m) => receiver!.points.some((p) => p.metric === m)), "every task metric", 20_000);
  const completed = receiver!.points
    .filter((p) => p.metric === "manifold.tasks.completed")
    .map((p) => `${String(p.attributes["task_type"])}:${String(p.attributes["status"])}`);
  assert.ok(completed.includes("work:completed") && completed.includes("work:failed"), completed.join(", "));
  for (const point of receiver!.points.filter((p) => p.metric.startsWith("manifold.tasks."))) {
    for (const [name, value] of Object.entries(point.attributes)) {
      assert.not.ok(isIdLabel(name), `${point.metric} label ${name}`);
      assert.not.ok(looksLikeId(value as string), `${point.metric} ${name}=${String(value)}`);
    }
  }
});

test.run();
