/**
 * HITL's interceptors on their own (no executor, no HTTP): the step gate, corrections, the error
 * checkpoint, plan approval, the checkpoint made of a paused run, and the state a resume hands back.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import {
  createCheckpointInterceptor,
  createCorrectionsInterceptor,
  createErrorCheckpointInterceptor,
  createHitlInterceptors,
  createPlanApprovalInterceptor,
  createStepGateInterceptor,
  resolveHitlPolicy,
  type PausedRun,
} from "../../runtime/hitl/index.js";
import { resumeOf } from "../../runtime/hitl/coordinator.js";
import type { Checkpoint } from "../../runtime/hitl/index.js";
import type { ExecutionContext, PlanContext, PlanStep, StepContext, StepOutcomeContext } from "../../runtime/orchestration/index.js";

const POLICY = resolveHitlPolicy({ planApproval: false, sensitiveCapabilities: ["charge"], expiryMs: 60_000, defaultAction: "reject" }, {});
const step = (id: string, capability: string): PlanStep => ({
  step_id: id,
  agent_name: "bank",
  depends_on: [],
  metadata: { capability, parameters: {} },
  on_error: "fail",
});
const plan = { plan_id: "workflow-1", original_request: "{}", mode: "workflow" as const, steps: [step("sum", "add"), step("pay", "charge")] };
const run: PlanContext = {
  mode: "workflow",
  workflow: "pay",
  request: { a: 1 },
  synthesise: false,
  plan,
  context: { request_mode: "non_streaming" },
  state: {},
};
const stepContext = (s: PlanStep, more: Partial<StepContext> = {}): StepContext =>
  ({ plan, step: s, index: 1, mode: "workflow", parameters: { amount: 3 }, round: 0, signal: new AbortController().signal, state: {}, ...more }) as StepContext;

/** A checkpoint maker that keeps what it was asked to store. */
function recorder(): { made: PausedRun[]; make: (paused: PausedRun) => Promise<never> } {
  const made: PausedRun[] = [];
  const make = async (paused: PausedRun): Promise<never> => {
    made.push(paused);
    return { status: 202, body: { checkpoint_id: `cp-${made.length}` } } as never;
  };
  return { made, make };
}

test("the step gate pauses a sensitive step with its matches and waiting reason; an approved one goes through", () => {
  const gate = createStepGateInterceptor(POLICY);
  assert.equal(gate.beforeStep!(stepContext(step("pay", "charge"))), {
    action: "pause",
    reason: "bank.charge is a sensitive capability",
    waiting: "waiting for approval of step pay",
    data: { sensitive_matches: ["charge"] },
  });
  assert.is(gate.beforeStep!(stepContext(step("sum", "add"))), undefined);
  assert.is(gate.beforeStep!(stepContext(step("pay", "charge"), { state: { hitl: { approved: ["pay"] } } })), undefined);
  const off = createStepGateInterceptor(resolveHitlPolicy(undefined, {}));
  assert.is(off.beforeStep!(stepContext(step("pay", "charge"))), undefined, "a disabled policy pauses nothing");
});

test("the step gate lets the steps a resumed run's state approved through, by step id; another sensitive step still pauses", () => {
  const policy = resolveHitlPolicy(
    { planApproval: false, sensitiveCapabilities: ["convert_currency", "bank.transfer"], expiryMs: 120_000, defaultAction: "approve" },
    {},
  );
  const gate = createStepGateInterceptor(policy);
  const state = { hitl: { approved: ["approved-step"] } };
  const convert = (id: string): PlanStep => ({ ...step(id, "convert_currency"), agent_name: "currency-service" });
  assert.equal(gate.beforeStep!(stepContext(convert("fx"), { state })), {
    action: "pause",
    reason: "currency-service.convert_currency is a sensitive capability",
    waiting: "waiting for approval of step fx",
    data: { sensitive_matches: ["convert_currency"] },
  });
  assert.is(gate.beforeStep!(stepContext(convert("approved-step"), { state })), undefined);
});

test("corrections replace the corrected step's parameters on its first round only", () => {
  const corrections = createCorrectionsInterceptor();
  const state = { hitl: { approved: ["pay"], parameters: { pay: { amount: 4 } } } };
  assert.equal(corrections.beforeStep!(stepContext(step("pay", "charge"), { state })), { action: "replace", parameters: { amount: 4 } });
  assert.is(corrections.beforeStep!(stepContext(step("pay", "charge"), { state, round: 1 })), undefined);
  assert.is(corrections.beforeStep!(stepContext(step("sum", "add"), { state })), undefined);
  assert.is(corrections.beforeStep!(stepContext(step("pay", "charge"))), undefined);
});

test("the error checkpoint pauses on a refused input (INVALID_INPUT) only", () => {
  const errors = createErrorCheckpointInterceptor(POLICY);
  const outcome = (error?: ManifoldError): StepOutcomeContext => ({ ...stepContext(step("sum", "add")), attempts: 1, ...(error && { error }) });
  assert.equal(errors.afterStep!(outcome(new ManifoldError("INVALID_INPUT", "a must be a number"))), {
    action: "pause",
    reason: "bank.add refused its input: a must be a number",
    waiting: "waiting for a human to correct step sum",
  });
  assert.is(errors.afterStep!(outcome(new ManifoldError("HANDLER_ERROR", "boom"))), undefined);
  assert.is(errors.afterStep!(outcome()), undefined);
});

test("plan approval makes a plan checkpoint and pauses with its answer; off without plan approval", async () => {
  const { made, make } = recorder();
  const approval = createPlanApprovalInterceptor({ ...POLICY, planApproval: true }, make);
  const answer = await approval.afterPlan!(run);
  assert.equal(answer, { action: "pause", answer: { status: 202, body: { checkpoint_id: "cp-1" } }, waiting: "waiting for approval of the plan" });
  assert.equal(made, [{ type: "plan", run, steps: [], reason: "the plan waits for approval", sensitive_matches: [] }]);
  assert.is(await createPlanApprovalInterceptor(POLICY, make).afterPlan!(run), undefined);
});

test("the checkpoint interceptor stores runs HITL paused (step or error), and leaves others alone", async () => {
  const { made, make } = recorder();
  const checkpoint = createCheckpointInterceptor(make);
  const steps = [{ step_id: "sum", component: "bank", capability: "add", status: "completed" as const, output: { sum: 3 }, attempts: 1, duration_ms: 1 }];
  const paused = (interceptor: string, error?: { code: "INVALID_INPUT"; message: string }): ExecutionContext => ({
    ...run,
    result: {
      plan_id: "workflow-1",
      status: "interrupted",
      steps,
      duration_ms: 1,
      interrupt: {
        step_id: "pay",
        index: 1,
        parameters: { amount: 3 },
        reason: "why",
        interceptor,
        data: { sensitive_matches: ["charge"] },
        ...(error && { error }),
      },
    },
  });
  assert.equal(await checkpoint.afterExecution!(paused("hitl.step_gate")), { action: "pause", answer: { status: 202, body: { checkpoint_id: "cp-1" } } });
  assert.equal([made[0]!.type, made[0]!.reason, made[0]!.sensitive_matches, made[0]!.steps], ["step", "why", ["charge"], steps]);
  await checkpoint.afterExecution!(paused("hitl.error_checkpoint", { code: "INVALID_INPUT", message: "bad" }));
  assert.is(made[1]!.type, "error");
  assert.is(await checkpoint.afterExecution!(paused("someone.else")), undefined);
  assert.is(await checkpoint.afterExecution!({ ...run, result: { plan_id: "workflow-1", status: "completed", steps, duration_ms: 1 } }), undefined);
  assert.equal(
    createHitlInterceptors(POLICY, make).map((i) => i.name),
    ["hitl.corrections", "hitl.step_gate", "hitl.indirect_gate", "hitl.error_checkpoint", "hitl.plan_approval", "hitl.checkpoint"],
  );
});

test("a claimed checkpoint resumes its plan with its completed steps, the blocked step approved and its correction", () => {
  const claimed = {
    plan,
    completed_steps: [{ step_id: "sum", status: "completed" }],
    current_step: { step_id: "pay", index: 1 },
    checkpoint_id: "cp-1",
    resolution: { action: "approve", parameters: { amount: 4 } },
  } as unknown as Checkpoint;
  assert.equal(resumeOf(claimed), {
    plan,
    completed: [{ step_id: "sum", status: "completed" }],
    state: { hitl: { approved: ["sum", "pay"], parameters: { pay: { amount: 4 } } } },
    checkpoint: { checkpoint_id: "cp-1", decision: "corrected" },
  });
  const planOnly = { plan, completed_steps: [] } as unknown as Checkpoint;
  assert.equal(resumeOf(planOnly).state, { hitl: { approved: [] } });
});

test.run();
