/**
 * The DAG executor against real tools on loopback: dependency-driven scheduling, the concurrency
 * limit, timeouts, retry with backoff, on_error fail / continue, interruption.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createCaller, keepAliveTransport } from "../../runtime/outbound/index.js";
import {
  createBackoff,
  createExecutor,
  createResolver,
  type ExecutorOptions,
  type Plan,
  type PlanStep,
  type StepInterceptor,
} from "../../runtime/orchestration/index.js";
import { eventually, within } from "../support/wait.js";
import { rejection, startTools, type Call, type Tools } from "./support.js";

const test = suite<{ tools: Tools }>("executor", { tools: undefined as unknown as Tools });

test.before(async (context) => {
  context.tools = await startTools();
});
test.after(async ({ tools }) => tools.close());
test.before.each(({ tools }) => {
  tools.calls.length = 0;
  tools.inFlight.max = 0;
});

function step(id: string, capability: string, parameters: Record<string, unknown>, more: Partial<PlanStep> = {}): PlanStep {
  return { step_id: id, agent_name: "worker", depends_on: [], metadata: { capability, parameters }, on_error: "fail", ...more };
}

let seq = 0;
function plan(steps: PlanStep[]): Plan {
  seq += 1;
  return { plan_id: `workflow-${seq}`, original_request: "{}", mode: "workflow", steps };
}

function executor(tools: Tools, options: Partial<ExecutorOptions> = {}) {
  return createExecutor({
    resolve: createResolver({ components: tools.specs, baseUrls: tools.baseUrls, registry: false }),
    caller: createCaller({ env: {}, transport: keepAliveTransport }),
    ...options,
  });
}

/** Whether the tool has seen the call tagged `tag` and seen it aborted (it may arrive after the run ended). */
const abortedAtTool = (tools: Tools, tag: string): boolean => tools.calls.find((c) => c.input["tag"] === tag)?.aborted === true;

const callOf = (tools: Tools, tag: string) => {
  const call = tools.calls.find((c) => c.input["tag"] === tag);
  assert.ok(call, `no call tagged ${tag}`);
  return call;
};

test("a chain beside a slow branch runs without waiting for it (not in waves)", async ({ tools }) => {
  // A → B and A → C → E, then D waits for B and E. B sleeps until E has ended (20 s at most): in waves,
  // E would only start once B is done (wave 2 = {B, C}), so B would sleep its whole cap; dependency-
  // driven, C and E run while B sleeps and E's end releases B, however slow the machine.
  const result = await within(
    "the diamond",
    executor(tools).execute(
      plan([
        step("a", "sleep", { ms: 20, tag: "a" }),
        step("b", "sleep", { ms: 20_000, tag: "b", until_tag: "e" }, { depends_on: ["a"] }),
        step("c", "sleep", { ms: 50, tag: "c" }, { depends_on: ["a"] }),
        step("e", "sleep", { ms: 50, tag: "e" }, { depends_on: ["c"] }),
        step("d", "sleep", { ms: 20, tag: "d" }, { depends_on: ["b", "e"] }),
      ]),
    ),
  );
  assert.is(result.status, "completed");
  assert.is((result.steps[1]?.output as { released_by?: string } | undefined)?.released_by, "tag", "E's end released B");
  const [a, b, c, e, d] = ["a", "b", "c", "e", "d"].map((tag) => callOf(tools, tag)) as [Call, Call, Call, Call, Call];
  // The order of starts and ends, as the tool saw them: E ran inside B's sleep, which waves forbid.
  assert.ok(b.start >= a.end! && c.start >= a.end!, "B and C waited for A");
  assert.ok(e.start >= c.end!, "E waited for C");
  assert.ok(e.start < b.end!, "E started while B was still sleeping");
  assert.ok(e.end! <= b.end!, "E finished while B was still sleeping");
  assert.ok(d.start >= b.end! && d.start >= e.end!, "D waited for B and E");
  assert.equal(
    result.steps.map((s) => s.step_id),
    ["a", "b", "c", "e", "d"],
    "results in plan order",
  );
  for (const s of result.steps) {
    assert.is(s.attempts, 1);
    assert.type(s.started_at, "string");
  }
});

test("a step starts the moment its own dependency finishes", async ({ tools }) => {
  const result = await executor(tools).execute(
    plan([
      step("fast", "sleep", { ms: 10, tag: "fast" }),
      step("slow", "sleep", { ms: 250, tag: "slow" }),
      step("after_fast", "sleep", { ms: 10, tag: "after_fast" }, { depends_on: ["fast"] }),
    ]),
  );
  assert.is(result.status, "completed");
  assert.ok(callOf(tools, "after_fast").end! < callOf(tools, "slow").end!);
});

test("the concurrency limit is honoured", async ({ tools }) => {
  const steps = Array.from({ length: 6 }, (_, i) => step(`s${i}`, "sleep", { ms: 80, tag: `s${i}` }));
  const result = await executor(tools, { concurrency: 2 }).execute(plan(steps));
  assert.is(result.status, "completed");
  assert.is(tools.inFlight.max, 2);
  assert.ok(result.duration_ms >= 3 * 80 - 5, `6 steps of 80 ms two at a time take three rounds, got ${result.duration_ms}`);
  tools.inFlight.max = 0;
  const wide = Array.from({ length: 12 }, (_, i) => step(`w${i}`, "sleep", { ms: 80 }));
  await executor(tools).execute(plan(wide));
  assert.is(tools.inFlight.max, 10, "default limit 10");
  tools.inFlight.max = 0;
  await executor(tools).execute(plan(wide), { concurrency: 3 });
  assert.is(tools.inFlight.max, 3, "per-run override");
});

test("a step's timeout_ms bounds each attempt", async ({ tools }) => {
  const result = await executor(tools).execute(plan([step("slow", "sleep", { ms: 2_000 }, { timeout_ms: 100 })]));
  assert.is(result.status, "failed");
  assert.is(result.steps[0]!.status, "failed");
  assert.is(result.steps[0]!.error?.code, "TIMEOUT");
  const fallback = await executor(tools, { defaultTimeoutMs: 80 }).execute(plan([step("slow", "sleep", { ms: 2_000 })]));
  assert.is(fallback.steps[0]!.error?.code, "TIMEOUT", "the executor's default applies without timeout_ms");
});

test("retry: retryable failures are tried again with backoff, final ones are not", async ({ tools }) => {
  const fixed = executor(tools, { backoff: { backoff: "fixed", baseDelayMs: 60 } });
  const recovered = await fixed.execute(plan([step("f", "flaky", { key: "k1", failures: 2 }, { retry: 3 })]));
  assert.is(recovered.status, "completed");
  assert.is(recovered.steps[0]!.attempts, 3);
  assert.equal(recovered.steps[0]!.output, { ok: true, attempt: 3 });
  assert.ok(recovered.steps[0]!.duration_ms >= 2 * 60 - 5, `two waits of 60 ms, got ${recovered.steps[0]!.duration_ms}`);
  const flakyCalls = tools.calls.filter((c) => c.input["key"] === "k1");
  assert.is(flakyCalls.length, 3);
  assert.ok(flakyCalls[1]!.start - flakyCalls[0]!.end! >= 55, "waited between attempts");

  const exhausted = await fixed.execute(plan([step("f", "flaky", { key: "k2", failures: 5 }, { retry: 1 })]));
  assert.is(exhausted.steps[0]!.attempts, 2);
  assert.is(exhausted.steps[0]!.error?.code, "UNAVAILABLE");

  const final = await fixed.execute(plan([step("f", "fail", {}, { retry: 3 })]));
  assert.is(final.steps[0]!.attempts, 1, "HANDLER_ERROR is not retryable");
  assert.is(final.steps[0]!.error?.code, "HANDLER_ERROR");

  const timeouts = await fixed.execute(plan([step("t", "sleep", { ms: 1_000 }, { retry: 1, timeout_ms: 50 })]));
  assert.is(timeouts.steps[0]!.attempts, 2, "a timeout is retried");
});

test("exponential backoff with full jitter stays under its doubling ceiling and its cap", () => {
  const high = createBackoff({ baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999999 });
  assert.equal(
    [1, 2, 3, 4, 5, 6].map((n) => Math.round(high(n))),
    [100, 200, 400, 800, 1000, 1000],
  );
  const low = createBackoff({ random: () => 0 });
  assert.is(low(3), 0);
  const fixed = createBackoff({ backoff: "fixed", baseDelayMs: 70 });
  assert.equal([1, 2, 5].map(fixed), [70, 70, 70]);
  assert.throws(() => createBackoff({ backoff: "linear" as "fixed" }), /fixed or exponential/);
  assert.throws(() => createBackoff({ baseDelayMs: -1 }), /baseDelayMs/);
});

test("on_error: fail stops the run: running steps are aborted, the rest skipped", async ({ tools }) => {
  const result = await executor(tools).execute(
    plan([
      step("long", "sleep", { ms: 2_000, tag: "long" }),
      step("boom", "fail", {}),
      step("later", "echo", { x: 1 }, { depends_on: ["boom"] }),
      step("after_long", "echo", { x: 2 }, { depends_on: ["long"] }),
    ]),
  );
  assert.is(result.status, "failed");
  const [long, boom, later, afterLong] = result.steps;
  assert.is(boom!.status, "failed");
  assert.is(boom!.error?.code, "HANDLER_ERROR");
  assert.is(long!.status, "failed", "the run did not wait for the long step: it was aborted");
  assert.is(long!.error?.code, "ABORTED");
  assert.match(long!.error!.message, /failed at step boom/);
  assert.is(later!.status, "skipped");
  assert.is(afterLong!.status, "skipped");
  assert.match(afterLong!.reason!, /failed at step boom/);
  await eventually("the tool to see its call aborted", () => abortedAtTool(tools, "long"));
  assert.not.ok(
    tools.calls.some((c) => c.capability === "echo"),
    "nothing was dispatched after the failure",
  );
});

test("on_error: continue fails the step, skips its dependents (saying which), runs the rest", async ({ tools }) => {
  const result = await executor(tools).execute(
    plan([
      step("boom", "fail", {}, { on_error: "continue" }),
      step("child", "echo", { x: 1 }, { depends_on: ["boom"] }),
      step("grandchild", "echo", { x: 2 }, { depends_on: ["child"] }),
      step("independent", "sleep", { ms: 30, tag: "independent" }),
      step("after_independent", "add", { a: 1, b: 2 }, { depends_on: ["independent"] }),
    ]),
  );
  assert.is(result.status, "completed");
  const byId = Object.fromEntries(result.steps.map((s) => [s.step_id, s]));
  assert.is(byId["boom"]!.status, "failed");
  assert.is(byId["child"]!.status, "skipped");
  assert.is(byId["child"]!.skipped_because, "boom");
  assert.match(byId["child"]!.reason!, /boom failed/);
  assert.is(byId["grandchild"]!.status, "skipped");
  assert.is(byId["grandchild"]!.skipped_because, "child");
  assert.is(byId["child"]!.attempts, 0);
  assert.equal(byId["after_independent"]!.output, { sum: 3 });
  assert.not.ok(tools.calls.some((c) => c.capability === "echo"));
});

test("aborting the caller's signal interrupts the run", async ({ tools }) => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const result = await executor(tools).execute(
    plan([
      step("one", "sleep", { ms: 3_000, tag: "one" }),
      step("two", "sleep", { ms: 3_000, tag: "two" }),
      step("three", "echo", {}, { depends_on: ["one"] }),
    ]),
    { signal: controller.signal },
  );
  assert.is(result.status, "interrupted");
  assert.equal(
    result.steps.map((s) => s.status),
    ["failed", "failed", "skipped"],
  );
  assert.is(result.steps[0]!.error?.code, "ABORTED");
  assert.match(result.steps[2]!.reason!, /interrupted/);
  await eventually("the tool to see both calls aborted", () => abortedAtTool(tools, "one") && abortedAtTool(tools, "two"));

  const already = new AbortController();
  already.abort();
  const none = await executor(tools).execute(plan([step("x", "echo", {})]), { signal: already.signal });
  assert.is(none.status, "interrupted");
  assert.is(none.steps[0]!.status, "skipped");
});

test("step calls carry the workflow and step ids; expressions read inputs and earlier outputs", async ({ tools }) => {
  const result = await executor(tools).execute(
    plan([step("sum", "add", { a: "${inputs.a}", b: 2 }), step("show", "headers", { total: "${steps.sum.output.sum}" }, { depends_on: ["sum"] })]),
    { inputs: { a: 40 } },
  );
  assert.is(result.status, "completed");
  const call = tools.calls.find((c) => c.capability === "headers")!;
  assert.equal(call.input, { total: 42 });
  assert.is(call.headers["x-workflow-id"], result.plan_id);
  assert.is(call.headers["x-step-id"], "show");
});

/** A before-step interceptor that pauses the run at the steps it names, unless they are approved in the run's state. */
function gateOn(sensitive: readonly string[]): StepInterceptor {
  return {
    name: "test.gate",
    beforeStep: ({ step, state }) => {
      const approved = (state["test"] as string[] | undefined) ?? [];
      if (!sensitive.includes(step.step_id) || approved.includes(step.step_id)) return undefined;
      return {
        action: "pause",
        reason: "sensitive capability echo",
        waiting: `waiting for approval of step ${step.step_id}`,
        data: { sensitive_matches: ["echo"] },
      };
    },
  };
}

test("a before-step pause stops the run before the step: running steps finish, it is not called, its resolved parameters are kept", async ({ tools }) => {
  // sum → pay (paused) → after; slow runs beside them and must finish, not be aborted.
  const paused = plan([
    step("sum", "add", { a: "${inputs.a}", b: 2 }),
    step("slow", "sleep", { ms: 150, tag: "slow" }),
    step("pay", "echo", { amount: "${steps.sum.output.sum}", tag: "pay" }, { depends_on: ["sum"] }),
    step("after", "echo", { tag: "after" }, { depends_on: ["pay"] }),
  ]);
  const interceptors = [gateOn(["pay"])];
  const first = await within("paused run", executor(tools).execute(paused, { inputs: { a: 40 }, interceptors }));
  assert.is(first.status, "interrupted");
  assert.equal(first.interrupt, {
    step_id: "pay",
    index: 2,
    parameters: { amount: 42, tag: "pay" },
    reason: "sensitive capability echo",
    interceptor: "test.gate",
    data: { sensitive_matches: ["echo"] },
  });
  assert.equal(
    first.steps.map((s) => [s.step_id, s.status]),
    [
      ["sum", "completed"],
      ["slow", "completed"],
      ["pay", "skipped"],
      ["after", "skipped"],
    ],
  );
  assert.is(first.steps[2]!.reason, "waiting for approval of step pay", "the pause's `waiting` is the skipped steps' reason");
  assert.not.ok(
    tools.calls.some((c) => c.input["tag"] === "pay" || c.input["tag"] === "after"),
    "neither the paused step nor its dependent was called",
  );

  // Resumed: the completed steps are not run again; the approved step and the rest are.
  tools.calls.length = 0;
  const resumed = await within(
    "resumed run",
    executor(tools).execute(paused, { inputs: { a: 40 }, completed: first.steps, interceptors, state: { test: ["pay"] } }),
  );
  assert.is(resumed.status, "completed");
  assert.is(resumed.interrupt, undefined);
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["echo", "echo"],
    "only pay and after were called",
  );
  assert.equal(resumed.steps[2]!.output, { amount: 42, tag: "pay" });
  assert.equal(resumed.steps[0], first.steps[0], "the earlier result is kept as it was");
});

test("a pause again on resume (two paused steps) needs a second continuation", async ({ tools }) => {
  const chain = plan([step("one", "echo", { tag: "one" }), step("two", "echo", { tag: "two" }, { depends_on: ["one"] })]);
  const interceptors = [gateOn(["one", "two"])];
  const first = await executor(tools).execute(chain, { interceptors });
  assert.is(first.interrupt?.step_id, "one");
  const second = await executor(tools).execute(chain, { interceptors, state: { test: ["one"] }, completed: first.steps });
  assert.is(second.status, "interrupted");
  assert.is(second.interrupt?.step_id, "two");
  const third = await executor(tools).execute(chain, { interceptors, state: { test: ["one", "two"] }, completed: second.steps });
  assert.is(third.status, "completed");
  assert.equal(
    tools.calls.map((c) => c.input["tag"]),
    ["one", "two"],
    "each step called exactly once across the three runs",
  );
});

test("unknown capability or component: a failed step, not a crash", async ({ tools }) => {
  const result = await executor(tools).execute(
    plan([step("nope", "missing", {}, { on_error: "continue" }), { ...step("elsewhere", "echo", {}), agent_name: "nobody", on_error: "continue" }]),
  );
  assert.is(result.steps[0]!.error?.code, "NOT_FOUND");
  assert.is(result.steps[1]!.error?.code, "NOT_FOUND");
  assert.match(result.steps[1]!.error!.message, /nobody/);
});

test("an unreachable component is a retryable NETWORK_ERROR", async ({ tools }) => {
  const closed = await startTools({ names: ["gone"] });
  const url = closed.baseUrls["gone"]!;
  await closed.close();
  const result = await executor(tools, {
    resolve: createResolver({ baseUrls: { gone: url }, registry: false }),
    backoff: { backoff: "fixed", baseDelayMs: 10 },
  }).execute(plan([{ ...step("x", "echo", {}), agent_name: "gone", retry: 2 }]));
  assert.is(result.steps[0]!.error?.code, "NETWORK_ERROR");
  assert.is(result.steps[0]!.attempts, 3);
});

test("a malformed plan is refused before anything runs", async ({ tools }) => {
  const bad = plan([step("a", "echo", {}, { depends_on: ["ghost"] })]);
  assert.match((await rejection(executor(tools).execute(bad))).message, /ghost/);
  const malformed = plan([step("a", "echo", { x: "${inputs}" })]);
  const error = await rejection(executor(tools).execute(malformed));
  assert.is(error.code, "INVALID_WORKFLOW");
  assert.is(error.details?.[0]?.pointer, "/steps/0/metadata/parameters/x");
  assert.is(tools.calls.length, 0);
});

test.run();
