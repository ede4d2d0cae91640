/**
 * The executor's public types: what a step calls (Target, Resolve), what a run takes (options,
 * interceptors) and what it answers (step and run results, interrupts). The executor itself is executor.ts.
 */
import type { ErrorCode } from "../errors/index.js";
import type { Caller } from "../outbound/index.js";
import type { Logger } from "../telemetry/index.js";
import type { ExpressionSyntax } from "./expressions.js";
import type { InterceptorState, StepInterceptor } from "./interceptors.js";
import type { Plan, PlanMode } from "./plan.js";
import type { BackoffOptions } from "./retry.js";

/** What a call through `Target.invoke` gets beside the step's body. */
export interface InvokeOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The run and step, for messages and spans. */
  readonly workflow: { readonly id: string; readonly stepId: string };
}

/**
 * Where a capability is served: its absolute URL, called over HTTP by the outbound caller. A target
 * that sets `invoke` is reached another way (an external MCP server's tool): the executor calls it
 * instead, and `url` only names it in messages (`mcp://<component>/<tool>`). `invoke` rejects with a
 * ManifoldError exactly as the caller does (NETWORK_ERROR and TIMEOUT are retryable).
 */
export interface Target {
  readonly url: string;
  readonly invoke?: (body: unknown, options: InvokeOptions) => Promise<unknown>;
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

/**
 * One round of a step: the parameters it was called with and how it ended. A step has one round
 * unless an after-step interceptor answered `retry` (a semantic retry: corrected parameters), which
 * sends it round again; the executor's own retries of a retryable failure are `attempts` of a round.
 */
export interface StepRound {
  readonly step_id: string;
  /** 0 for the first. */
  readonly round: number;
  /** What the step was (or would have been) called with in this round; absent when they could not be resolved. */
  readonly parameters?: unknown;
  /** Calls made in this round (0: not dispatched). */
  readonly attempts: number;
  readonly status: "completed" | "failed";
  readonly error?: StepError;
  /** The interceptor that sent the step round again after this round, when one did. */
  readonly retried_by?: string;
}

/** Where a run paused (an interceptor's `pause`): the step not dispatched, or the one that ended, with its resolved parameters. */
export interface RunInterrupt {
  readonly step_id: string;
  readonly index: number;
  readonly parameters: unknown;
  /** The pause's reason. */
  readonly reason: string;
  /** The interceptor that paused the run. */
  readonly interceptor: string;
  /** What that interceptor added (HITL: the policy entries a sensitive step matched). */
  readonly data?: unknown;
  /** Set when the step ran and failed, and an `afterStep` paused the run on it. */
  readonly error?: StepError;
}

export interface ExecutionResult {
  readonly plan_id: string;
  readonly status: RunStatus;
  /** In plan order. */
  readonly steps: readonly StepResult[];
  readonly duration_ms: number;
  /** Set when an interceptor paused the run (status `interrupted`); absent when it was aborted. */
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
  /** Asked around every step of every run, in order, before the run's own. @defaultValue none */
  readonly interceptors?: readonly StepInterceptor[];
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
  /** Told when each round of a step ends (execution records keep what was sent), before `onStep` for the last. */
  readonly onRound?: (round: StepRound) => void;
  /** Completed results of an earlier, paused run of this plan: those steps are not run again. */
  readonly completed?: readonly StepResult[];
  /** Asked around each step of this run, after the executor's own. */
  readonly interceptors?: readonly StepInterceptor[];
  /** Handed to the interceptors (a resumed run's state, by feature). @defaultValue {} */
  readonly state?: InterceptorState;
}

export interface Executor {
  /** Never rejects for a step failure (that is in the result); rejects with INVALID_WORKFLOW for a malformed plan. */
  execute(plan: Plan, options?: ExecuteOptions): Promise<ExecutionResult>;
}
