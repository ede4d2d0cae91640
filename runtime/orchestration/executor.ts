/**
 * The one DAG executor under every front end. Scheduling is dependency-driven: a step starts the
 * moment its own dependencies have completed (never in waves), up to a concurrency limit, in plan
 * order among the steps that are ready. Each step calls its capability through the outbound caller,
 * so tokens, propagated headers, request ids and trace context behave as for any client call.
 */
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { createLogger } from "../telemetry/index.js";
import { ATTR, METRIC, ORCHESTRATION_EVENT, ORCHESTRATION_SPAN } from "../telemetry/index.js";
import { getTelemetry, type SpanTrace } from "../telemetry/index.js";
import { compileCached, type CompiledValue, type ExpressionScope, type ExpressionSyntax } from "./expressions.js";
import type { Plan, PlanStep } from "./plan.js";
import { checkInteger, isThenable, sleep } from "../util/index.js";
import { createBackoff, isRetryable, type Backoff } from "./retry.js";
import type { ExecuteOptions, ExecutionResult, Executor, ExecutorOptions, RunInterrupt, RunStatus, StepResult } from "./executor-types.js";

export type * from "./executor-types.js";

interface Outcome {
  readonly output?: unknown;
  readonly error?: ManifoldError;
  readonly attempts: number;
}

/** Step index lists: who each step waits for, and who waits for it. */
interface Graph {
  readonly index: Map<string, number>;
  readonly waitsFor: number[][];
  readonly dependents: number[][];
  readonly compiled: CompiledValue[];
  /** Dependencies a template reference added that `depends_on` did not list (a planner's plan). */
  readonly included: readonly { readonly step_id: string; readonly referenced_step: string }[];
}

function buildGraph(plan: Plan, syntax: ExpressionSyntax): Graph {
  const { steps } = plan;
  const index = new Map<string, number>();
  steps.forEach((step, i) => {
    if (index.has(step.step_id)) throw new ManifoldError("INVALID_WORKFLOW", `plan ${plan.plan_id} has two steps ${step.step_id}`);
    index.set(step.step_id, i);
  });
  const compiled = steps.map((step, i) => compileCached(step.metadata.parameters, syntax, `/steps/${i}/metadata/parameters`));
  const waitsFor: number[][] = [];
  const dependents: number[][] = steps.map(() => []);
  const included: { step_id: string; referenced_step: string }[] = [];
  steps.forEach((step, i) => {
    const deps = new Set<number>();
    for (const id of step.depends_on) {
      const dep = index.get(id);
      if (dep === undefined) throw new ManifoldError("INVALID_WORKFLOW", `step ${step.step_id} depends on unknown step ${id}`);
      deps.add(dep);
    }
    // A reference to a step is a dependency even when depends_on forgot it (a planner's plan).
    for (const id of compiled[i]!.steps) {
      const dep = index.get(id);
      if (dep === undefined || dep === i || deps.has(dep)) continue;
      deps.add(dep);
      included.push({ step_id: step.step_id, referenced_step: id });
    }
    waitsFor.push([...deps]);
    for (const dep of deps) dependents[dep]!.push(i);
  });
  return { index, waitsFor, dependents, compiled, included };
}

export function createExecutor({
  resolve,
  caller,
  concurrency = 10,
  defaultTimeoutMs = 30_000,
  backoff = {},
  log = createLogger({ component: "orchestration" }),
}: ExecutorOptions): Executor {
  const limit = checkInteger("concurrency", concurrency, { min: 1 });
  if (!Number.isFinite(defaultTimeoutMs) || defaultTimeoutMs <= 0) throw new RangeError("defaultTimeoutMs must be a positive number");
  const wait: Backoff = createBackoff(backoff);

  /** Every attempt of one step; never rejects. */
  const attemptAll = async (plan: Plan, step: PlanStep, body: unknown, signal: AbortSignal): Promise<Outcome> => {
    const {
      agent_name: component,
      metadata: { capability },
    } = step;
    const attempts = 1 + (step.retry ?? 0);
    const timeoutMs = step.timeout_ms ?? defaultTimeoutMs;
    const workflow = { id: plan.plan_id, stepId: step.step_id };
    for (let attempt = 1; ; attempt += 1) {
      try {
        const found = resolve(component, capability);
        const target = isThenable(found) ? await found : found;
        const output = await caller.call({ url: target.url, body, name: capability, target: component, workflow, timeoutMs, signal });
        return { output, attempts: attempt };
      } catch (thrown) {
        if (!(thrown instanceof ManifoldError)) log.error(`step ${step.step_id} (${component}.${capability}) failed unexpectedly`, { error: thrown });
        const error = toManifoldError(thrown);
        if (signal.aborted) return { error: signal.reason instanceof ManifoldError ? signal.reason : error, attempts: attempt };
        if (attempt >= attempts || !isRetryable(error)) return { error, attempts: attempt };
        await sleep(wait(attempt), signal);
        if (signal.aborted) return { error: signal.reason instanceof ManifoldError ? signal.reason : error, attempts: attempt };
      }
    }
  };

  const execute = (plan: Plan, options: ExecuteOptions = {}): Promise<ExecutionResult> => {
    let graph: Graph;
    let max: number;
    try {
      graph = buildGraph(plan, options.syntax ?? "dollar");
      max = options.concurrency === undefined ? limit : checkInteger("concurrency", options.concurrency, { min: 1 });
    } catch (error) {
      return Promise.reject(error);
    }
    return run(plan, graph, max, options);
  };

  const run = (
    plan: Plan,
    graph: Graph,
    max: number,
    { inputs = {}, signal: external, workflow, onStep, mode = plan.mode, gate, completed: earlier = [], onFailure, parameters: corrected }: ExecuteOptions,
  ): Promise<ExecutionResult> => {
    const { steps } = plan;
    const count = steps.length;
    const results: (StepResult | undefined)[] = new Array(count).fill(undefined);
    const outputs: unknown[] = new Array(count);
    const bodies: unknown[] = new Array(count);
    const completed: boolean[] = new Array(count).fill(false);
    const remaining = graph.waitsFor.map((deps) => deps.length);
    for (const result of earlier) {
      const i = graph.index.get(result.step_id);
      if (i === undefined || result.status !== "completed" || completed[i]) continue;
      results[i] = result;
      outputs[i] = result.output;
      completed[i] = true;
      for (const dependent of graph.dependents[i]!) remaining[dependent]! -= 1;
    }
    const ready: number[] = [];
    for (let i = 0; i < count; i += 1) if (remaining[i] === 0 && !completed[i]) ready.push(i);
    const scope: ExpressionScope = {
      inputs,
      output: (id) => {
        const i = graph.index.get(id);
        return i !== undefined && completed[i] ? outputs[i] : undefined;
      },
    };
    const controller = new AbortController();
    const started = performance.now();
    const telemetry = getTelemetry();
    // Events on the request's span (the spec's orchestration events), kept for the end of the run,
    // which a step's completion reaches from inside the step's own span.
    const requestEvent = telemetry.enabled ? telemetry.activeEvents() : undefined;
    requestEvent?.(ORCHESTRATION_EVENT.LIFECYCLE, { stage: "started", plan_id: plan.plan_id, mode, step_count: count });
    for (const inclusion of graph.included) requestEvent?.(ORCHESTRATION_EVENT.DEPENDENCY_INCLUSION, { reason: "undeclared_reference", ...inclusion });
    const runSpan: SpanTrace | undefined = telemetry.enabled
      ? telemetry.startSpan(ORCHESTRATION_SPAN.RUN, {
          parent: "active",
          attributes: { [ATTR.PLAN_ID]: plan.plan_id, [ATTR.ORCHESTRATION_MODE]: mode, [ATTR.WORKFLOW]: workflow },
        })
      : undefined;
    let head = 0;
    let running = 0;
    let ran = 0;
    let status: RunStatus = "completed";
    let stopReason: string | undefined;
    let interrupt: RunInterrupt | undefined;
    let settle: (result: ExecutionResult) => void = () => undefined;
    const done = new Promise<ExecutionResult>((resolve_) => (settle = resolve_));
    let settled = false;

    const stop = (next: RunStatus, reason: string, cause: ManifoldError): void => {
      if (stopReason !== undefined) return;
      status = next;
      stopReason = reason;
      controller.abort(cause);
    };
    const onExternalAbort = (): void => stop("interrupted", "the run was interrupted", new ManifoldError("ABORTED", "the run was interrupted"));
    if (external?.aborted === true) onExternalAbort();
    else external?.addEventListener("abort", onExternalAbort, { once: true });

    const skip = (i: number, because: string, reason: string): void => {
      if (results[i] !== undefined) return;
      const step = steps[i]!;
      results[i] = {
        step_id: step.step_id,
        component: step.agent_name,
        capability: step.metadata.capability,
        status: "skipped",
        reason,
        skipped_because: because,
        attempts: 0,
        duration_ms: 0,
      };
      for (const dependent of graph.dependents[i]!) skip(dependent, step.step_id, `dependency ${step.step_id} was skipped`);
    };

    const finish = (): void => {
      if (settled) return;
      settled = true;
      external?.removeEventListener("abort", onExternalAbort);
      const list = results.map((result, i) => {
        if (result !== undefined) return result;
        const step = steps[i]!;
        // Never started: the run stopped first (or, in a plan the checks let through, a cycle).
        return {
          step_id: step.step_id,
          component: step.agent_name,
          capability: step.metadata.capability,
          status: "skipped",
          reason: stopReason ?? "its dependencies never completed",
          attempts: 0,
          duration_ms: 0,
        } satisfies StepResult;
      });
      const duration = performance.now() - started;
      if (telemetry.enabled) {
        runSpan?.end(status === "completed" || interrupt !== undefined ? undefined : status === "interrupted" ? "ABORTED" : "WORKFLOW_FAILED");
        requestEvent?.(ORCHESTRATION_EVENT.LIFECYCLE, { stage: "finished", plan_id: plan.plan_id, mode, status, duration_ms: round(duration) });
        const labels = { [ATTR.ORCHESTRATION_MODE]: mode, [ATTR.ORCHESTRATION_STATUS]: status };
        telemetry.metrics.counter(METRIC.ORCHESTRATION_RUNS, 1, labels);
        telemetry.metrics.histogram(METRIC.ORCHESTRATION_RUN_DURATION, duration, labels);
      }
      settle({ plan_id: plan.plan_id, status, steps: list, duration_ms: round(duration), ...(interrupt && { interrupt }) });
    };

    const onStepDone = (i: number, outcome: Outcome, startedAt: number, startedIso: string, span: SpanTrace | undefined): void => {
      running -= 1;
      const step = steps[i]!;
      const duration = performance.now() - startedAt;
      const base = {
        step_id: step.step_id,
        component: step.agent_name,
        capability: step.metadata.capability,
        attempts: outcome.attempts,
        duration_ms: round(duration),
        started_at: startedIso,
      };
      if (outcome.error === undefined) {
        outputs[i] = outcome.output;
        completed[i] = true;
        results[i] = { ...base, status: "completed", output: outcome.output };
        for (const dependent of graph.dependents[i]!) {
          remaining[dependent]! -= 1;
          if (remaining[dependent] === 0 && results[dependent] === undefined && stopReason === undefined) ready.push(dependent);
        }
      } else {
        const error = { code: outcome.error.code, message: outcome.error.expose ? outcome.error.message : "internal error" };
        results[i] = { ...base, status: "failed", error };
        const paused = stopReason === undefined && !controller.signal.aborted ? onFailure?.(step, bodies[i], outcome.error) : undefined;
        if (paused !== undefined) {
          status = "interrupted";
          stopReason = `waiting for a human to correct step ${step.step_id}`;
          interrupt = { step_id: step.step_id, index: i, parameters: bodies[i], reason: paused.reason, sensitive_matches: paused.sensitive_matches, error };
        } else if (stopReason === undefined) {
          if (step.on_error === "fail")
            stop("failed", `the run failed at step ${step.step_id}`, new ManifoldError("ABORTED", `aborted: the run failed at step ${step.step_id}`));
          else for (const dependent of graph.dependents[i]!) skip(dependent, step.step_id, `dependency ${step.step_id} failed`);
        }
      }
      ran += 1;
      if (onStep !== undefined) {
        try {
          onStep(results[i]!, ran, count);
        } catch (error) {
          log.warn(`onStep listener failed after step ${step.step_id}`, { error });
        }
      }
      if (telemetry.enabled) {
        span?.end(outcome.error?.code);
        const labels = {
          [ATTR.TARGET]: step.agent_name,
          [ATTR.CAPABILITY]: step.metadata.capability,
          [ATTR.OUTCOME]: outcome.error === undefined ? "success" : "error",
          [ATTR.ERROR_CODE]: outcome.error?.code,
        };
        telemetry.metrics.histogram(METRIC.ORCHESTRATION_STEP_DURATION, duration, labels);
      }
      pump();
    };

    const start = (i: number): void => {
      running += 1;
      const step = steps[i]!;
      const startedAt = performance.now();
      const startedIso = new Date().toISOString();
      let body: unknown;
      try {
        body = corrected?.has(step.step_id) ? corrected.get(step.step_id) : graph.compiled[i]!.evaluate(scope);
        bodies[i] = body;
      } catch (error) {
        log.error(`step ${step.step_id}: its parameters could not be resolved`, { error });
        queueMicrotask(() => onStepDone(i, { error: toManifoldError(error), attempts: 0 }, startedAt, startedIso, undefined));
        return;
      }
      const paused = gate?.(step, body);
      if (paused !== undefined) {
        // Not dispatched: the run pauses here. Nothing is aborted; pump starts nothing more.
        running -= 1;
        status = "interrupted";
        stopReason = `waiting for approval of step ${step.step_id}`;
        interrupt = { step_id: step.step_id, index: i, parameters: body, reason: paused.reason, sensitive_matches: paused.sensitive_matches };
        return;
      }
      const span = telemetry.enabled
        ? telemetry.startSpan(ORCHESTRATION_SPAN.STEP, {
            parent: "active",
            attributes: {
              [ATTR.PLAN_ID]: plan.plan_id,
              [ATTR.STEP_ID]: step.step_id,
              [ATTR.TARGET]: step.agent_name,
              [ATTR.CAPABILITY]: step.metadata.capability,
            },
          })
        : undefined;
      const attempt = (): Promise<Outcome> => attemptAll(plan, step, body, controller.signal);
      void (span === undefined ? attempt() : span.run(attempt)).then((outcome) => onStepDone(i, outcome, startedAt, startedIso, span));
    };

    const pump = (): void => {
      while (stopReason === undefined && running < max && head < ready.length) {
        const i = ready[head++]!;
        if (results[i] !== undefined) continue;
        if (runSpan === undefined) start(i);
        else runSpan.run(() => start(i));
      }
      if (running === 0 && (stopReason !== undefined || head >= ready.length)) finish();
    };

    pump();
    return done;
  };

  return { execute };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
