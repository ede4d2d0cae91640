/**
 * The scheduler's and the executor's settings from the environment (the spec's
 * `MANIFOLD_SCHEDULER_*` and `MANIFOLD_EXECUTOR_*` rows). A bad value is a RangeError naming the
 * variable, at start-up.
 */
import { parseDuration } from "../spec/index.js";

type Env = Readonly<Record<string, string | undefined>>;

export function envDuration(env: Env, name: string, fallbackMs: number, { allowZero = false } = {}): number {
  const text = env[name];
  if (text === undefined || text === "") return fallbackMs;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0 || (ms === 0 && !allowZero))
    throw new RangeError(`${name} must be a duration such as 5s or 2m, not ${JSON.stringify(text.slice(0, 40))}`);
  return ms;
}

export function envInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(text.slice(0, 40))}`);
  return value;
}

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
}

export function readExecutorSettings(options: Partial<ExecutorSettings>, env: Env): ExecutorSettings {
  const settings: ExecutorSettings = {
    workerCount: options.workerCount ?? envInteger(env, "MANIFOLD_EXECUTOR_WORKER_COUNT", 5, 1, 1000),
    maxRetries: options.maxRetries ?? envInteger(env, "MANIFOLD_EXECUTOR_MAX_RETRIES", 3, 0, 100),
    retryBaseDelayMs: options.retryBaseDelayMs ?? envDuration(env, "MANIFOLD_EXECUTOR_RETRY_BASE_DELAY", 5_000, { allowZero: true }),
    retryMaxDelayMs: options.retryMaxDelayMs ?? envDuration(env, "MANIFOLD_EXECUTOR_RETRY_MAX_DELAY", 60_000, { allowZero: true }),
    dispatchTimeoutMs: options.dispatchTimeoutMs ?? envDuration(env, "MANIFOLD_EXECUTOR_DISPATCH_TIMEOUT", 15 * 60_000),
  };
  const { workerCount, maxRetries, retryBaseDelayMs, retryMaxDelayMs, dispatchTimeoutMs } = settings;
  if (!Number.isSafeInteger(workerCount) || workerCount < 1) throw new RangeError("workerCount must be a positive integer");
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) throw new RangeError("maxRetries must be a non-negative integer");
  for (const [name, ms] of Object.entries({ retryBaseDelayMs, retryMaxDelayMs, dispatchTimeoutMs })) {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`${name} must be a non-negative number of ms`);
  }
  if (dispatchTimeoutMs <= 0) throw new RangeError("dispatchTimeoutMs must be positive");
  return settings;
}

/** The wait before retry `n` (1-based): base × 2^(n-1), at most the cap. */
export function retryDelayMs({ retryBaseDelayMs, retryMaxDelayMs }: Pick<ExecutorSettings, "retryBaseDelayMs" | "retryMaxDelayMs">, retry: number): number {
  return Math.min(retryMaxDelayMs, retryBaseDelayMs * 2 ** Math.min(retry - 1, 40));
}
