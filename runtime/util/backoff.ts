/**
 * Retry waits, shared by the orchestrator's steps and the scheduled executor's dispatches.
 */
export interface BackoffOptions {
  /** `fixed`: every wait is baseDelayMs; `exponential`: a wait up to base × 2^(n−1), with full jitter unless `random` says otherwise. @defaultValue "exponential" */
  readonly backoff?: "fixed" | "exponential";
  /** @defaultValue 100 */
  readonly baseDelayMs?: number;
  /** Longest wait between two attempts. @defaultValue 5000 */
  readonly maxDelayMs?: number;
  /** Source of randomness in [0, 1), for the jitter. @defaultValue Math.random */
  readonly random?: () => number;
}

export type Backoff = (attempt: number) => number;

function checkDelay(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}

/**
 * The wait before attempt `attempt + 1`, after `attempt` failed attempts. Full jitter (a uniform wait
 * between 0 and the exponential ceiling) spreads the retries of many runs hitting one struggling
 * tool instead of having them come back in lockstep.
 */
export function createBackoff({ backoff = "exponential", baseDelayMs = 100, maxDelayMs = 5_000, random = Math.random }: BackoffOptions = {}): Backoff {
  checkDelay(baseDelayMs, "baseDelayMs");
  checkDelay(maxDelayMs, "maxDelayMs");
  if (backoff === "fixed") return () => Math.min(baseDelayMs, maxDelayMs);
  if (backoff !== "exponential") throw new RangeError("backoff must be fixed or exponential");
  return (attempt) => random() * Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
}
