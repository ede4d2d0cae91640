/**
 * The scheduler's and the executor's settings from the environment (the spec's
 * `MANIFOLD_SCHEDULER_*` and `MANIFOLD_EXECUTOR_*` rows). A bad value is a RangeError naming the
 * variable, at start-up.
 */
import { DEFAULT_ORCHESTRATION_TIMEOUT_MS, ORCHESTRATION_TIMEOUT_ENV } from "../orchestration/served.js";
import { durationFromEnv } from "../spec/index.js";
import { checkInteger, integerFromEnv } from "../util/index.js";

export const DISPATCH_TIMEOUT_ENV = "MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT";
const DEFAULT_DISPATCH_TIMEOUT_MS = 15 * 60_000;

type Env = Readonly<Record<string, string | undefined>>;

export interface ExecutorSettings {
  /** Dispatches in flight in this process. @defaultValue `MANIFOLD_EXECUTOR_WORKER_COUNT`, else 5 */
  readonly workerCount: number;
  /** Retries after the first attempt. @defaultValue `MANIFOLD_EXECUTOR_MAX_RETRIES`, else 3 */
  readonly maxRetries: number;
  /** Wait before the first retry, doubled for each next one. @defaultValue `MANIFOLD_EXECUTOR_RETRY_BASE_DELAY`, else 5 s */
  readonly retryBaseDelayMs: number;
  /** Longest wait between retries. @defaultValue `MANIFOLD_EXECUTOR_RETRY_MAX_DELAY`, else 60 s */
  readonly retryMaxDelayMs: number;
  /** One POST's time limit; at least the agent's orchestration timeout. @defaultValue `MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT`, else 15 min */
  readonly dispatchTimeoutMs: number;
  /**
   * Dispatches in flight to one target agent: a hung agent holds at most these, the other agents
   * keep the rest. @defaultValue `MANIFOLD_EXECUTOR_PER_AGENT_LIMIT`, else half the workers rounded up (1 of 1, 3 of 5)
   */
  readonly perAgentLimit: number;
}

export function readExecutorSettings(options: Partial<ExecutorSettings>, env: Env): ExecutorSettings {
  const workerCount =
    options.workerCount === undefined
      ? integerFromEnv(env, "MANIFOLD_EXECUTOR_WORKER_COUNT", 5, { min: 1, max: 1000 })
      : checkInteger("workerCount", options.workerCount, { min: 1 });
  const settings: ExecutorSettings = {
    workerCount,
    perAgentLimit:
      options.perAgentLimit === undefined
        ? integerFromEnv(env, "MANIFOLD_EXECUTOR_PER_AGENT_LIMIT", Math.ceil(workerCount / 2), { min: 1, max: 1000 })
        : checkInteger("perAgentLimit", options.perAgentLimit, { min: 1 }),
    maxRetries:
      options.maxRetries === undefined
        ? integerFromEnv(env, "MANIFOLD_EXECUTOR_MAX_RETRIES", 3, { min: 0, max: 100 })
        : checkInteger("maxRetries", options.maxRetries, { min: 0 }),
    retryBaseDelayMs: options.retryBaseDelayMs ?? durationFromEnv(env, "MANIFOLD_EXECUTOR_RETRY_BASE_DELAY", 5_000),
    retryMaxDelayMs: options.retryMaxDelayMs ?? durationFromEnv(env, "MANIFOLD_EXECUTOR_RETRY_MAX_DELAY", 60_000),
    dispatchTimeoutMs: options.dispatchTimeoutMs ?? durationFromEnv(env, DISPATCH_TIMEOUT_ENV, DEFAULT_DISPATCH_TIMEOUT_MS),
  };
  const { retryBaseDelayMs, retryMaxDelayMs, dispatchTimeoutMs } = settings;
  if (settings.perAgentLimit > settings.workerCount) throw new RangeError("perAgentLimit (MANIFOLD_EXECUTOR_PER_AGENT_LIMIT) must not exceed the worker count");
  for (const [name, ms] of Object.entries({ retryBaseDelayMs, retryMaxDelayMs, dispatchTimeoutMs })) {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`${name} must be a non-negative number of ms`);
  }
  if (dispatchTimeoutMs <= 0) throw new RangeError("dispatchTimeoutMs must be positive");
  return settings;
}

const isSet = (env: Env, name: string): boolean => env[name] !== undefined && env[name] !== "";

/** One side's limit on a scheduled run, and whether it was set (option or variable) rather than defaulted. */
export interface RunLimit {
  readonly ms: number;
  readonly set: boolean;
}

/** The agent's limit on a run as `env` says it: `MANIFOLD_ORCHESTRATION_TIMEOUT`, else its 5 min default. */
export const runLimitOf = (env: Env): RunLimit => ({
  ms: durationFromEnv(env, ORCHESTRATION_TIMEOUT_ENV, DEFAULT_ORCHESTRATION_TIMEOUT_MS),
  set: isSet(env, ORCHESTRATION_TIMEOUT_ENV),
});

/** The executor's limit on one POST as `env` says it: `MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT`, else its 15 min default. */
export const dispatchLimitOf = (env: Env): RunLimit => ({
  ms: durationFromEnv(env, DISPATCH_TIMEOUT_ENV, DEFAULT_DISPATCH_TIMEOUT_MS),
  set: isSet(env, DISPATCH_TIMEOUT_ENV),
});

/**
 * A scheduled run's POST must outlast the agent's own limit on the run: an executor that gives up
 * first retries a run the agent is still working on (a second run, for a request that takes long).
 * Both limits set in one environment and contradicting each other is a RangeError naming both; when
 * one of them is only a default, the other side is another process whose value cannot be seen from
 * here, so the answer is a warning to log (naming both), or undefined when the dispatch covers the run.
 */
export function dispatchTimeoutWarning(dispatch: RunLimit, run: RunLimit): string | undefined {
  if (dispatch.ms >= run.ms) return undefined;
  const what = `${DISPATCH_TIMEOUT_ENV} (${dispatch.ms} ms${dispatch.set ? "" : ", its default"}) is shorter than ${ORCHESTRATION_TIMEOUT_ENV} (${run.ms} ms${run.set ? "" : ", its default"})`;
  const why = "the executor would give up on a scheduled run, and retry it, while the agent is still running it";
  if (dispatch.set && run.set) throw new RangeError(`${what}: ${why}; make ${DISPATCH_TIMEOUT_ENV} at least ${ORCHESTRATION_TIMEOUT_ENV}`);
  return `${what}: ${why}; the scheduler's ${DISPATCH_TIMEOUT_ENV} must be at least every scheduled agent's ${ORCHESTRATION_TIMEOUT_ENV}`;
}
