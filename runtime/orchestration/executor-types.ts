/**
 * The executor's public types: what a step calls (Target, Resolve), what a run takes (options, gates,
 * parameters) and what it answers (step and run results, interrupts). The executor itself is executor.ts.
 */
import type { ErrorCode, ManifoldError } from "../errors/index.js";
import type { Caller } from "../outbound/index.js";
import type { Logger } from "../telemetry/index.js";
import type { ExpressionSyntax } from "./expressions.js";
import type { Plan, PlanMode, PlanStep } from "./plan.js";
import type { BackoffOptions } from "./retry.js";

/** Where a capability is served: its absolute URL. */
export interface Target {
  readonly url: string;
}

/**
 * Finds the URL of `capability` on `component`. May answer synchronously (a table lookup, the fast
 * path) or asynchronously (discovery). Rejects with a ManifoldError: NOT_FOUND (final) or UNAVAILABLE
 * (retried like any retryable failure).
 */
export type Resolve = (component: string, capability: string) => Target | Promise<Target>;

export type StepStatus = "completed" | "failed" | "skipped";
export type RunStatus = "completed" | "failed" | "interrupted";

export interface StepError {
  readonly code: ErrorCode;
  readonly message: string;
}

export interface StepResult {
  readonly step_id: string;
  readonly component: string;
  readonly capability: string;
  readonly status: StepStatus;
  /** A completed step's output. */
  readonly output?: unknown;
  /** A failed step's last error. */
  readonly error?: StepError;
  /** A skipped step: why it did not run. */
  readonly reason?: string;
  /** A skipped step whose dependency failed or was skipped: that dependency. */
  readonly skipped_because?: string;
  /** Calls made (0 for a skipped step). */
  readonly attempts: number;
  /** From the first attempt's start to the last one's end, waits between attempts included. */
  readonly duration_ms: number;
  /** ISO 8601, when the step started; absent for a skipped step. */
  readonly started_at?: string;
}

/** Why a gate paused a run before a step (human approval): its reason and the policy entries it matched. */
export interface StepInterrupt {
  readonly reason: string;
  readonly sensitive_matches: readonly string[];
}

/** Where a run paused: the step not dispatched (or failed), with its resolved (not templated) parameters. */
export interface RunInterrupt extends StepInterrupt {
  readonly step_id: string;
  readonly index: number;
  readonly parameters: unknown;
  /** Set when the step ran and failed in a way a human can correct (an `error` checkpoint). */
  readonly error?: StepError;
}

export interface ExecutionResult {
  readonly plan_id: string;
  readonly status: RunStatus;
  /** In plan order. */
  readonly steps: readonly StepResult[];
  readonly duration_ms: number;
  /** Set when a gate paused the run (status `interrupted`); absent when it was aborted. */
  readonly interrupt?: RunInterrupt;
}

export interface ExecutorOptions {
  readonly resolve: Resolve;
  readonly caller: Caller;
  /** Most steps running at once. @defaultValue 10 */
  readonly concurrency?: number;
  /** Per-attempt timeout of a step without `timeout_ms`. @defaultValue 30000 */
  readonly defaultTimeoutMs?: number;
  /** Waits between attempts of a step with `retry`. @defaultValue exponential, full jitter, 100 ms base, 5 s cap */
  readonly backoff?: BackoffOptions;
  /** @defaultValue a JSON logger for `orchestration` */
  readonly log?: Logger;
}

export interface ExecuteOptions {
  /** What `${inputs.…}` / `{{input…}}` read. @defaultValue {} */
  readonly inputs?: unknown;
  /** How parameters are read. @defaultValue "dollar" */
  readonly syntax?: ExpressionSyntax;
  /** Aborting it interrupts the run: running steps are aborted, the rest skipped. */
  readonly signal?: AbortSignal;
  /** Overrides the executor's limit for this run (custom mode runs one at a time). */
  readonly concurrency?: number;
  /** For the run span. */
  readonly workflow?: string;
  /**
   * The front end that made the plan, for the run span and metric labels: a custom plan's own mode
   * is `workflow` (as the spec's routing plan says), but its runs are counted as custom. @defaultValue plan.mode
   */
  readonly mode?: PlanMode;
  /** Told after each step that ran finishes (completed or failed), with how many have finished so far. */
  readonly onStep?: (step: StepResult, finished: number, total: number) => void;
  /**
   * Asked before each step is dispatched, with its resolved parameters; an answer pauses the run there
   * (human approval): steps already running finish, nothing else starts, and the result is
   * `interrupted` with `interrupt` set. A resumed run passes a gate that lets the approved step through.
   */
  readonly gate?: (step: PlanStep, parameters: unknown) => StepInterrupt | undefined;
  /** Completed results of an earlier, paused run of this plan: those steps are not run again. */
  readonly completed?: readonly StepResult[];
  /**
   * Asked when a step fails for good; an answer pauses the run there instead (a human may correct the
   * parameters): steps already running finish, nothing else starts, `interrupt.error` says why.
   */
  readonly onFailure?: (step: PlanStep, parameters: unknown, error: ManifoldError) => StepInterrupt | undefined;
  /** Parameters that replace a step's own (a human's correction), by step id. */
  readonly parameters?: ReadonlyMap<string, unknown>;
}

export interface Executor {
  /** Never rejects for a step failure (that is in the result); rejects with INVALID_WORKFLOW for a malformed plan. */
  execute(plan: Plan, options?: ExecuteOptions): Promise<ExecutionResult>;
}
