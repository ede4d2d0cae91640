/**
 * The orchestrator's interceptors on their own, over an in-process caller: after the plan (continue,
 * replace, pause with an answer, fail), after execution (pause, fail), the order against the hooks,
 * the step hooks handed to the executor, a resumed run's state, and `use`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { Caller, OutboundRequest } from "../../runtime/outbound/index.js";
import { createOrchestrator, type Interceptor, type OrchestratorOptions, type Plan } from "../../runtime/orchestration/index.js";
import { memoryLog, rejection } from "./support.js";

const sent: string[] = [];
const caller: Caller = {
  call: async ({ body }: OutboundRequest) => {
    sent.push(JSON.stringify(body));
    return body;
  },
  setToken: () => undefined,
  toJSON: () => ({}),
};
const body = {
  steps: [
    { tool: "t", capability: "echo", params: { n: 1 } },
    { tool: "t", capability: "echo", params: { n: 2 } },
  ],
};

const orchestrator = (options: Partial<OrchestratorOptions> = {}) =>
  createOrchestrator({ resolve: () => ({ url: "http://t.invalid/" }), caller, executionStore: false, registry: false, log: memoryLog().log, ...options });

const test = suite("pipeline interceptors");
test.before.each(() => {
  sent.length = 0;
});

test("after the plan: a pause answers with the interceptor's answer, every step waiting, nothing dispatched", async () => {
  const seen: string[] = [];
  const approval: Interceptor = {
    name: "approval",
    afterPlan: ({ plan, mode, request, synthesise, context, state }) => {
      seen.push(
        `${mode} ${plan.steps.length} ${JSON.stringify(request) === JSON.stringify(body)} ${synthesise} ${context.request_mode} ${JSON.stringify(state)}`,
      );
      return { action: "pause", answer: { waiting: true }, waiting: "waiting for a look" };
    },
  };
  const answer = await orchestrator({ interceptors: [approval] }).runCustom(body);
  assert.equal(answer.paused, { waiting: true });
  assert.equal(seen, ["custom 2 true false non_streaming {}"]);
  assert.equal(sent, []);
  assert.equal(
    answer.steps.map((s) => s.success),
    [false, false],
  );
});

test("after the plan: a replacement is checked and run; a fail stops the request before any step", async () => {
  const replacing: Interceptor = {
    name: "replacing",
    afterPlan: ({ plan }) => ({ action: "replace", plan: { ...plan, steps: plan.steps.slice(1) } }),
  };
  const seen: number[] = [];
  const counting: Interceptor = { name: "counting", afterPlan: ({ plan }) => void seen.push(plan.steps.length) };
  const replaced = await orchestrator({ interceptors: [replacing, counting] }).runCustom(body);
  assert.equal(seen, [1], "the next interceptor sees the replacement");
  assert.equal(sent, ['{"n":2}']);
  assert.is(replaced.steps.length, 1);

  const broken: Interceptor = {
    name: "broken",
    afterPlan: ({ plan }) => ({ action: "replace", plan: { ...plan, steps: [{ ...plan.steps[0]!, depends_on: ["ghost"] }] } as Plan }),
  };
  assert.is((await rejection(orchestrator({ interceptors: [broken] }).runCustom(body))).code, "INVALID_WORKFLOW");

  const refusing: Interceptor = { name: "refusing", afterPlan: () => ({ action: "fail", error: new ManifoldError("UNAUTHORIZED", "not today") }) };
  sent.length = 0;
  assert.is((await rejection(orchestrator({ interceptors: [refusing] }).runCustom(body))).code, "UNAUTHORIZED");
  assert.equal(sent, []);
});

test("after execution: a pause answers instead of the route and skips the after_execution hooks; the step hooks reach the executor", async () => {
  const hooksRan: string[] = [];
  const checkpoint: Interceptor = {
    name: "checkpoint",
    beforeStep: ({ step }) => (step.step_id === "step-2" ? { action: "pause", reason: "look first" } : undefined),
    afterExecution: ({ result }) => (result.interrupt === undefined ? undefined : { action: "pause", answer: { at: result.interrupt.step_id } }),
  };
  const run = await orchestrator({
    interceptors: [checkpoint],
    hooks: [{ name: "h", phase: "after_execution", run: () => void hooksRan.push("after_execution") }],
  }).runCustom(body);
  assert.equal(run.paused, { at: "step-2" });
  assert.equal(sent, ['{"n":1}']);
  assert.equal(hooksRan, []);
});

test("after execution: a fail rejects the request with its error", async () => {
  const failing: Interceptor = { name: "failing", afterExecution: () => ({ action: "fail", error: new ManifoldError("CONFLICT", "results disagree") }) };
  const error = await rejection(orchestrator({ interceptors: [failing] }).runCustom(body));
  assert.is(error.code, "CONFLICT");
});

test("a resumed run: no after-plan interceptor is asked again, the step interceptors get the resume's state", async () => {
  const asked: string[] = [];
  const feature: Interceptor = {
    name: "feature",
    afterPlan: () => void asked.push("afterPlan"),
    beforeStep: ({ step, state }) => void asked.push(`${step.step_id} ${JSON.stringify(state)}`),
  };
  const o = orchestrator();
  o.use(feature);
  assert.throws(() => o.use({ name: "feature" }), /two interceptors are named feature/);
  const first = await o.runCustom(body);
  assert.equal(asked, ["afterPlan", "step-1 {}", "step-2 {}"]);
  asked.length = 0;
  const plan: Plan = {
    plan_id: first.plan_id,
    original_request: "{}",
    mode: "workflow",
    steps: [{ step_id: "only", agent_name: "t", depends_on: [], metadata: { capability: "echo", parameters: { n: 3 } }, on_error: "continue" }],
  };
  await o.runCustom(body, { resume: { plan, completed: [], state: { feature: 1 } } });
  assert.equal(asked, ['only {"feature":1}']);
});

test.run();
