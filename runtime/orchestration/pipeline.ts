/**
 * The pipeline every request goes through, whatever its front end, as named stages over the
 * orchestrator's `OrchestratorCore`: plan (before_planning hooks → plan → the `enforce: "pre"`
 * after-plan interceptors, which check a planner's proposal → after_planning hooks → the other
 * after-plan interceptors) → execute (the executor, with the step interceptors) → after-execution
 * interceptors → finish (after_execution hooks → synthesis → after_synthesis hooks) → execution record.
 * A pause from an interceptor ends the request there with the interceptor's answer.
 */
import { currentScope } from "../context/index.js";
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { llmUnavailable } from "../llm/index.js";
import type { Logger } from "../telemetry/index.js";
import type { Clock } from "../util/index.js";
import type { CatalogComponent } from "./catalog.js";
import type { ExecuteOptions, ExecutionResult, Executor } from "./executor.js";
import { getTelemetry } from "../telemetry/index.js";
import { currentNaturalRun, llmEventScope } from "./natural/run-context.js";
import { skippedResult } from "./executor-run.js";
import { runHooks, type HookContext, type HookOutcome, type PipelineHook } from "./hooks.js";
import { afterExecution, afterPlan, type Interceptor, type PlanContext, type PlanProposal } from "./pipeline-interceptors.js";
import { checkPlan, phaseOf, type Plan, type PlanMode } from "./plan.js";
import type { ExecutionRecord, ExecutionStore, InterceptorDecision } from "./records/index.js";
import { executionEntry } from "./records/entry.js";
import { withEarlierPhases } from "./phase-steps.js";
import type { StepRound } from "./executor-types.js";
import type { NaturalSetup } from "./natural/configure.js";
import type { RecordCall } from "./natural/record.js";
import type { Paused, RunOptions } from "./orchestrator-types.js";
import type { ContextSource, SettledListener } from "./context.js";
import { announceSettled } from "./settled.js";

/** What the pipeline needs of its orchestrator. */
export interface OrchestratorCore {
  readonly hooks: readonly PipelineHook[];
  /** In order; `use` appends. */
  readonly interceptors: Interceptor[];
  readonly executor: Executor;
  readonly store: ExecutionStore | undefined;
  readonly natural: NaturalSetup;
  /** The catalog with internal capabilities. */
  readonly fullCatalog: () => Promise<CatalogComponent[]>;
  readonly log: Logger;
  /** What natural mode's request timeout is measured on. */
  readonly clock: Clock;
  /** Planning context (skills, memory), in order; `useContext` appends. */
  readonly contextSources: ContextSource[];
  /** Told when a run settles; `onSettled` appends. */
  readonly settled: SettledListener[];
}

export interface PipelineRequest {
  readonly mode: PlanMode;
  readonly workflow?: string;
  readonly request: unknown;
  /** A plan, or a proposal that the `enforce: "pre"` interceptors must settle (natural mode's language model). */
  readonly plan: () => Plan | PlanProposal | Promise<Plan | PlanProposal>;
  readonly execute: ExecuteOptions;
  /** Checks a replacement plan (a hook's, an interceptor's) beyond its shape (natural mode: against the catalog). */
  readonly checkReplacement?: (plan: Plan) => Promise<Plan>;
  readonly record?: RecordCall;
  readonly outputs?: (plan: Plan, result: ExecutionResult) => Record<string, unknown>;
  readonly options: RunOptions;
}

export interface PipelineResult extends Paused {
  readonly result: ExecutionResult;
  readonly plan: Plan;
  readonly outputs?: Record<string, unknown>;
  readonly synthesis?: unknown;
  readonly hooks: readonly HookOutcome[];
}

/** One request on its way through the stages. */
interface Passage {
  readonly core: OrchestratorCore;
  readonly request: PipelineRequest;
  readonly startedAt: string;
  readonly outcomes: HookOutcome[];
  /** What every hook context starts with. */
  readonly base: Pick<HookContext, "mode" | "workflow" | "request" | "signal">;
  /** The plan once there is one (a failure from then on is recorded with it), and the run's result. */
  plan: Plan | undefined;
  result: ExecutionResult | undefined;
  /** Every round of every step, for the record (bounded: MAX_ROUNDS). */
  readonly rounds: StepRound[];
  /** Pipeline interceptors that did not simply go on, for the record. */
  readonly decisions: InterceptorDecision[];
}

/** Rounds a passage keeps for its record: beyond them, a huge plan's record says what was planned, not what each round sent. */
const MAX_ROUNDS = 1000;

const statusOf = { completed: "success", failed: "failed", interrupted: "interrupted" } as const;

export async function runPipeline(core: OrchestratorCore, request: PipelineRequest): Promise<PipelineResult> {
  const { mode, workflow, options } = request;
  const { signal } = options;
  const passage: Passage = {
    core,
    request,
    startedAt: new Date().toISOString(),
    outcomes: [],
    base: { mode, ...(workflow === undefined ? {} : { workflow }), request: request.request, ...(signal === undefined ? {} : { signal }) },
    plan: options.resume?.plan,
    result: undefined,
    rounds: [],
    decisions: [],
  };
  try {
    if (options.synthesise === true && core.natural.synthesiser === undefined) throw llmUnavailable("ai_synthesis");
    const planned = options.resume === undefined ? await planStage(passage) : { context: planContext(request, options.resume.plan) };
    const plan = planned.context.plan;
    passage.plan = plan;
    if (planned.paused !== undefined) return await pausedBeforeRun(passage, plan, planned.paused);
    let context = planned.context;
    let result = await executeStage(passage, plan);
    passage.result = result;
    for (;;) {
      const after = await afterExecution(core.interceptors, { ...context, result });
      const { decision } = after;
      noteDecision(passage, "after_execution", after);
      if (decision.action === "fail") throw decision.error;
      if (decision.action === "pause") {
        const all = withEarlierPhases(context.plan, result);
        await recordRun(passage, context.plan, all, { paused: decision.answer });
        return { result: all, plan: context.plan, hooks: passage.outcomes, paused: decision.answer };
      }
      if (decision.action !== "extend") break;
      const extended = await extendStage(passage, decision.proposal, result);
      if (extended === undefined) break;
      if (extended.paused !== undefined) return await pausedBeforeRun(passage, extended.context.plan, extended.paused, result);
      context = extended.context;
      result = await executeStage(passage, context.plan, result);
      passage.result = result;
    }
    return await finishStage(passage, context.plan, result);
  } catch (thrown) {
    if (passage.plan !== undefined) {
      const error = toManifoldError(thrown);
      const status = signal?.aborted === true ? "interrupted" : "failed";
      const failure = { code: error.code, message: error.expose ? error.message : "internal error" };
      await recordRun(passage, passage.plan, { status, steps: passage.result?.steps ?? [] }, { failure });
    }
    throw thrown;
  }
}

/** What the pipeline interceptors are told about a run. */
function planContext(request: PipelineRequest, plan: Plan): PlanContext {
  const { mode, workflow, options } = request;
  return {
    mode,
    ...(workflow === undefined ? {} : { workflow }),
    request: request.request,
    synthesise: options.synthesise === true,
    plan,
    context: options.requestContext ?? { request_mode: "non_streaming" },
    state: options.resume?.state ?? {},
  };
}

interface Planned {
  readonly context: PlanContext;
  readonly paused?: { readonly answer: unknown; readonly waiting?: string };
}

/** Hooks around planning, the planner, then the after-plan interceptors (after the hooks: a required hook that rejects stops the run first). */
async function planStage(passage: Passage): Promise<Planned> {
  const { core, request, base, outcomes } = passage;
  const { hooks, log } = core;
  const check = async (replaced: Plan): Promise<Plan> => (request.checkReplacement === undefined ? replaced : await request.checkReplacement(replaced));
  const checkReplaced = (replaced: Plan): Promise<Plan> => check(checkPlan(replaced, "an interceptor's plan"));
  if (hooks.length > 0) await runHooks(hooks, { ...base, phase: "before_planning" }, outcomes, log);
  let plan = await preChecked(passage, await request.plan(), checkReplaced);
  passage.plan = plan;
  if (hooks.length > 0) {
    const replaced = await runHooks(hooks, { ...base, phase: "after_planning", plan }, outcomes, log);
    if (replaced !== undefined) plan = await check(replaced);
    passage.plan = plan;
  }
  const others = core.interceptors.filter((interceptor) => interceptor.enforce !== "pre");
  const answered = await afterPlan(others, planContext(request, plan), checkReplaced);
  noteDecision(passage, "after_plan", answered);
  const { decision, context } = answered;
  if (decision.action === "fail") throw decision.error;
  if (decision.action === "pause") return { context, paused: decision };
  return { context };
}

const isProposal = (made: Plan | PlanProposal): made is PlanProposal => "revise" in made;

/**
 * The `enforce: "pre"` interceptors, right after the planner, before any hook or other interceptor
 * sees the plan: a proposal must come out of them as a plan (a `replace`, taken as checked: the
 * interceptor is the checker); another plan's replacement is checked like any interceptor's.
 */
async function preChecked({ core, request }: Passage, made: Plan | PlanProposal, checkReplaced: (plan: Plan) => Promise<Plan>): Promise<Plan> {
  const pre = core.interceptors.filter((interceptor) => interceptor.enforce === "pre");
  const proposal = isProposal(made) ? made : undefined;
  if (proposal === undefined && pre.length === 0) return made as Plan;
  const standIn: Plan = { plan_id: "", original_request: String(request.request), mode: request.mode, steps: [] };
  const context: PlanContext = proposal === undefined ? planContext(request, made as Plan) : { ...planContext(request, standIn), proposal };
  const answered = await afterPlan(pre, context, async (replaced) => (proposal === undefined ? checkReplaced(replaced) : replaced));
  if (answered.decision.action === "fail") throw answered.decision.error;
  if (answered.decision.action === "pause" || answered.context.proposal !== undefined)
    throw new ManifoldError("INTERNAL", "the planner's proposal was not settled by an enforce: pre interceptor: nothing is run unchecked");
  return answered.context.plan;
}

/** A run paused before its first step: nothing ran, every step is waiting. */
export function waitingResult(plan: Plan, reason: string): ExecutionResult {
  return {
    plan_id: plan.plan_id,
    status: "interrupted",
    steps: plan.steps.map((step) => skippedResult(step, reason)),
    duration_ms: 0,
  };
}

async function pausedBeforeRun(passage: Passage, plan: Plan, paused: NonNullable<Planned["paused"]>, earlier?: ExecutionResult): Promise<PipelineResult> {
  const waiting = waitingResult(plan, paused.waiting ?? "paused before the first step");
  // A further phase that paused before its first step: the steps that completed before it stay completed.
  const done = new Map((earlier?.steps ?? []).filter((s) => s.status === "completed").map((s) => [s.step_id, s]));
  const result = withEarlierPhases(plan, done.size === 0 ? waiting : { ...waiting, steps: waiting.steps.map((s) => done.get(s.step_id) ?? s) });
  passage.plan = plan;
  await recordRun(passage, plan, result, { paused: paused.answer });
  return { result, plan, hooks: passage.outcomes, paused: paused.answer };
}

/**
 * A further phase: the proposal is settled like a first plan (the `enforce: "pre"` interceptors check
 * it: nothing unchecked runs), then the other after-plan interceptors see the extended plan. A
 * continuation that cannot be settled (still invalid, the call budget spent, the model failing) ends
 * the loop with what exists, as if it had not been asked for; an abort or a timeout stops the request.
 */
async function extendStage(passage: Passage, proposal: PlanProposal, earlier: ExecutionResult): Promise<Planned | undefined> {
  const { core, request } = passage;
  const checkReplaced = (replaced: Plan): Promise<Plan> =>
    request.checkReplacement === undefined
      ? Promise.resolve(checkPlan(replaced, "an interceptor's plan"))
      : request.checkReplacement(checkPlan(replaced, "an interceptor's plan"));
  let plan: Plan;
  try {
    plan = await preChecked(passage, proposal, checkReplaced);
  } catch (thrown) {
    const error = toManifoldError(thrown);
    if (request.options.signal?.aborted === true || !ENDS_LOOP.has(error.code)) throw thrown;
    core.log.warn(`a further phase was not run: ${error.code}`, { code: error.code });
    // The phase being planned did not come to be: later events and the answer are of the last one that did.
    const run = currentNaturalRun();
    if (run !== undefined && passage.plan !== undefined) run.phase = phaseOf(passage.plan);
    return undefined;
  }
  passage.plan = plan;
  passage.result = earlier;
  // A further phase is a plan like the first: the after_planning hooks govern it too (and may replace it).
  const { hooks, log } = core;
  if (hooks.length > 0) {
    const replaced = await runHooks(hooks, { ...passage.base, phase: "after_planning", plan }, passage.outcomes, log);
    if (replaced !== undefined) plan = await checkReplaced(replaced);
    passage.plan = plan;
  }
  const completed = earlier.steps.filter((s) => s.status === "completed");
  const others = core.interceptors.filter((interceptor) => interceptor.enforce !== "pre");
  // The steps that completed in earlier phases: a pause here (a plan approval) keeps them, so a resume does not run them again.
  const answered = await afterPlan(others, { ...planContext(request, plan), completed }, checkReplaced);
  noteDecision(passage, "after_plan", answered);
  const { decision, context } = answered;
  if (decision.action === "fail") throw decision.error;
  if (decision.action === "pause") return { context, paused: decision };
  return { context };
}

/** A continuation failing with one of these ends the loop with what exists; anything else fails the request. */
const ENDS_LOOP: ReadonlySet<string> = new Set(["PLAN_INVALID", "BUDGET_EXCEEDED", "LLM_ERROR"]);

/** Runs the plan; a further phase (`earlier`) keeps the steps that completed before it, as a resume does. */
function executeStage({ core, request, rounds }: Passage, plan: Plan, earlier?: ExecutionResult): Promise<ExecutionResult> {
  const { mode, workflow, options } = request;
  const { signal, onStep, onRound } = options;
  const resume = earlier === undefined ? options.resume : { ...options.resume, completed: earlier.steps.filter((s) => s.status === "completed") };
  return core.executor.execute(plan, {
    ...request.execute,
    mode,
    ...(signal === undefined ? {} : { signal }),
    ...(workflow === undefined ? {} : { workflow }),
    ...(onStep === undefined ? {} : { onStep }),
    ...(core.interceptors.length === 0 ? {} : { interceptors: core.interceptors }),
    ...(resume?.completed && { completed: resume.completed }),
    ...(resume?.state && { state: resume.state }),
    ...((core.store !== undefined || onRound !== undefined) && {
      // In order: the execution record's rounds (bounded), then the caller's listener (chat's tool parts).
      onRound: (round: StepRound) => void [core.store && rounds.length < MAX_ROUNDS && rounds.push(round), onRound?.(round)],
    }),
  });
}

/** The model asked the user instead of planning further: nothing is synthesised, the question is the answer. */
function clarified(plan: Plan, result: ExecutionResult): boolean {
  const { clarification } = plan;
  if (clarification === undefined) return false;
  getTelemetry().event("orchestrator.clarification_short_circuit", {
    ...llmEventScope(),
    question: clarification.question,
    missing_field_count: clarification.missing_fields.length,
    prior_completed_steps: result.steps.filter((s) => s.status === "completed").length,
  });
  return true;
}

/** Outputs, after_execution hooks, the synthesis when asked for, after_synthesis hooks, the record. */
async function finishStage(passage: Passage, plan: Plan, ran: ExecutionResult): Promise<PipelineResult> {
  const { core, request, base, outcomes } = passage;
  const { hooks, log } = core;
  const result = withEarlierPhases(plan, ran);
  const outputs = request.outputs?.(plan, result);
  const withResult = { ...base, plan, result, ...(outputs === undefined ? {} : { outputs }) };
  if (hooks.length > 0) await runHooks(hooks, { ...withResult, phase: "after_execution" }, outcomes, log);
  let synthesis: unknown;
  const { synthesiser } = core.natural;
  const { options } = request;
  const asked = clarified(plan, result);
  if (options.synthesise === true && synthesiser !== undefined && !asked) {
    const { signal, onChunk } = options;
    synthesis = await synthesiser(
      {
        mode: request.mode,
        ...(request.workflow === undefined ? {} : { workflow: request.workflow }),
        request: request.request,
        plan,
        result,
        ...(outputs === undefined ? {} : { outputs }),
      },
      { ...(signal === undefined ? {} : { signal }), ...(onChunk === undefined ? {} : { onChunk }), ...(request.record && { record: request.record }) },
    );
    if (hooks.length > 0) await runHooks(hooks, { ...withResult, phase: "after_synthesis", synthesis }, outcomes, log);
  }
  await recordRun(passage, plan, result, { synthesis });
  return { result, plan, ...(outputs === undefined ? {} : { outputs }), ...(synthesis === undefined ? {} : { synthesis }), hooks: outcomes };
}

/** An interceptor that did not simply go on (`by` is set only then), for the record. */
function noteDecision(passage: Passage, stage: InterceptorDecision["stage"], { decision, by }: { decision: { action: string }; by?: string }): void {
  if (by === undefined || passage.decisions.length >= MAX_ROUNDS) return;
  const error = (decision as { error?: ManifoldError }).error;
  passage.decisions.push({ interceptor: by, stage, action: decision.action, ...(error === undefined ? {} : { reason: error.code }) });
}

/** How a run ended, beyond its status: the error that stopped it, the answer a pause gave instead, its synthesis. */
interface Ending {
  readonly failure?: ExecutionRecord["error"];
  readonly paused?: unknown;
  readonly synthesis?: unknown;
}

/**
 * The execution record of a run that finished, paused, or (with `failure`) stopped on an error
 * (records/entry.ts builds it). A resumed run saves its plan's record again, over what its first run
 * recorded, one revision on. Never fails the request.
 */
async function recordRun(passage: Passage, plan: Plan, result: Pick<ExecutionResult, "status" | "steps">, ending: Ending = {}): Promise<void> {
  const { core, request, startedAt, outcomes, rounds, decisions } = passage;
  const { store, log } = core;
  const scope = currentScope();
  const requestId = scope?.requestId ?? currentNaturalRun()?.requestId;
  const { mode, workflow, options } = request;
  const { failure, paused, synthesis } = ending;
  const context = currentNaturalRun()?.evidence;
  announceSettled(core, { requestId, mode, workflow, request: request.request, plan, result, synthesis, context });
  if (store === undefined) return;
  try {
    const earlier = options.resume === undefined ? undefined : await store.get(plan.plan_id);
    const entry = executionEntry({
      mode,
      ...(workflow === undefined ? {} : { workflow }),
      ...(scope?.conversationId === undefined ? {} : { conversation_id: scope.conversationId }),
      ...(requestId === undefined ? {} : { request_id: requestId }),
      ...(scope?.originalRequestId === undefined ? {} : { original_request_id: scope.originalRequestId }),
      status: statusOf[result.status],
      plan,
      // A failure's result is the executor's: the steps earlier phases did not complete are added here.
      steps: withEarlierPhases(plan, result).steps,
      rounds,
      hooks: outcomes,
      decisions,
      ...(failure === undefined ? {} : { error: failure }),
      ...(paused === undefined ? {} : { paused }),
      ...(options.resume?.checkpoint === undefined ? {} : { resumed: options.resume.checkpoint }),
      ...(synthesis === undefined ? {} : { synthesis }),
      ...(context === undefined || Object.keys(context).length === 0 ? {} : { context }),
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      ...(earlier === undefined ? {} : { earlier }),
    });
    await store.save(entry);
  } catch (error) {
    // Debug records never fail the request they describe.
    log.warn(`execution record ${plan.plan_id} could not be saved`, { error });
  }
}
