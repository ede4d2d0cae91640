/**
 * The step pipeline of a run (over executor-run.ts's `Run`): `pumpRun` starts ready steps up to the
 * limit; a step is resolved, asked of the before-step interceptors, dispatched, asked of the
 * after-step interceptors (which may send it round again), and ended, which releases or skips its
 * dependents and pumps again. Everything here is synchronous while the interceptors answer
 * synchronously, so a plain run awaits nothing but its calls.
 */
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { ATTR, METRIC, ORCHESTRATION_SPAN } from "../telemetry/index.js";
import { isThenable } from "../util/index.js";
import {
  announceRun,
  createRun,
  finishRun,
  pauseRun,
  restoreEarlier,
  round,
  skipStep,
  stopRun,
  type Outcome,
  type Run,
  type RunSetup,
} from "./executor-run.js";
import type { ExecutionResult, StepError } from "./executor-types.js";
import { afterStep, beforeStep, type AfterStepDecision, type Answered, type BeforeStepDecision, type StepContext, type StepPause } from "./interceptors.js";

/** Starts a run; resolves with its result once nothing runs and nothing more will start. */
export function startRun(setup: RunSetup): Promise<ExecutionResult> {
  const run = createRun(setup);
  const done = new Promise<ExecutionResult>((resolve) => (run.settle = resolve));
  restoreEarlier(run, setup.options.completed ?? []);
  for (let i = 0; i < run.steps.length; i += 1) if (run.remaining[i] === 0 && !run.completed[i]) run.ready.push(i);
  announceRun(run);
  const external = setup.options.signal;
  if (external?.aborted === true) run.onExternalAbort();
  else external?.addEventListener("abort", run.onExternalAbort, { once: true });
  pumpRun(run);
  return done;
}

export function pumpRun(run: Run): void {
  while (run.stopReason === undefined && run.running < run.setup.max && run.head < run.ready.length) {
    const i = run.ready[run.head++]!;
    if (run.results[i] !== undefined) continue;
    if (run.runSpan === undefined) startStep(run, i);
    else run.runSpan.run(() => startStep(run, i));
  }
  if (run.running === 0 && (run.stopReason !== undefined || run.head >= run.ready.length)) finishRun(run);
}

function startStep(run: Run, i: number): void {
  run.running += 1;
  const step = run.steps[i]!;
  run.tracks[i] = { startedAt: performance.now(), startedIso: new Date().toISOString(), attempts: 0, round: 0, span: undefined };
  let parameters: unknown;
  try {
    parameters = run.setup.graph.compiled[i]!.evaluate(run.scope);
  } catch (error) {
    run.setup.log.error(`step ${step.step_id}: its parameters could not be resolved`, { error });
    queueMicrotask(() => askAfter(run, i, { error: toManifoldError(error), attempts: 0 }));
    return;
  }
  askBefore(run, i, parameters, true);
}

function stepContext(run: Run, i: number, parameters: unknown): StepContext {
  return {
    plan: run.plan,
    step: run.steps[i]!,
    index: i,
    mode: run.mode,
    parameters,
    round: run.tracks[i]!.round,
    signal: run.controller.signal,
    state: run.setup.options.state ?? {},
    outputOf: run.scope.output,
  };
}

/** The before-step chain, then dispatch; `inPump` while called from `pumpRun`'s loop (which goes on by itself). */
function askBefore(run: Run, i: number, parameters: unknown, inPump: boolean): void {
  run.bodies[i] = parameters;
  const { before } = run.setup;
  if (before.length === 0) {
    dispatchStep(run, i, parameters);
    return;
  }
  let answered: ReturnType<typeof beforeStep>;
  try {
    answered = beforeStep(before, stepContext(run, i, parameters));
  } catch (error) {
    interceptorFailed(run, i, error);
    return;
  }
  if (isThenable(answered))
    answered.then(
      (answer) => applyBefore(run, i, answer, false),
      (error: unknown) => interceptorFailed(run, i, error),
    );
  else applyBefore(run, i, answered, inPump);
}

function applyBefore(run: Run, i: number, answered: Answered<BeforeStepDecision> & { context: StepContext }, inPump: boolean): void {
  const { decision, context } = answered;
  run.bodies[i] = context.parameters;
  if (decision.action === "pause") {
    run.running -= 1;
    pauseRun(run, i, { decision, ...(answered.by === undefined ? {} : { by: answered.by }) });
    if (!inPump) pumpRun(run);
  } else if (decision.action === "fail") {
    // Like a step whose parameters could not be resolved: it ends with the error, after-step interceptors asked.
    queueMicrotask(() => askAfter(run, i, { error: decision.error, attempts: 0 }));
  } else dispatchStep(run, i, context.parameters);
}

/** An interceptor that throws (a bug) fails the step, never the executor. */
function interceptorFailed(run: Run, i: number, error: unknown): void {
  run.setup.log.error(`an interceptor failed at step ${run.steps[i]!.step_id}`, { error });
  queueMicrotask(() => endStep(run, i, { error: toManifoldError(error), attempts: 0 }));
}

function dispatchStep(run: Run, i: number, parameters: unknown): void {
  const { plan, telemetry } = run;
  const step = run.steps[i]!;
  const track = run.tracks[i]!;
  if (telemetry.enabled)
    track.span ??= telemetry.startSpan(ORCHESTRATION_SPAN.STEP, {
      parent: "active",
      attributes: { [ATTR.PLAN_ID]: plan.plan_id, [ATTR.STEP_ID]: step.step_id, [ATTR.TARGET]: step.agent_name, [ATTR.CAPABILITY]: step.metadata.capability },
    });
  const attempt = (): Promise<Outcome> => run.setup.attempt(plan, step, parameters, run.controller.signal);
  const { span } = track;
  void (span === undefined ? attempt() : span.run(attempt)).then((outcome) => askAfter(run, i, outcome));
}

/** The after-step chain, unless the run is stopping (the outcome is then the stop's, not the step's). */
function askAfter(run: Run, i: number, outcome: Outcome): void {
  const track = run.tracks[i]!;
  track.attempts += outcome.attempts;
  const { after } = run.setup;
  if (run.stopReason !== undefined || run.controller.signal.aborted || after.length === 0) {
    endStep(run, i, outcome);
    return;
  }
  let answered: ReturnType<typeof afterStep>;
  try {
    const context = { ...stepContext(run, i, run.bodies[i]), attempts: outcome.attempts };
    answered = afterStep(after, { ...context, ...(outcome.error === undefined ? { output: outcome.output } : { error: outcome.error }) });
  } catch (error) {
    interceptorFailed(run, i, error);
    return;
  }
  if (isThenable(answered))
    answered.then(
      (answer) => applyAfter(run, i, outcome, answer),
      (error: unknown) => interceptorFailed(run, i, error),
    );
  else applyAfter(run, i, outcome, answered);
}

function applyAfter(run: Run, i: number, outcome: Outcome, answered: Answered<AfterStepDecision>): void {
  const { decision } = answered;
  if (decision.action === "retry") {
    notifyRound(run, i, outcome, answered.by ?? "");
    run.tracks[i]!.round += 1;
    askBefore(run, i, decision.parameters, false);
  } else if (decision.action === "pause") endStep(run, i, outcome, { decision, ...(answered.by === undefined ? {} : { by: answered.by }) });
  else if (decision.action === "fail") endStep(run, i, { error: decision.error, attempts: outcome.attempts });
  else endStep(run, i, outcome);
}

const stepError = (error: ManifoldError): StepError => ({ code: error.code, message: error.expose ? error.message : "internal error" });

/** The step's result is final: record it, release or skip its dependents, pause or stop the run, start what is ready. */
function endStep(run: Run, i: number, outcome: Outcome, paused?: Answered<StepPause>): void {
  run.running -= 1;
  const step = run.steps[i]!;
  const track = run.tracks[i]!;
  const duration = performance.now() - track.startedAt;
  const base = {
    step_id: step.step_id,
    component: step.agent_name,
    capability: step.metadata.capability,
    attempts: track.attempts,
    duration_ms: round(duration),
    started_at: track.startedIso,
  };
  const { graph } = run.setup;
  if (outcome.error === undefined) {
    run.outputs[i] = outcome.output;
    run.completed[i] = true;
    run.results[i] = { ...base, status: "completed", output: outcome.output };
    for (const dependent of graph.dependents[i]!) {
      run.remaining[dependent]! -= 1;
      if (run.remaining[dependent] === 0 && run.results[dependent] === undefined && run.stopReason === undefined) run.ready.push(dependent);
    }
    if (paused !== undefined) pauseRun(run, i, paused);
  } else {
    const error = stepError(outcome.error);
    run.results[i] = { ...base, status: "failed", error };
    if (paused !== undefined) pauseRun(run, i, paused, error);
    else if (run.stopReason === undefined) {
      if (step.on_error === "fail")
        stopRun(run, "failed", `the run failed at step ${step.step_id}`, new ManifoldError("ABORTED", `aborted: the run failed at step ${step.step_id}`));
      else for (const dependent of graph.dependents[i]!) skipStep(run, dependent, step.step_id, `dependency ${step.step_id} failed`);
    }
  }
  run.ran += 1;
  notifyRound(run, i, outcome);
  notifyStep(run, i);
  stepTelemetry(run, i, outcome, duration);
  pumpRun(run);
}

/** A round of step `i` ended: with `retriedBy` when an interceptor sends it round again, else as the step's last. */
function notifyRound(run: Run, i: number, outcome: Outcome, retriedBy?: string): void {
  const { onRound } = run.setup.options;
  if (onRound === undefined) return;
  const parameters = run.bodies[i];
  try {
    onRound({
      step_id: run.steps[i]!.step_id,
      round: run.tracks[i]!.round,
      ...(parameters === undefined ? {} : { parameters }),
      attempts: outcome.attempts,
      status: outcome.error === undefined ? "completed" : "failed",
      ...(outcome.error === undefined ? {} : { error: stepError(outcome.error) }),
      ...(retriedBy === undefined ? {} : { retried_by: retriedBy }),
    });
  } catch (error) {
    run.setup.log.warn(`onRound listener failed after step ${run.steps[i]!.step_id}`, { error });
  }
}

function notifyStep(run: Run, i: number): void {
  const { onStep } = run.setup.options;
  if (onStep === undefined) return;
  try {
    onStep(run.results[i]!, run.ran, run.steps.length);
  } catch (error) {
    run.setup.log.warn(`onStep listener failed after step ${run.steps[i]!.step_id}`, { error });
  }
}

function stepTelemetry(run: Run, i: number, outcome: Outcome, duration: number): void {
  if (!run.telemetry.enabled) return;
  const step = run.steps[i]!;
  run.tracks[i]!.span?.end(outcome.error?.code);
  const labels = {
    [ATTR.TARGET]: step.agent_name,
    [ATTR.CAPABILITY]: step.metadata.capability,
    [ATTR.OUTCOME]: outcome.error === undefined ? "success" : "error",
    [ATTR.ERROR_CODE]: outcome.error?.code,
  };
  run.telemetry.metrics.histogram(METRIC.ORCHESTRATION_STEP_DURATION, duration, labels);
}
