/**
 * The orchestration span events the spec lists and nothing emitted before (issue 32 audit):
 * `orchestrator.construction.rejected` (operation, reason=invalid_configuration) when an orchestrator
 * is built or extended with an invalid configuration, and `pipeline.short_circuit.decision` when a
 * pipeline interceptor short-circuits a run (pause, fail, replace), against a local OTLP receiver.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createOrchestrator, type Interceptor } from "../../runtime/orchestration/index.js";
import { getTelemetry, initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { startTools, type Tools } from "./support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tools: Tools;
}
const test = suite<Context>("orchestration span events", {} as Context);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "span-events" });
  context.tools = await startTools();
});
test.after(async ({ receiver, tools }) => {
  await tools.close();
  await shutdownTelemetry();
  await receiver.close();
});

/** Runs `fn` inside a root span named `name`, as a request's server span would. */
async function inSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const span = getTelemetry().startSpan(name, {})!;
  try {
    return await span.run(fn);
  } finally {
    span.end();
  }
}

test("an invalid configuration is rejected with orchestrator.construction.rejected, with or without an active span", async ({ receiver }) => {
  assert.throws(() => createOrchestrator({ interceptors: [{ name: "twice" }, { name: "twice" }] }), /two interceptors are named twice/);
  const orchestrator = createOrchestrator({ executionStore: false });
  await inSpan("test.startup", async () => {
    assert.throws(() => orchestrator.use({ name: "" }), /needs a name/);
    assert.throws(() => createOrchestrator({ hooks: [{ name: "bad", phase: "never" as never, run: () => undefined }] }), /phase must be/);
  });
  await receiver.until(() => receiver.spans.some((s) => s.name === "test.startup"), "the startup span");
  const standalone = receiver.spans.find((s) => s.events.some((e) => e.name === "orchestrator.construction.rejected") && s.name !== "test.startup");
  assert.ok(standalone, "with no active span, the rejection gets a span of its own");
  assert.equal(standalone!.events.find((e) => e.name === "orchestrator.construction.rejected")!.attributes, {
    operation: "create_orchestrator",
    reason: "invalid_configuration",
  });
  const startup = receiver.spans.find((s) => s.name === "test.startup")!;
  assert.equal(
    startup.events.filter((e) => e.name === "orchestrator.construction.rejected").map((e) => e.attributes),
    [
      { operation: "use", reason: "invalid_configuration" },
      { operation: "create_orchestrator", reason: "invalid_configuration" },
    ],
  );
  await orchestrator.close();
});

test("a pipeline interceptor that pauses, fails or replaces a run emits pipeline.short_circuit.decision", async ({ receiver, tools }) => {
  const answers: Record<string, Interceptor> = {
    pause: { name: "gate", afterPlan: () => ({ action: "pause", answer: { status: "interrupted" } }) },
    fail: { name: "guard", afterPlan: () => ({ action: "fail", error: new ManifoldError("FORBIDDEN", "not allowed") }) },
    replace: { name: "rewriter", afterPlan: ({ plan }) => ({ action: "replace", plan: { ...plan, steps: plan.steps.slice(0, 1) } }) },
    after: { name: "reviewer", afterExecution: () => ({ action: "pause", answer: { status: "review" } }) },
    quiet: { name: "watcher", afterPlan: () => ({ action: "continue" }), afterExecution: () => ({ action: "accept" }) },
  };
  const body = {
    steps: [
      { tool: "worker", capability: "add", params: { a: 1, b: 2 } },
      { tool: "worker", capability: "add", params: { a: 3, b: 4 } },
    ],
  };
  for (const [kind, interceptor] of Object.entries(answers)) {
    const orchestrator = createOrchestrator({ components: tools.specs, baseUrls: tools.baseUrls, interceptors: [interceptor], executionStore: false });
    await inSpan(`test.request.${kind}`, () => orchestrator.runCustom(body).catch(() => undefined));
    await orchestrator.close();
  }
  await receiver.until(() => Object.keys(answers).every((k) => receiver.spans.some((s) => s.name === `test.request.${k}`)), "every request span");
  const decisions = (kind: string) =>
    receiver.spans
      .find((s) => s.name === `test.request.${kind}`)!
      .events.filter((e) => e.name === "pipeline.short_circuit.decision")
      .map((e) => e.attributes);
  assert.equal(decisions("pause"), [{ interceptor: "gate", stage: "after_plan", action: "pause" }]);
  assert.equal(decisions("fail"), [{ interceptor: "guard", stage: "after_plan", action: "fail", error_code: "FORBIDDEN" }]);
  assert.equal(decisions("replace"), [{ interceptor: "rewriter", stage: "after_plan", action: "replace" }]);
  assert.equal(decisions("after"), [{ interceptor: "reviewer", stage: "after_execution", action: "pause" }]);
  assert.equal(decisions("quiet"), [], "continue and accept are no decision to report");
});

test.run();
