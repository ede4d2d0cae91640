/**
 * The orchestrator's side of the interceptor seam (interceptors.ts has the executor's): hooks around
 * a request's pipeline, after its plan is made and after its execution. One `Interceptor` object
 * carries any of the four hooks; the orchestrator passes the step hooks on to the executor.
 */
import type { ManifoldError } from "../errors/index.js";
import { getTelemetry } from "../telemetry/index.js";
import type { CatalogComponent } from "./catalog.js";
import type { ExecutionResult, StepResult } from "./executor-types.js";
import { ACCEPT, CONTINUE, runChain, type Answered, type Awaitable, type InterceptorState, type StepInterceptor } from "./interceptors.js";
import type { Plan, PlanMode } from "./plan.js";

/** What a front end asked for: enough to run it again the same way. */
export interface RunRequest {
  readonly mode: PlanMode;
  readonly workflow?: string;
  /** The inputs (workflows), the body (custom) or the request text (natural), as the front end took it. */
  readonly request: unknown;
  /** Whether the request asked for a synthesis (`ai_synthesis`). */
  readonly synthesise: boolean;
}

/** Who asked and how the request is answered (a pause made during a stream is for its client only). */
export interface RequestContext {
  readonly request_mode: "streaming" | "non_streaming";
  readonly user_context?: { readonly conversation_id?: string; readonly session_id?: string };
}

/**
 * A plan as its planner proposed it, before any check: natural mode's language model answers with
 * JSON that may name components that do not exist. The `enforce: "pre"` interceptors settle it (natural
 * mode: `natural.plan_check`): one answers `replace` with the checked plan, after sending the problems
 * back with `revise` as often as it allows, or `fail`s. Nothing else sees a proposal.
 */
export interface PlanProposal {
  /** The planner's latest answer, parsed (an object with a `steps` array); `revise` replaces it. */
  readonly value: unknown;
  /** The catalog it was planned over, with internal capabilities: what it is checked against. */
  readonly catalog: readonly CatalogComponent[];
  /** Times the planner was asked again. */
  readonly revisions: number;
  /** Model calls so far (the `attempt` of the call that answered `value`). */
  readonly attempt: number;
  /**
   * Sends the problems back in the planner's conversation; resolves once `value` is the new answer.
   * `reselect`: a problem asks for a new tiered selection first (natural mode, a continuation).
   */
  revise(problems: readonly string[], options?: { readonly reselect?: boolean }): Promise<void>;
  /**
   * Tiered selection (natural mode, a catalog over the threshold): the capabilities
   * (`component.capability`) the planner was shown; a step outside them is a problem. Absent: it saw
   * the whole catalog.
   */
  readonly selection?: readonly string[] | undefined;
  /** A continuation (natural mode's phase loop): the proposal adds a phase to this plan, which holds the completed steps so far. */
  readonly base?: Plan;
  /** Why a continuation was asked for. */
  readonly reason?: "continue" | "remediation";
}

/** A plan about to run, after planning and the `after_planning` hooks; not asked again for a resumed run. */
export interface PlanContext extends RunRequest {
  /** While `proposal` is set (the `enforce: "pre"` interceptors only), a stand-in without steps. */
  readonly plan: Plan;
  readonly context: RequestContext;
  readonly state: InterceptorState;
  /** A planner's proposal not checked yet; a `replace` settles it. */
  readonly proposal?: PlanProposal;
  /** A further phase's plan (the phase loop): the steps that completed in earlier phases, which a pause must keep. */
  readonly completed?: readonly StepResult[];
}

/** The run stops, and the request answers `answer` instead (HITL: its 202 body). */
export interface PipelinePause {
  readonly action: "pause";
  readonly answer: unknown;
  /** After planning: the reason every step is skipped with. @defaultValue `paused before the first step` */
  readonly waiting?: string;
}

export interface PipelineFail {
  readonly action: "fail";
  /** The request fails with it (recorded, then thrown to the front end). */
  readonly error: ManifoldError;
}

export type AfterPlanDecision =
  | { readonly action: "continue" }
  /** A replacement plan, checked like an `after_planning` hook's; the next interceptors see it. */
  | { readonly action: "replace"; readonly plan: Plan }
  | PipelinePause
  | PipelineFail;

/** A run whose execution ended: completed, failed, or paused at a step (`result.interrupt`). */
export interface ExecutionContext extends PlanContext {
  readonly result: ExecutionResult;
}

/**
 * The run goes on with a further phase (natural mode's phase loop): the proposal is settled by the
 * `enforce: "pre"` interceptors like a first plan (nothing unchecked runs), the after-plan
 * interceptors see the extended plan, and its new steps run with the completed ones kept.
 */
export interface PipelineExtend {
  readonly action: "extend";
  readonly proposal: PlanProposal;
}

export type AfterExecutionDecision = { readonly action: "accept" } | PipelineExtend | PipelinePause | PipelineFail;

/** Everything that wraps a step or a run: a feature registers one object with the hooks it needs. */
export interface Interceptor extends StepInterceptor {
  /**
   * `pre`: its `afterPlan` is asked right after the planner, before the `after_planning` hooks and the
   * other interceptors, and sees a planner's proposal (`PlanContext.proposal`): the place for a checker.
   * It answers `continue`, `replace` (a proposal's replacement is taken as checked) or `fail`.
   */
  readonly enforce?: "pre";
  afterPlan?(context: PlanContext): Awaitable<AfterPlanDecision | undefined>;
  /** Before the `after_execution` hooks; a pause skips them and the synthesis. */
  afterExecution?(context: ExecutionContext): Awaitable<AfterExecutionDecision | undefined>;
}

/**
 * The spec's `pipeline.short_circuit.decision`: an interceptor answered something other than going on
 * (pause, fail, replace), on the request's span. Names and codes only: never the plan or the answer.
 */
function shortCircuit(interceptor: string, stage: "after_plan" | "after_execution", decision: AfterPlanDecision | AfterExecutionDecision): void {
  getTelemetry().event("pipeline.short_circuit.decision", {
    interceptor,
    stage,
    action: decision.action,
    ...(decision.action === "fail" ? { error_code: decision.error.code } : {}),
  });
}

/** The after-plan chain: a `replace` is checked, settles any proposal, then is handed to the next interceptor. */
export async function afterPlan(
  interceptors: readonly Interceptor[],
  context: PlanContext,
  check: (plan: Plan) => Promise<Plan>,
): Promise<Answered<AfterPlanDecision> & { readonly context: PlanContext }> {
  let current = context;
  for (const interceptor of interceptors) {
    const answer = await interceptor.afterPlan?.(current);
    if (answer === undefined || answer.action === "continue") continue;
    if (answer.action === "replace") {
      // Settling a planner's proposal is the checker's ordinary answer, not a short circuit.
      if (current.proposal === undefined) shortCircuit(interceptor.name, "after_plan", answer);
      const { proposal: _settled, ...rest } = current;
      current = { ...rest, plan: await check(answer.plan) };
      continue;
    }
    shortCircuit(interceptor.name, "after_plan", answer);
    return { decision: answer, by: interceptor.name, context: current };
  }
  return { decision: CONTINUE, context: current };
}

/** The after-execution chain: the first answer other than `accept` ends it. */
export async function afterExecution(interceptors: readonly Interceptor[], context: ExecutionContext): Promise<Answered<AfterExecutionDecision>> {
  const { decision, by } = await runChain<Interceptor, ExecutionContext, AfterExecutionDecision>(
    interceptors,
    (interceptor, c) => interceptor.afterExecution?.(c),
    context,
    ACCEPT,
    () => undefined,
  );
  if (by === undefined) return { decision };
  // A further phase is the phase loop's ordinary answer, not a short circuit.
  if (decision.action !== "extend") shortCircuit(by, "after_execution", decision);
  return { decision, by };
}
