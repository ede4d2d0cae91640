/**
 * One run of the executor as an explicit state object, `Run`, and the transitions that are not about
 * a single step: creating it, restoring a resumed run's completed steps, stopping, pausing at a step,
 * skipping dependents, and settling the result. The step pipeline is executor-steps.ts.
 */
import { ManifoldError } from "../errors/index.js";
import { ATTR, METRIC, ORCHESTRATION_EVENT, ORCHESTRATION_SPAN, getTelemetry, type Logger, type SpanTrace } from "../telemetry/index.js";
import type { ExecuteOptions, ExecutionResult, RunInterrupt, RunStatus, StepError, StepResult } from "./executor-types.js";
import type { ExpressionScope } from "./expressions.js";
import type { Graph } from "./graph.js";
import type { Answered, StepInterceptor, StepPause } from "./interceptors.js";
import type { Plan, PlanMode, PlanStep } from "./plan.js";

/** What a step's attempts came to. */
export interface Outcome {
  readonly output?: unknown;
  readonly error?: ManifoldError;
  readonly attempts: number;
}

/** Every attempt of one step with these parameters; never rejects. */
export type Attempt = (plan: Plan, step: PlanStep, body: unknown, signal: AbortSignal) => Promise<Outcome>;

export interface RunSetup {
  readonly plan: Plan;
  readonly graph: Graph;
  /** Most steps running at once. */
  readonly max: number;
  readonly options: ExecuteOptions;
  /** The run's interceptors (the executor's, then the run's own) that have a `beforeStep`, in order. */
  readonly before: readonly StepInterceptor[];
  /** Those that have an `afterStep`, in order: the chains skip the others, which would only pass. */
  readonly after: readonly StepInterceptor[];
  readonly attempt: Attempt;
  readonly log: Logger;
}

/** One step across its rounds (an after-step `retry` sends it round again). */
export interface StepTrack {
  readonly startedAt: number;
  readonly startedIso: string;
  attempts: number;
  round: number;
  span: SpanTrace | undefined;
}

type Telemetry = ReturnType<typeof getTelemetry>;

export interface Run {
  readonly setup: RunSetup;
  readonly plan: Plan;
  readonly steps: readonly PlanStep[];
  readonly mode: PlanMode;
  readonly results: (StepResult | undefined)[];
  readonly outputs: unknown[];
  /** The parameters each step was (or would have been) called with. */
  readonly bodies: unknown[];
  readonly completed: boolean[];
  /** Dependencies each step still waits for. */
  readonly remaining: number[];
  /** Steps whose dependencies completed, in the order they became ready; `head` is the next to start. */
  readonly ready: number[];
  readonly tracks: (StepTrack | undefined)[];
  readonly scope: ExpressionScope;
  readonly controller: AbortController;
  readonly started: number;
  readonly telemetry: Telemetry;
  /** Events on the request's span, kept for the end of the run (reached from inside a step's span). */
  readonly requestEvent: ReturnType<Telemetry["activeEvents"]> | undefined;
  runSpan: SpanTrace | undefined;
  head: number;
  running: number;
  ran: number;
  status: RunStatus;
  stopReason: string | undefined;
  interrupt: RunInterrupt | undefined;
  settled: boolean;
  settle: (result: ExecutionResult) => void;
  readonly onExternalAbort: () => void;
}

export function createRun(setup: RunSetup): Run {
  const { plan, graph, options } = setup;
  const count = plan.steps.length;
  const completed: boolean[] = new Array(count).fill(false);
  const outputs: unknown[] = new Array(count);
  const telemetry = getTelemetry();
  const run: Run = {
    setup,
    plan,
    steps: plan.steps,
    mode: options.mode ?? plan.mode,
    results: new Array(count).fill(undefined),
    outputs,
    bodies: new Array(count),
    completed,
    remaining: graph.waitsFor.map((deps) => deps.length),
    ready: [],
    tracks: new Array(count).fill(undefined),
    scope: {
      inputs: options.inputs ?? {},
      output: (id) => {
        const i = graph.index.get(id);
        return i !== undefined && completed[i] ? outputs[i] : undefined;
      },
    },
    controller: new AbortController(),
    started: performance.now(),
    telemetry,
    requestEvent: telemetry.enabled ? telemetry.activeEvents() : undefined,
    runSpan: undefined,
    head: 0,
    running: 0,
    ran: 0,
    status: "completed",
    stopReason: undefined,
    interrupt: undefined,
    settled: false,
    settle: () => undefined,
    onExternalAbort: () => stopRun(run, "interrupted", "the run was interrupted", new ManifoldError("ABORTED", "the run was interrupted")),
  };
  return run;
}

/** A resumed run: the completed results of its earlier run are kept, and their dependents released. */
export function restoreEarlier(run: Run, earlier: readonly StepResult[]): void {
  const { graph } = run.setup;
  for (const result of earlier) {
    const i = graph.index.get(result.step_id);
    if (i === undefined || result.status !== "completed" || run.completed[i]) continue;
    run.results[i] = result;
    run.outputs[i] = result.output;
    run.completed[i] = true;
    for (const dependent of graph.dependents[i]!) run.remaining[dependent]! -= 1;
  }
}

export function announceRun(run: Run): void {
  const { plan, mode, telemetry } = run;
  run.requestEvent?.(ORCHESTRATION_EVENT.LIFECYCLE, { stage: "started", plan_id: plan.plan_id, mode, step_count: plan.steps.length });
  for (const inclusion of run.setup.graph.included)
    run.requestEvent?.(ORCHESTRATION_EVENT.DEPENDENCY_INCLUSION, { reason: "undeclared_reference", ...inclusion });
  if (!telemetry.enabled) return;
  run.runSpan = telemetry.startSpan(ORCHESTRATION_SPAN.RUN, {
    parent: "active",
    attributes: { [ATTR.PLAN_ID]: plan.plan_id, [ATTR.ORCHESTRATION_MODE]: mode, [ATTR.WORKFLOW]: run.setup.options.workflow },
  });
}

export function stopRun(run: Run, status: RunStatus, reason: string, cause: ManifoldError): void {
  if (run.stopReason !== undefined) return;
  run.status = status;
  run.stopReason = reason;
  run.controller.abort(cause);
}

/** The run waits at step `i`: nothing is aborted (running steps finish), nothing more starts. The first stop wins. */
export function pauseRun(run: Run, i: number, { decision, by = "unknown" }: Answered<StepPause>, error?: StepError): void {
  if (run.stopReason !== undefined) return;
  const step = run.steps[i]!;
  run.status = "interrupted";
  run.stopReason = decision.waiting ?? `paused at step ${step.step_id}`;
  run.interrupt = {
    step_id: step.step_id,
    index: i,
    parameters: run.bodies[i],
    reason: decision.reason,
    interceptor: by,
    ...(decision.data === undefined ? {} : { data: decision.data }),
    ...(error && { error }),
  };
}

/** A step that did not run: the one shape for a skipped step (`because`: the step whose skip or failure skipped it). */
export function skippedResult(step: PlanStep, reason: string, because?: string): StepResult {
  return {
    step_id: step.step_id,
    component: step.agent_name,
    capability: step.metadata.capability,
    status: "skipped",
    reason,
    ...(because === undefined ? {} : { skipped_because: because }),
    attempts: 0,
    duration_ms: 0,
  };
}

export function skipStep(run: Run, i: number, because: string, reason: string): void {
  if (run.results[i] !== undefined) return;
  const step = run.steps[i]!;
  run.results[i] = skippedResult(step, reason, because);
  for (const dependent of run.setup.graph.dependents[i]!) skipStep(run, dependent, step.step_id, `dependency ${step.step_id} was skipped`);
}

/** A step that never started: the run stopped first (or, in a plan the checks let through, a cycle). */
function neverStarted(run: Run, i: number): StepResult {
  return skippedResult(run.steps[i]!, run.stopReason ?? "its dependencies never completed");
}

export function finishRun(run: Run): void {
  if (run.settled) return;
  run.settled = true;
  run.setup.options.signal?.removeEventListener("abort", run.onExternalAbort);
  const steps = run.results.map((result, i) => result ?? neverStarted(run, i));
  const duration = performance.now() - run.started;
  const { plan, mode, status, interrupt, telemetry } = run;
  if (telemetry.enabled) {
    run.runSpan?.end(status === "completed" || interrupt !== undefined ? undefined : status === "interrupted" ? "ABORTED" : "WORKFLOW_FAILED");
    run.requestEvent?.(ORCHESTRATION_EVENT.LIFECYCLE, { stage: "finished", plan_id: plan.plan_id, mode, status, duration_ms: round(duration) });
    const labels = { [ATTR.ORCHESTRATION_MODE]: mode, [ATTR.ORCHESTRATION_STATUS]: status };
    telemetry.metrics.counter(METRIC.ORCHESTRATION_RUNS, 1, labels);
    telemetry.metrics.histogram(METRIC.ORCHESTRATION_RUN_DURATION, duration, labels);
  }
  run.settle({ plan_id: plan.plan_id, status, steps, duration_ms: round(duration), ...(interrupt && { interrupt }) });
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
