/**
 * Orchestration spans and metrics against a local OTLP receiver: the run span under the request's
 * server span, a step span per step with the step's client call under it, a span per hook, and
 * metrics without id-valued labels.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { initTelemetry, isIdLabel, looksLikeId, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { agentSpec, serveAgent, startTools, type Tools } from "./support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tools: Tools;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("orchestration telemetry", {} as Context);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "orchestration-traced" });
  context.tools = await startTools();
  context.agent = await serveAgent(agentSpec("traced-agent", { custom: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    hooks: [
      { name: "audit", phase: "before_planning", run: () => undefined },
      {
        name: "flaky",
        phase: "after_execution",
        run: () => {
          throw new ManifoldError("UNAVAILABLE", "the audit sink is down");
        },
      },
    ],
  });
});
test.after(async ({ receiver, tools, agent }) => {
  await agent.running.close();
  await tools.close();
  await shutdownTelemetry();
  await receiver.close();
});

test("run → step → client call → tool, and the hook span, in one trace", async ({ receiver, agent }) => {
  const { body } = await agent.post("/orchestrate/custom", {
    steps: [
      { tool: "worker", capability: "add", params: { a: 1, b: 2 } },
      { tool: "worker", capability: "fail" },
    ],
  });
  const planId = String(body["plan_id"]);
  await receiver.until(
    () =>
      receiver.spans.filter((s) => s.name === "orchestration.step" && s.attributes["manifold.plan_id"] === planId).length === 2 &&
      receiver.spans.some((s) => s.name === "orchestration.run" && s.attributes["manifold.plan_id"] === planId),
    "run and step spans",
  );
  const run = receiver.spans.find((s) => s.name === "orchestration.run" && s.attributes["manifold.plan_id"] === planId)!;
  const server = receiver.spans.find((s) => s.spanId === run.parentSpanId);
  assert.is(server?.name, "HTTP POST /orchestrate/custom", "the run is part of the request's trace");
  assert.is(run.attributes["manifold.orchestration.mode"], "custom");
  const steps = receiver.spans.filter((s) => s.name === "orchestration.step" && s.parentSpanId === run.spanId);
  assert.equal(steps.map((s) => s.attributes["manifold.step_id"]).sort(), ["step-1", "step-2"]);
  const failed = steps.find((s) => s.attributes["manifold.step_id"] === "step-2")!;
  assert.is(failed.status, 2, "the failed step's span is an error");
  assert.is(failed.attributes["manifold.error.code"], "HANDLER_ERROR");
  await receiver.until(() => steps.every((step) => receiver.spans.some((s) => s.kind === 3 && s.parentSpanId === step.spanId)), "client spans under the steps");
  const client = receiver.spans.find((s) => s.kind === 3 && s.parentSpanId === steps[0]!.spanId)!;
  await receiver.until(() => receiver.spans.some((s) => s.kind === 2 && s.parentSpanId === client.spanId), "the tool's server span");
  const hook = receiver.spans.find((s) => s.name === "pipeline.hook.before_planning.audit" && s.traceId === run.traceId);
  assert.ok(hook, "a span per hook");
  assert.is(hook!.parentSpanId, server!.spanId);
  assert.equal(
    [hook!.attributes["pipeline.hook.failure_policy"], hook!.attributes["pipeline.hook.action"], hook!.attributes["pipeline.hook.reason"]],
    ["fail_open", "continue", undefined],
  );
  await receiver.until(
    () => receiver.spans.some((s) => s.name === "pipeline.hook.after_execution.flaky" && s.traceId === run.traceId),
    "the failing hook's span",
  );
  const flaky = receiver.spans.find((s) => s.name === "pipeline.hook.after_execution.flaky" && s.traceId === run.traceId)!;
  assert.equal(
    [flaky.attributes["pipeline.hook.failure_policy"], flaky.attributes["pipeline.hook.action"], flaky.attributes["pipeline.hook.reason"]],
    ["fail_open", "continue", "UNAVAILABLE"],
  );
});

test("orchestration metrics carry mode, status and outcome labels, never an id", async ({ receiver }) => {
  await receiver.until(
    () =>
      ["manifold.orchestration.runs", "manifold.orchestration.run.duration", "manifold.orchestration.step.duration"].every((m) =>
        receiver.points.some((p) => p.metric === m),
      ),
    "orchestration metrics",
  );
  const runs = receiver.points.filter((p) => p.metric === "manifold.orchestration.runs");
  assert.ok(runs.some((p) => p.attributes["manifold.orchestration.mode"] === "custom" && p.attributes["manifold.orchestration.status"] === "completed"));
  for (const point of receiver.points.filter((p) => p.metric.startsWith("manifold.orchestration."))) {
    for (const [name, value] of Object.entries(point.attributes)) {
      assert.not.ok(isIdLabel(name), `${point.metric}: ${name}`);
      assert.not.ok(looksLikeId(value as string), `${point.metric}: ${name}=${String(value)}`);
    }
  }
});

test.run();
