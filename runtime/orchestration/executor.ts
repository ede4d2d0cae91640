/**
 * The one DAG executor under every front end. Scheduling is dependency-driven: a step starts the
 * moment its own dependencies have completed (never in waves), up to a concurrency limit, in plan
 * order among the steps that are ready. Each step calls its capability through the outbound caller,
 * so tokens, propagated headers, request ids and trace context behave as for any client call.
 * Whatever wraps a step (approval, recovery) is an interceptor (interceptors.ts), never a branch here;
 * one run's state machine is executor-run.ts and executor-steps.ts.
 */
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import type { Caller } from "../outbound/index.js";
import type { Plan, PlanStep } from "./plan.js";
import { checkInteger, isThenable, sleep } from "../util/index.js";
import { createBackoff, isRetryable, type Backoff } from "./retry.js";
import { checkInterceptors } from "./interceptors.js";
import type { Attempt, Outcome } from "./executor-run.js";
import { startRun } from "./executor-steps.js";
import { buildGraph } from "./graph.js";
import type { ExecuteOptions, ExecutionResult, Executor, ExecutorOptions, Resolve } from "./executor-types.js";

export type * from "./executor-types.js";

interface AttemptOptions {
  readonly resolve: Resolve;
  readonly caller: Caller;
  readonly defaultTimeoutMs: number;
  readonly wait: Backoff;
  readonly log: Logger;
}

const abortCause = (signal: AbortSignal, error: ManifoldError): ManifoldError => (signal.reason instanceof ManifoldError ? signal.reason : error);

/** Connection failures that mean the request never reached the component (nothing was sent to a handler). */
const UNSENT_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);
/** A step's final error when none of its attempts reached the component (set by createAttempt). */
const neverSent = new WeakSet<ManifoldError>();

/**
 * Whether a step's error says that none of its attempts reached the component: its target could not
 * be resolved, or every connection was refused. HITL uses it to give an approval back when a resumed
 * run failed before the approved step ran; anything else (a timeout, a reset, an answer) counts as sent.
 */
export function wasNeverSent(error: unknown): boolean {
  return error instanceof ManifoldError && neverSent.has(error);
}

function systemCodeOf(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; typeof at === "object" && at !== null && depth < 4; at = (at as { cause?: unknown }).cause, depth += 1) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}

/** Every attempt of one step (its own `retry`, for retryable failures); never rejects. */
export function createAttempt({ resolve, caller, defaultTimeoutMs, wait, log }: AttemptOptions): Attempt {
  return async (plan: Plan, step: PlanStep, body: unknown, signal: AbortSignal): Promise<Outcome> => {
    const {
      agent_name: component,
      metadata: { capability },
    } = step;
    const attempts = 1 + (step.retry ?? 0);
    const timeoutMs = step.timeout_ms ?? defaultTimeoutMs;
    const workflow = { id: plan.plan_id, stepId: step.step_id };
    let sent = false;
    const ended = (error: ManifoldError, attempt: number): Outcome => {
      if (!sent) neverSent.add(error);
      return { error, attempts: attempt };
    };
    for (let attempt = 1; ; attempt += 1) {
      let calling = false;
      try {
        const found = resolve(component, capability);
        const target = isThenable(found) ? await found : found;
        calling = true;
        const output =
          target.invoke === undefined
            ? await caller.call({ url: target.url, body, name: capability, target: component, workflow, timeoutMs, signal })
            : await target.invoke(body, { signal, timeoutMs, workflow });
        return { output, attempts: attempt };
      } catch (thrown) {
        if (!(thrown instanceof ManifoldError)) log.error(`step ${step.step_id} (${component}.${capability}) failed unexpectedly`, { error: thrown });
        const error = toManifoldError(thrown);
        if (calling && !(error.code === "NETWORK_ERROR" && UNSENT_CODES.has(systemCodeOf(error) ?? ""))) sent = true;
        // An abort's cause may be one error shared by every step of the run: never marked.
        if (signal.aborted) return { error: abortCause(signal, error), attempts: attempt };
        if (attempt >= attempts || !isRetryable(error)) return ended(error, attempt);
        await sleep(wait(attempt), signal);
        if (signal.aborted) return { error: abortCause(signal, error), attempts: attempt };
      }
    }
  };
}

export function createExecutor({
  resolve,
  caller,
  concurrency = 10,
  defaultTimeoutMs = 30_000,
  backoff = {},
  log = createLogger({ component: "orchestration" }),
  interceptors = [],
}: ExecutorOptions): Executor {
  const limit = checkInteger("concurrency", concurrency, { min: 1 });
  if (!Number.isFinite(defaultTimeoutMs) || defaultTimeoutMs <= 0) throw new RangeError("defaultTimeoutMs must be a positive number");
  checkInterceptors(interceptors);
  const attempt = createAttempt({ resolve, caller, defaultTimeoutMs, wait: createBackoff(backoff), log });

  const execute = (plan: Plan, options: ExecuteOptions = {}): Promise<ExecutionResult> => {
    try {
      const graph = buildGraph(plan, options.syntax ?? "dollar");
      const max = options.concurrency === undefined ? limit : checkInteger("concurrency", options.concurrency, { min: 1 });
      const own = options.interceptors ?? [];
      const all = own.length === 0 ? interceptors : [...interceptors, ...own];
      if (own.length > 0) checkInterceptors(all);
      // Split once per run: a step asks only the interceptors with that hook, and a run with none keeps the path that asks nothing.
      const before = all.length === 0 ? all : all.filter((interceptor) => interceptor.beforeStep !== undefined);
      const after = all.length === 0 ? all : all.filter((interceptor) => interceptor.afterStep !== undefined);
      return startRun({ plan, graph, max, options, before, after, attempt, log });
    } catch (error) {
      return Promise.reject(error);
    }
  };

  return { execute };
}
