/**
 * One worker pool's state, shared by its parts: the dispatch loop and stop (worker-pool.ts), the
 * outcome writes (pool-outcomes.ts) and the shared tick (pool-tick.ts). Each part is a set of
 * functions over this object rather than closures inside one factory.
 */
import type { Logger } from "../telemetry/index.js";
import type { Clock, ClockTimer } from "../util/index.js";
import type { TaskHandler } from "./handler-context.js";
import type { PoolSettings } from "./pool-settings.js";
import type { ProgressSink, TaskRun } from "./task-run.js";
import type { TaskBackend, TaskOutcome } from "./types.js";

/** A finished run whose outcome waits for the next batched write. */
export interface PendingOutcome {
  readonly entry: TaskRun;
  readonly outcome: TaskOutcome;
}

export interface PoolState {
  readonly backend: TaskBackend;
  readonly log: Logger;
  readonly settings: PoolSettings;
  readonly clock: Clock;
  readonly handlers: ReadonlyMap<string, TaskHandler>;
  /** What every run's approval gate starts with (WorkerPoolOptions.gated). */
  readonly gated: readonly string[];
  /** Runs holding a lease, by task id, until their final write lands (or they are abandoned). */
  readonly inflight: Map<string, TaskRun>;
  /** Aborted by stop: ends a dequeue's wait and the backoff after a failed one. */
  readonly stopController: AbortController;
  /** Handlers running now (slots taken). */
  active: number;
  stopping: boolean;
  /** Outcomes waiting for the next flush, and whether one is scheduled. */
  pending: PendingOutcome[];
  flushScheduled: boolean;
  /** The flush as one function, allocated once (it is scheduled once per event-loop turn under load). */
  readonly flush: () => void;
  /** Stores a run's progress (each run's `TaskContext.progress` lands here), allocated once. */
  readonly progress: ProgressSink;
  /** Batched writes in flight; stop waits for them. */
  readonly writes: Set<Promise<void>>;
  /** Resumes whoever waits for a slot or an in-flight place to free up (the dispatch loop, or stop). */
  wake: (() => void) | undefined;
  /** An extend call is in flight: the next tick does not send another. */
  extending: boolean;
  /** When the queue depth was last sampled (telemetry). */
  lastDepth: number;
  /** Dequeues are failing: logged once when it starts and once when it ends. */
  outage: boolean;
  /** The next tick's timer; undefined once the pool has stopped ticking. */
  ticker: ClockTimer | undefined;
}

/** Wakes the dispatch loop (or stop) when a slot or an in-flight place frees up. */
export function notify(pool: PoolState): void {
  const resume = pool.wake;
  pool.wake = undefined;
  resume?.();
}

export function waitForChange(pool: PoolState): Promise<void> {
  return new Promise((resolve) => {
    pool.wake = resolve;
  });
}

/** Ends a run's claim on its slot; its lease stays in `inflight` until the final write lands. */
export function releaseSlot(pool: PoolState, entry: TaskRun): void {
  entry.done = true;
  pool.active -= 1;
  notify(pool);
}

/** The run's lease is no longer this pool's concern (written, abandoned or lost). */
export function forget(pool: PoolState, entry: TaskRun): void {
  if (pool.inflight.get(entry.taskId) === entry) pool.inflight.delete(entry.taskId);
  notify(pool);
}

export function describe(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return "(a thrown value that cannot be printed)";
  }
}
