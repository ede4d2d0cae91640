/** The worker pool's numbers, from options, then the environment, then defaults; checked at startup. */
import { checkInteger, integerFromEnv } from "../util/index.js";

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

/** A task lease: the option, else `MANIFOLD_TASK_LEASE_MS`, else 30 s; the same bounds either way. */
export function readLeaseMs(leaseMs: number | undefined, env: Readonly<Record<string, string | undefined>> = process.env): number {
  return leaseMs !== undefined
    ? checkInteger("leaseMs", leaseMs, { min: MIN_LEASE_MS, max: 86_400_000 })
    : integerFromEnv(env, "MANIFOLD_TASK_LEASE_MS", DEFAULT_LEASE_MS, { min: MIN_LEASE_MS, max: 86_400_000 });
}

export function readPoolSettings({ workerCount, leaseMs, tickMs, idleWaitMs = 1_000, env = process.env }: PoolSettingsInput): PoolSettings {
  const workers =
    workerCount !== undefined
      ? checkInteger("workerCount", workerCount, { min: 1, max: MAX_WORKERS })
      : integerFromEnv(env, "WORKER_COUNT", DEFAULT_WORKER_COUNT, { min: 1, max: MAX_WORKERS });
  const lease = readLeaseMs(leaseMs, env);
  const tick = checkInteger("tickMs", tickMs ?? Math.max(20, Math.min(MAX_TICK_MS, Math.floor(lease / 3))), { min: 1, max: Math.floor(lease / 2) });
  return { workerCount: workers, leaseMs: lease, tickMs: tick, idleWaitMs: checkInteger("idleWaitMs", idleWaitMs, { min: 0, max: 60_000 }) };
}
