/**
 * The step interceptor chain on its own, over an in-process caller (no network): order, `replace`
 * seen by the next interceptor, `pause`, `fail`, `retry` with new parameters (the before-step chain
 * asked again), answers given synchronously or as promises, and an interceptor that throws.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { Caller, OutboundRequest } from "../../runtime/outbound/index.js";
import {
  beforeStep,
  checkInterceptors,
  createExecutor,
  type Plan,
  type PlanStep,
  type StepContext,
  type StepInterceptor,
} from "../../runtime/orchestration/index.js";

interface Sent {
  readonly capability: string;
  readonly body: unknown;
}

/** `ok` answers its body; `refuse` is INVALID_INPUT unless the body says `fixed: true`; `boom` is HANDLER_ERROR. */
function fakeCaller(sent: Sent[]): Caller {
  return {
    call: async ({ name, body }: OutboundRequest) => {
      sent.push({ capability: String(name), body });
      if (name === "boom") throw new ManifoldError("HANDLER_ERROR", "scripted failure");
      if (name === "refuse" && (body as { fixed?: boolean }).fixed !== true) throw new ManifoldError("INVALID_INPUT", "x must be a number");
      return body;
    },
    setToken: () => undefined,
    toJSON: () => ({}),
  };
}

const step = (id: string, capability: string, parameters: Record<string, unknown> = {}, more: Partial<PlanStep> = {}): PlanStep => ({
  step_id: id,
  agent_name: "t",
  depends_on: [],
  metadata: { capability, parameters },
  on_error: "fail",
  ...more,
});
const plan = (steps: PlanStep[]): Plan => ({ plan_id: "workflow-1", original_request: "{}", mode: "workflow", steps });

const test = suite<{ sent: Sent[] }>("step interceptors", { sent: [] });
test.before.each((context) => {
  context.sent = [];
});

const executorWith = (sent: Sent[], interceptors: StepInterceptor[]) =>
  createExecutor({
    resolve: () => ({ url: "http://t.invalid/" }),
    caller: fakeCaller(sent),
    interceptors,
    log: Object.assign(() => undefined, { debug() {}, info() {}, warn() {}, error() {} }) as never,
  });

test("interceptors are asked in list order; a replace is what the next one sees and what the step is called with", async ({ sent }) => {
  const asked: string[] = [];
  const first: StepInterceptor = {
    name: "first",
    beforeStep: ({ parameters }) => {
      asked.push(`first before ${JSON.stringify(parameters)}`);
      return { action: "replace", parameters: { x: 2 } };
    },
    afterStep: ({ output }) => void asked.push(`first after ${JSON.stringify(output)}`),
  };
  const second: StepInterceptor = {
    name: "second",
    beforeStep: async ({ parameters }) => {
      asked.push(`second before ${JSON.stringify(parameters)}`);
      return undefined;
    },
    afterStep: ({ output }) => {
      asked.push(`second after ${JSON.stringify(output)}`);
      return { action: "accept" };
    },
  };
  const result = await executorWith(sent, [first, second]).execute(plan([step("a", "ok", { x: 1 })]));
  assert.is(result.status, "completed");
  assert.equal(asked, ['first before {"x":1}', 'second before {"x":2}', 'first after {"x":2}', 'second after {"x":2}']);
  assert.equal(sent, [{ capability: "ok", body: { x: 2 } }]);
});

test("pause: the step is not called, the run ends interrupted naming the interceptor; the first pause ends the chain", async ({ sent }) => {
  const later: string[] = [];
  const pausing: StepInterceptor = { name: "waits", beforeStep: async () => ({ action: "pause", reason: "needs a value", data: { field: "x" } }) };
  const after: StepInterceptor = { name: "after", beforeStep: ({ step: s }) => void later.push(s.step_id) };
  const result = await executorWith(sent, [pausing, after]).execute(plan([step("a", "ok", { x: 1 }), step("b", "ok", {}, { depends_on: ["a"] })]));
  assert.is(result.status, "interrupted");
  assert.equal(result.interrupt, { step_id: "a", index: 0, parameters: { x: 1 }, reason: "needs a value", interceptor: "waits", data: { field: "x" } });
  assert.equal(
    result.steps.map((s) => [s.status, s.reason]),
    [
      ["skipped", "paused at step a"],
      ["skipped", "paused at step a"],
    ],
  );
  assert.equal(sent, []);
  assert.equal(later, [], "the interceptor after a pause is not asked");
});

test("fail before a step: it fails with the error, uncalled, and its on_error applies", async ({ sent }) => {
  const failing: StepInterceptor = {
    name: "refuses",
    beforeStep: ({ step: s }) => (s.step_id === "a" ? { action: "fail", error: new ManifoldError("INVALID_INPUT", "refused by policy") } : undefined),
  };
  const result = await executorWith(sent, [failing]).execute(
    plan([step("a", "ok", {}, { on_error: "continue" }), step("child", "ok", {}, { depends_on: ["a"] }), step("other", "ok")]),
  );
  assert.is(result.status, "completed");
  assert.equal(result.steps[0]!.error, { code: "INVALID_INPUT", message: "refused by policy" });
  assert.is(result.steps[0]!.attempts, 0);
  assert.is(result.steps[1]!.skipped_because, "a");
  assert.equal(
    sent.map((s) => s.capability),
    ["ok"],
    "only the independent step was called",
  );
  const stopped = await executorWith([], [failing]).execute(plan([step("a", "ok")]));
  assert.is(stopped.status, "failed", "on_error: fail stops the run");
});

test("retry after a step: it runs again with the new parameters, the before-step chain asked again with the next round", async ({ sent }) => {
  const rounds: number[] = [];
  const watcher: StepInterceptor = { name: "watcher", beforeStep: ({ round }) => void rounds.push(round) };
  const recovery: StepInterceptor = {
    name: "recovery",
    afterStep: ({ error, parameters, round }) =>
      error?.code === "INVALID_INPUT" && round < 2 ? { action: "retry", parameters: { ...(parameters as object), fixed: true } } : undefined,
  };
  const result = await executorWith(sent, [watcher, recovery]).execute(plan([step("a", "refuse", { x: "one" })]));
  assert.is(result.status, "completed");
  assert.equal(result.steps[0]!.output, { x: "one", fixed: true });
  assert.is(result.steps[0]!.attempts, 2, "attempts count every call of every round");
  assert.equal(rounds, [0, 1]);
  assert.equal(
    sent.map((s) => s.body),
    [{ x: "one" }, { x: "one", fixed: true }],
  );
});

test("fail after a step: a completed step becomes failed with the interceptor's error", async ({ sent }) => {
  const audit: StepInterceptor = { name: "audit", afterStep: () => ({ action: "fail", error: new ManifoldError("HANDLER_ERROR", "output rejected") }) };
  const result = await executorWith(sent, [audit]).execute(plan([step("a", "ok", { x: 1 }), step("b", "ok", {}, { depends_on: ["a"] })]));
  assert.is(result.status, "failed");
  assert.equal(result.steps[0]!.error, { code: "HANDLER_ERROR", message: "output rejected" });
  assert.is(result.steps[1]!.status, "skipped");
  assert.is(sent.length, 1);
});

test("pause after a failed step: the run waits there, `interrupt.error` says why, nothing else starts", async ({ sent }) => {
  const checkpoint: StepInterceptor = {
    name: "checkpoint",
    afterStep: ({ error }) => (error === undefined ? undefined : { action: "pause", reason: "a human can fix it", waiting: "waiting for a fix" }),
  };
  const result = await executorWith(sent, [checkpoint]).execute(plan([step("a", "refuse", { x: "one" }), step("b", "ok", {}, { depends_on: ["a"] })]));
  assert.is(result.status, "interrupted");
  assert.equal(result.interrupt, {
    step_id: "a",
    index: 0,
    parameters: { x: "one" },
    reason: "a human can fix it",
    interceptor: "checkpoint",
    error: { code: "INVALID_INPUT", message: "x must be a number" },
  });
  assert.is(result.steps[0]!.status, "failed");
  assert.equal([result.steps[1]!.status, result.steps[1]!.reason], ["skipped", "waiting for a fix"]);
});

test("after-step interceptors are not asked about steps aborted because the run stopped", async ({ sent }) => {
  const seen: string[] = [];
  const watcher: StepInterceptor = { name: "watcher", afterStep: ({ step: s, error }) => void seen.push(`${s.step_id} ${error?.code ?? "ok"}`) };
  const result = await executorWith(sent, [watcher]).execute(plan([step("a", "boom"), step("b", "ok", {}, { depends_on: ["a"] })]));
  assert.is(result.status, "failed");
  assert.equal(seen, ["a HANDLER_ERROR"]);
});

test("an interceptor that throws fails its step, not the executor", async ({ sent }) => {
  const buggy: StepInterceptor = {
    name: "buggy",
    beforeStep: () => {
      throw new TypeError("oops");
    },
  };
  const result = await executorWith(sent, [buggy]).execute(plan([step("a", "ok", {}, { on_error: "continue" })]));
  assert.is(result.steps[0]!.status, "failed");
  assert.is(result.steps[0]!.error?.message, "internal error", "a bug's message is not exposed");
  assert.equal(sent, []);
});

test("the chain answers synchronously while every hook does (the executor's fast path), and names must be unique", () => {
  const context = { parameters: { x: 1 }, round: 0 } as unknown as StepContext;
  const sync = beforeStep([{ name: "a", beforeStep: () => ({ action: "replace", parameters: { x: 2 } }) }, { name: "b" }], context);
  assert.not.ok(sync instanceof Promise);
  assert.equal((sync as { context: StepContext }).context.parameters, { x: 2 });
  assert.ok(beforeStep([{ name: "a", beforeStep: async () => undefined }], context) instanceof Promise);
  assert.throws(() => checkInterceptors([{ name: "x" }, { name: "x" }]), /two interceptors are named x/);
  assert.throws(() => checkInterceptors([{ name: "" }]), /needs a name/);
});

test.run();
