/**
 * The seam human approval (`runtime/hitl/`) plugs into. The orchestrator knows nothing of checkpoints:
 * it asks `Approvals` for a gate before running a plan, and when the run pauses it hands the paused
 * run over and answers with whatever `pause` resolves to (the HITL feature's 202 body). A resumed
 * run comes back through `RunOptions.resume` with the plan and the steps already done.
 */
import type { ManifoldError } from "../errors/index.js";
import type { ExecutionResult, StepInterrupt, StepResult } from "./executor.js";
import type { Plan, PlanMode, PlanStep } from "./plan.js";

/** How the request that paused is being answered: a checkpoint made during a stream is for its client only. */
export type RequestMode = "streaming" | "non_streaming";

/** Who asked, for the checkpoint (chat sets it; the session a resume continues). */
export interface ApprovalContext {
  readonly request_mode: RequestMode;
  readonly user_context?: { readonly conversation_id?: string; readonly session_id?: string };
}

/** A run that stopped for a human: everything a checkpoint needs to continue it later. */
export interface PausedRun {
  /** `plan`: before the first step; `step`: before a sensitive step; `error`: after a step a human can correct failed. */
  readonly type: "plan" | "step" | "error";
  readonly mode: PlanMode;
  readonly workflow?: string;
  /** The inputs (workflows), the body (custom) or the request text (natural), as the front end took it. */
  readonly request: unknown;
  /** Whether the request asked for a synthesis (`ai_synthesis`), so the resumed run answers the same way. */
  readonly synthesise: boolean;
  readonly plan: Plan;
  /** The run so far; `interrupt` says where it stopped (absent for a plan checkpoint). */
  readonly result: ExecutionResult;
  readonly reason: string;
  readonly sensitive_matches: readonly string[];
  readonly context: ApprovalContext;
}

export type StepGate = (step: PlanStep, parameters: unknown) => StepInterrupt | undefined;

export interface Approvals {
  /** Whether this mode's plans wait for approval before their first step. */
  planApproval(mode: PlanMode): boolean;
  /** The gate for a run; `approved` holds the step ids a human already let through. */
  gate(mode: PlanMode, approved: ReadonlySet<string>): StepGate | undefined;
  /** Whether a failed step pauses the run for a human's correction (an `error` checkpoint). */
  onFailure(mode: PlanMode): ((step: PlanStep, parameters: unknown, error: ManifoldError) => StepInterrupt | undefined) | undefined;
  /** Stores the paused run (a checkpoint) and resolves to what the request answers. */
  pause(paused: PausedRun): Promise<unknown>;
}

/** A paused run coming back: its plan as it was, and what it had done. */
export interface ResumeRun {
  readonly plan: Plan;
  readonly completed: readonly StepResult[];
  /** Steps a human approved (the blocked one, and any approved before it). */
  readonly approved: readonly string[];
  /** The plan itself was approved: do not ask again. */
  readonly planApproved: boolean;
  /** Parameters a human corrected, by step id: they replace the step's own. */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** A plan waiting for approval: nothing ran, every step is waiting. */
export function planWaiting(plan: Plan): ExecutionResult {
  return {
    plan_id: plan.plan_id,
    status: "interrupted",
    steps: plan.steps.map((step) => ({
      step_id: step.step_id,
      component: step.agent_name,
      capability: step.metadata.capability,
      status: "skipped",
      reason: "waiting for approval of the plan",
      attempts: 0,
      duration_ms: 0,
    })),
    duration_ms: 0,
  };
}
