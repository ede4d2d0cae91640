/**
 * The worker pool's one shared tick (every `tickMs` on the pool's clock): times out runs past their
 * deadline, extends every lease this pool holds in one call (which is also how a cancel reaches a
 * running handler), and samples the telemetry gauges. No per-task timer exists.
 */
import { ManifoldError } from "../errors/index.js";
import { failRun, leaseLost, runCancelled } from "./pool-outcomes.js";
import { describe, type PoolState } from "./pool-state.js";
import { recordActive, recordQueueDepth, telemetryEnabled } from "./telemetry.js";

/** Queue depth is a backend call: sampled this often, and only while telemetry is on. */
const DEPTH_SAMPLE_MS = 5_000;

/** Fails (TASK_TIMEOUT) and aborts each run past its deadline; its slot is given back even if the handler ignores the signal. */
export function timeOutRuns(pool: PoolState, now: number): void {
  for (const entry of pool.inflight.values()) {
    if (entry.done || entry.deadline > now) continue;
    const message = `the task ran past its timeout of ${entry.timeoutMs} ms`;
    entry.abort(new ManifoldError("TASK_TIMEOUT", message));
    failRun(pool, entry, { code: "TASK_TIMEOUT", message });
  }
}

/** One extend call for every lease held (skipped while the previous one is in flight); acts on cancelled and lost answers. */
function extendHeldLeases(pool: PoolState): void {
  if (pool.extending || pool.inflight.size === 0) return;
  pool.extending = true;
  const sent = [...pool.inflight.values()];
  pool.backend
    .extend(
      sent.map((e) => ({ taskId: e.taskId, token: e.leaseToken })),
      pool.settings.leaseMs,
    )
    .then(
      (results) => {
        for (const entry of sent) {
          const result = results.get(entry.taskId);
          if (pool.inflight.get(entry.taskId) !== entry) continue;
          if (result === "cancelled") runCancelled(pool, entry);
          else if (result === "lost") leaseLost(pool, entry);
        }
      },
      (error: unknown) => pool.log.warn(`extending ${sent.length} task lease(s) failed: ${describe(error)}`),
    )
    .finally(() => {
      pool.extending = false;
    });
}

export function tick(pool: PoolState): void {
  const now = pool.clock.now();
  timeOutRuns(pool, now);
  extendHeldLeases(pool);
  if (telemetryEnabled()) {
    recordActive(pool.active);
    if (now - pool.lastDepth >= DEPTH_SAMPLE_MS) {
      pool.lastDepth = now;
      pool.backend.depth().then(recordQueueDepth, () => undefined);
    }
  }
}

/** Arms the next tick; the clock's timer never keeps the process alive. */
export function startTicking(pool: PoolState): void {
  pool.ticker = pool.clock.setTimeout(() => {
    if (pool.ticker === undefined) return;
    tick(pool);
    startTicking(pool);
  }, pool.settings.tickMs);
}

export function stopTicking(pool: PoolState): void {
  pool.clock.clearTimeout(pool.ticker);
  pool.ticker = undefined;
}
