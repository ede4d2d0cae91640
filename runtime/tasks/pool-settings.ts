/** The worker pool's numbers, from options, then the environment, then defaults; checked at startup. */

export interface PoolSettings {
  readonly workerCount: number;
  readonly leaseMs: number;
  readonly tickMs: number;
  readonly idleWaitMs: number;
}

export interface PoolSettingsInput {
  readonly workerCount?: number | undefined;
  readonly leaseMs?: number | undefined;
  readonly tickMs?: number | undefined;
  readonly idleWaitMs?: number | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const DEFAULT_WORKER_COUNT = 5;
/**
 * Long enough that a busy event loop or a slow Redis round trip never lets a live worker's lease
 * lapse (it is extended every tick, at most 500 ms apart), short enough that a crashed worker's
 * tasks are running again within half a minute.
 */
export const DEFAULT_LEASE_MS = 30_000;
/** A cancel reaches a running handler within one tick plus a round trip; the issue asks for a second. */
export const MAX_TICK_MS = 500;
const MIN_LEASE_MS = 100;
const MAX_WORKERS = 10_000;

function integer(value: number, name: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}, not ${String(value)}`);
  return value;
}

function fromEnv(env: Readonly<Record<string, string | undefined>>, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  // NaN for text that is not a number: reported by `integer` with the variable's name.
  return Number.isFinite(value) ? value : Number.NaN;
}

export function readPoolSettings({ workerCount, leaseMs, tickMs, idleWaitMs = 1_000, env = process.env }: PoolSettingsInput): PoolSettings {
  const workers = workerCount !== undefined
    ? integer(workerCount, "workerCount", 1, MAX_WORKERS)
    : integer(fromEnv(env, "WORKER_COUNT") ?? DEFAULT_WORKER_COUNT, "WORKER_COUNT", 1, MAX_WORKERS);
  const lease = leaseMs !== undefined
    ? integer(leaseMs, "leaseMs", MIN_LEASE_MS, 86_400_000)
    : integer(fromEnv(env, "MANIFOLD_TASK_LEASE_MS") ?? DEFAULT_LEASE_MS, "MANIFOLD_TASK_LEASE_MS", MIN_LEASE_MS, 86_400_000);
  const tick = integer(tickMs ?? Math.max(20, Math.min(MAX_TICK_MS, Math.floor(lease / 3))), "tickMs", 1, Math.floor(lease / 2));
  return { workerCount: workers, leaseMs: lease, tickMs: tick, idleWaitMs: integer(idleWaitMs, "idleWaitMs", 0, 60_000) };
}
