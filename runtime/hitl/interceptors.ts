/**
 * Human approval as orchestration interceptors (the orchestrator and executor know nothing of it):
 *
 * 1. `hitl.corrections` (before a step): a resumed run's corrected parameters replace the step's own;
 * 2. `hitl.step_gate` (before a step): a sensitive step pauses the run, unless a human approved it;
 *    it also puts the policy on the request's approval gate, so the step's callee is gated too (gate.ts);
 * 2b. `hitl.indirect_gate` (after a step): a step whose callee reached a sensitive capability
 *    (APPROVAL_REQUIRED) pauses the run, its checkpoint naming that call;
 * 3. `hitl.error_checkpoint` (after a step): a step whose input the tool refused pauses the run for a
 *    human's correction instead of failing it; natural mode's recovery (asked before it) has tried
 *    first, and its analysis is in the checkpoint's reason;
 * 4. `hitl.plan_approval` (after the plan): every plan waits for approval before its first step;
 * 5. `hitl.checkpoint` (after execution): a run one of these paused becomes a checkpoint, and the
 *    request answers 202.
 *
 * Registered in this order by the HITL feature. A resumed run carries `state.hitl` (`HitlState`).
 */
import {
  recoveryAnalysis,
  type ExecutionContext,
  type Interceptor,
  type InterceptorState,
  type PlanContext,
  type StepContext,
  type StepOutcomeContext,
} from "../orchestration/served.js";
import type { CheckpointMaker } from "./checkpoint.js";
import { createIndirectGateInterceptor, gateStep, type IndirectCall } from "./gate.js";
import { createStepGate, type HitlPolicy } from "./policy.js";

/** The key of HITL's part of a resumed run's interceptor state. */
export const HITL_STATE = "hitl";

/** What a resume hands back to HITL's interceptors. */
export interface HitlState {
  /** Steps a human approved (the blocked one, and any approved before it). */
  readonly approved: readonly string[];
  /** Parameters a human corrected, by step id: they replace the step's own. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** The sensitive call a step's callee may make once, by step id (the call its checkpoint named). */
  readonly indirect?: Readonly<Record<string, IndirectCall>>;
}

const NO_STATE: HitlState = { approved: [] };

export function hitlState(state: InterceptorState): HitlState {
  const value = state[HITL_STATE] as HitlState | undefined;
  return value ?? NO_STATE;
}

/** A resumed run's corrected parameters, on the step's first pass only (a recovery retry keeps its own). */
export function createCorrectionsInterceptor(): Interceptor {
  return {
    name: "hitl.corrections",
    beforeStep({ step, round, state }: StepContext) {
      const { parameters } = hitlState(state);
      if (round > 0 || parameters === undefined || !Object.hasOwn(parameters, step.step_id)) return undefined;
      return { action: "replace", parameters: parameters[step.step_id] };
    },
  };
}

/**
 * A sensitive step pauses the run before it is dispatched; one a human approved goes through. Every
 * step also puts the policy on the request's approval gate (gate.ts), so the calls its callee makes
 * are gated too, and an approved step's call (and the indirect call its checkpoint named) is granted once.
 */
export function createStepGateInterceptor(policy: HitlPolicy): Interceptor {
  const gate = createStepGate(policy);
  return {
    name: "hitl.step_gate",
    beforeStep({ step, state, parameters, round }: StepContext) {
      // A human approved the plan with these parameters: a recovery retry's corrected ones are asked again, sensitive or not.
      if (round > 0 && policy.enabled && policy.planApproval)
        return {
          action: "pause",
          reason: "the approved plan's parameters for this step were corrected by automatic recovery",
          waiting: `waiting for approval of step ${step.step_id}`,
          data: { sensitive_matches: [] },
        };
      if (gate === undefined) return undefined;
      const { approved, indirect } = hitlState(state);
      // An approval covers the step as the human saw it: a recovery retry's corrected parameters are asked again.
      const isApproved = approved.includes(step.step_id) && round === 0;
      gateStep(policy, step, parameters, { step: isApproved, indirect: isApproved ? indirect?.[step.step_id] : undefined });
      if (isApproved) return undefined;
      const answer = gate(step);
      if (answer === undefined) return undefined;
      return {
        action: "pause",
        reason: round === 0 ? answer.reason : `${answer.reason}; its parameters were corrected by automatic recovery`,
        waiting: `waiting for approval of step ${step.step_id}`,
        data: { sensitive_matches: answer.sensitive_matches },
      };
    },
  };
}

/** Most characters of a recovery analysis quoted in a checkpoint's reason. */
const ANALYSIS_CHARS = 500;

/** What natural mode's recovery concluded about the step, for the human who corrects it. */
function analysisNote(signal: AbortSignal, stepId: string): string {
  const analysis = recoveryAnalysis(signal, stepId);
  if (analysis === undefined) return "";
  const reason = analysis.reason.length > ANALYSIS_CHARS ? `${analysis.reason.slice(0, ANALYSIS_CHARS)}…` : analysis.reason;
  return ` (automatic recovery ${analysis.outcome === "retried" ? "retried it with corrected parameters, which were refused too" : "did not retry it"}: ${reason})`;
}

/**
 * A step whose input the tool refused (400 INVALID_INPUT) is one a human can correct: the run waits
 * for corrected parameters (an approve with `parameters`) or a reject, rather than failing. Natural
 * mode's recovery is asked first; when it did not fix the step, its analysis is in the reason.
 */
export function createErrorCheckpointInterceptor(policy: HitlPolicy): Interceptor {
  return {
    name: "hitl.error_checkpoint",
    afterStep({ step, error, signal }: StepOutcomeContext) {
      if (!policy.enabled || error?.code !== "INVALID_INPUT") return undefined;
      return {
        action: "pause",
        reason: `${step.agent_name}.${step.metadata.capability} refused its input: ${error.expose ? error.message : "invalid input"}${analysisNote(signal, step.step_id)}`,
        waiting: `waiting for a human to correct step ${step.step_id}`,
      };
    },
  };
}

/** Every plan waits for approval before its first step (a resumed run's plan was approved: it is not asked again). */
export function createPlanApprovalInterceptor(policy: HitlPolicy, checkpoint: CheckpointMaker): Interceptor {
  return {
    name: "hitl.plan_approval",
    async afterPlan(run: PlanContext) {
      if (!policy.enabled || !policy.planApproval) return undefined;
      // A further phase's plan: the steps earlier phases completed are kept, so the resume does not run them again.
      const answer = await checkpoint({ type: "plan", run, steps: run.completed ?? [], reason: "the plan waits for approval", sensitive_matches: [] });
      return { action: "pause", answer, waiting: "waiting for approval of the plan" };
    },
  };
}

const sensitiveMatchesOf = (data: unknown): readonly string[] => {
  const matches = (data as { sensitive_matches?: unknown } | undefined)?.sensitive_matches;
  return Array.isArray(matches) ? (matches as string[]) : [];
};

const indirectOf = (data: unknown): IndirectCall | undefined => (data as { indirect?: IndirectCall } | undefined)?.indirect;

/** A run that HITL's step interceptors paused is stored as a checkpoint; the request answers 202. */
export function createCheckpointInterceptor(checkpoint: CheckpointMaker): Interceptor {
  return {
    name: "hitl.checkpoint",
    async afterExecution(run: ExecutionContext) {
      const { interrupt, steps } = run.result;
      if (interrupt === undefined || !interrupt.interceptor.startsWith("hitl.")) return undefined;
      const indirect = indirectOf(interrupt.data);
      const answer = await checkpoint({
        // A step whose callee reached a sensitive capability waits for approval, like a sensitive step; not for a correction.
        type: interrupt.error === undefined || indirect !== undefined ? "step" : "error",
        run,
        interrupt,
        steps,
        reason: interrupt.reason,
        sensitive_matches: sensitiveMatchesOf(interrupt.data),
        ...(indirect === undefined ? {} : { indirect }),
      });
      return { action: "pause", answer };
    },
  };
}

/** HITL's interceptors, in the order they are registered. */
export function createHitlInterceptors(policy: HitlPolicy, checkpoint: CheckpointMaker): Interceptor[] {
  return [
    createCorrectionsInterceptor(),
    createStepGateInterceptor(policy),
    createIndirectGateInterceptor(policy),
    createErrorCheckpointInterceptor(policy),
    createPlanApprovalInterceptor(policy, checkpoint),
    createCheckpointInterceptor(checkpoint),
  ];
}
