import { ApprovalGate, runInScope, type RequestScope, validRequestId } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import { type Clock, type ClockTimer, holdOpen, isThenable, sleepOn, systemClock } from "../util/index.js";
import { MAX_DEQUEUE_COUNT } from "./backend-shared.js";
import type { TaskHandler } from "./handler-context.js";
import { abandonRun, failRun, failRunWithThrow, flushOutcomes, leaseLost, runCancelled, succeedRun } from "./pool-outcomes.js";
import { type PoolSettings, readPoolSettings } from "./pool-settings.js";
import { describe, notify, type PoolState, waitForChange } from "./pool-state.js";
import { startTicking, stopTicking } from "./pool-tick.js";
import { TaskRun } from "./task-run.js";
import { recordWorker, traceProgress, traceStarted } from "./telemetry.js";
import type { Lease, TaskBackend, TaskProgress } from "./types.js";

export interface WorkerPoolOptions {
  readonly backend: TaskBackend;
  /** Handlers by task type (the manifest's `type`, e.g. `research`). */
  readonly handlers: Readonly<Record<string, TaskHandler>>;
  /** Handlers running at once in this process. @defaultValue `WORKER_COUNT`, else 5 */
  readonly workerCount?: number;
  /**
   * Visibility lease: a task whose worker stops extending it (a crash) is redelivered this long after
   * the last extension. @defaultValue `MANIFOLD_TASK_LEASE_MS`, else 30000
   */
  readonly leaseMs?: number;
  /**
   * One shared timer: every tick extends the leases of all running tasks in one batched call (which
   * is also how a cancel reaches a running handler) and checks their timeouts.
   * @defaultValue min(500, leaseMs / 3)
   */
  readonly tickMs?: number;
  /** How long one dequeue waits for work while the queue is empty. @defaultValue 1000 */
  readonly idleWaitMs?: number;
  /** @defaultValue a JSON logger for `tasks` */
  readonly log?: Logger;
  /** The clock of task timeouts, the tick, the stop grace period and the backoff after a failed dequeue. @defaultValue systemClock */
  readonly clock?: Clock;
  /** Where `WORKER_COUNT` and `MANIFOLD_TASK_LEASE_MS` are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Capabilities no handler may call unapproved: each run's approval gate starts with them (the
   * component's extensions' `gated`, HITL's policy), so such a call fails APPROVAL_REQUIRED. @defaultValue none
   */
  readonly gated?: readonly string[];
}

export interface WorkerPool {
  /** Handlers running now. */
  readonly active: number;
  readonly settings: PoolSettings;
  /**
   * Graceful: stops dequeuing, lets running handlers finish for up to `timeoutMs`, then aborts the
   * rest (their signal's reason is UNAVAILABLE) and releases them to the queue for another worker.
   * Resolves once every write is done; idempotent.
   */
  stop(timeoutMs?: number): Promise<void>;
}

const MAX_BACKOFF_MS = 2_000;

async function storeProgress(pool: PoolState, entry: TaskRun, progress: TaskProgress): Promise<void> {
  if (entry.done) return;
  traceProgress(entry.trace, progress);
  try {
    const outcome = await pool.backend.progress(entry.taskId, entry.leaseToken, progress);
    if (outcome === "cancelled") runCancelled(pool, entry);
    else if (outcome === "lost") leaseLost(pool, entry);
  } catch (error) {
    pool.log.warn(`task ${entry.taskId}: progress not stored: ${describe(error)}`);
  }
}

/** Starts one leased task's handler in a slot; its value or throw becomes the outcome. */
function runLease(pool: PoolState, lease: Lease): void {
  const { task } = lease;
  const previous = pool.inflight.get(task.task_id);
  if (previous !== undefined) leaseLost(pool, previous);
  const entry = new TaskRun(lease, traceStarted(task), pool.progress, pool.clock.now());
  pool.inflight.set(task.task_id, entry);
  pool.active += 1;
  const handler = pool.handlers.get(task.type);
  if (handler === undefined) return failRun(pool, entry, { code: "UNKNOWN_TASK_TYPE", message: `no handler for task type ${task.type} in this worker` });
  // Outbound calls the handler makes carry the task id as their request id.
  const requestId = validRequestId(task.task_id);
  // The gate: a task's run is unapproved like a request's, gated from the start (a task cannot pause:
  // a refused call fails it APPROVAL_REQUIRED); HITL's step gate adds to it in a workflow's steps.
  const approval = pool.gated.length === 0 ? new ApprovalGate() : new ApprovalGate().restrict(pool.gated);
  const scope: RequestScope = { requestId, originalRequestId: requestId, conversationId: undefined, forwarded: undefined, approval };
  let output: unknown;
  try {
    const span = entry.trace?.span;
    output = span === undefined ? runInScope(scope, handler, task.input, entry) : span.run(() => runInScope(scope, handler, task.input, entry));
  } catch (thrown) {
    return failRunWithThrow(pool, entry, thrown);
  }
  if (!isThenable(output)) return succeedRun(pool, entry, output);
  output.then(
    (value) => succeedRun(pool, entry, value),
    (thrown: unknown) => failRunWithThrow(pool, entry, thrown),
  );
}

/** Slots free for new tasks: running handlers take them, and leases waiting for their write are bounded too. */
export function freeSlots({ settings: { workerCount }, active, inflight }: Pick<PoolState, "settings" | "active" | "inflight">): number {
  // A slow store cannot make the process hold an unbounded number of tasks.
  return Math.min(workerCount - active, 2 * workerCount - inflight.size);
}

/** Dequeues as many tasks as there are free slots in one call and starts them, until stop. */
async function dispatchLoop(pool: PoolState): Promise<void> {
  const { backend, log, clock, stopController } = pool;
  const { leaseMs, idleWaitMs } = pool.settings;
  let backoff = 100;
  while (!pool.stopping) {
    const free = freeSlots(pool);
    if (free <= 0) {
      await waitForChange(pool);
      continue;
    }
    let leases: Lease[];
    try {
      leases = await backend.dequeue({ count: Math.min(free, MAX_DEQUEUE_COUNT), leaseMs, blockMs: idleWaitMs, signal: stopController.signal });
      if (pool.outage) log.info("task queue reachable again");
      pool.outage = false;
      backoff = 100;
    } catch (error) {
      if (pool.stopping) break;
      if (!pool.outage) log.warn(`dequeuing tasks failed; retrying: ${describe(error)}`);
      pool.outage = true;
      await sleepOn(clock, backoff, stopController.signal, { hold: true });
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      continue;
    }
    if (pool.stopping) {
      // Taken while stop began: straight back to the queue, never started.
      await Promise.allSettled(leases.map((l) => backend.release(l.task.task_id, l.token)));
      break;
    }
    for (const lease of leases) {
      try {
        runLease(pool, lease);
      } catch (error) {
        // Not the handler (its throws are outcomes): a bug of ours must not end the loop. The
        // lease lapses and the task is delivered again.
        log.error(`task ${lease.task.task_id}: could not be started: ${describe(error)}`);
      }
    }
  }
}

/** Waits, on the pool's clock, until no handler runs or `timeoutMs` has passed. */
async function drain(pool: PoolState, timeoutMs: number): Promise<void> {
  const { clock } = pool;
  const deadline = clock.now() + timeoutMs;
  while (pool.active > 0 && clock.now() < deadline) {
    let timer: ClockTimer | undefined;
    // The grace period is work in progress: its timer holds the process open.
    await Promise.race([
      waitForChange(pool),
      new Promise<void>((resolve) => (timer = holdOpen(clock.setTimeout(resolve, Math.max(0, deadline - clock.now()))))),
    ]);
    clock.clearTimeout(timer);
  }
}

/** Graceful stop, once the dispatch loop has ended: drain, release the unfinished, write what is pending. */
async function stopPool(pool: PoolState, loop: Promise<void>, timeoutMs: number): Promise<void> {
  pool.stopping = true;
  pool.stopController.abort();
  notify(pool);
  await loop;
  await drain(pool, timeoutMs);
  const unfinished = [...pool.inflight.values()].filter((e) => !e.done);
  if (unfinished.length > 0) pool.log.warn(`releasing ${unfinished.length} unfinished task(s) to the queue after ${timeoutMs} ms`);
  const reason = new ManifoldError("UNAVAILABLE", "the worker is shutting down; the task goes back to the queue");
  const releases = unfinished.map(async (entry) => {
    abandonRun(pool, entry, reason, "queued");
    try {
      await pool.backend.release(entry.taskId, entry.leaseToken);
    } catch (error) {
      pool.log.warn(`task ${entry.taskId}: release failed, it is redelivered when its lease lapses: ${describe(error)}`);
    }
  });
  await Promise.all(releases);
  if (pool.pending.length > 0) flushOutcomes(pool);
  while (pool.writes.size > 0) await Promise.allSettled([...pool.writes]);
  stopTicking(pool);
  recordWorker("stopped");
}

/**
 * Runs task handlers against a backend: one dispatch loop dequeues as many tasks as there are free
 * slots in one call, each handler runs in its own slot, finished tasks are written in batches
 * (`finishMany`, flushed once per event-loop turn), and one shared tick extends every lease and
 * checks every timeout. No per-task timer, no per-task round trip beyond the batch writes.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { backend, log = createLogger({ component: "tasks" }), clock = systemClock } = options;
  const settings = readPoolSettings(options);
  const pool: PoolState = {
    backend,
    log,
    settings,
    clock,
    handlers: new Map(Object.entries(options.handlers).filter(([, h]) => typeof h === "function")),
    gated: options.gated ?? [],
    inflight: new Map(),
    stopController: new AbortController(),
    active: 0,
    stopping: false,
    pending: [],
    flushScheduled: false,
    flush: () => flushOutcomes(pool),
    progress: (entry, progress) => storeProgress(pool, entry, progress),
    writes: new Set(),
    wake: undefined,
    extending: false,
    lastDepth: 0,
    outage: false,
    ticker: undefined,
  };
  startTicking(pool);
  const loop = dispatchLoop(pool);
  recordWorker("started");
  let stopped: Promise<void> | undefined;
  return {
    get active() {
      return pool.active;
    },
    settings,
    stop: (timeoutMs = 30_000) => (stopped ??= stopPool(pool, loop, timeoutMs)),
  };
}
