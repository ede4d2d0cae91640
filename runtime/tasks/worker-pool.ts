import { isThenable, sleep } from "../util/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { redactSecrets, runInScope, validRequestId, type RequestScope } from "../context/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import { MAX_DEQUEUE_COUNT } from "./backend-shared.js";
import type { TaskHandler } from "./handler-context.js";
import { readPoolSettings, type PoolSettings } from "./pool-settings.js";
import { TaskRun } from "./task-run.js";
import { recordActive, recordQueueDepth, recordWorker, telemetryEnabled, traceFinished, traceProgress, traceStarted } from "./telemetry.js";
import type { Lease, TaskBackend, TaskError, TaskOutcome, TaskProgress, TaskStatus } from "./types.js";

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
  /** Where `WORKER_COUNT` and `MANIFOLD_TASK_LEASE_MS` are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
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

interface Pending {
  readonly entry: TaskRun;
  readonly outcome: TaskOutcome;
}

const PANIC_MESSAGE = "the task handler failed unexpectedly";
/** A thrown Error's message as stored on the task: long enough to explain, bounded like every record field. */
const MAX_ERROR_MESSAGE = 2_000;
/** Finished tasks written in one call at most; more wait for the next flush (a few ms later). */
const MAX_FLUSH = 500;
/** Queue depth is a Redis call: sampled this often, and only while telemetry is on. */
const DEPTH_SAMPLE_MS = 5_000;
const MAX_BACKOFF_MS = 2_000;

function describe(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return "(a thrown value that cannot be printed)";
  }
}

/**
 * Runs task handlers against a backend: one dispatch loop dequeues as many tasks as there are free
 * slots in one call, each handler runs in its own slot, finished tasks are written in batches
 * (`finishMany`, flushed once per event-loop turn), and one shared tick extends every lease and
 * checks every timeout. No per-task timer, no per-task round trip beyond the batch writes.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { backend, log = createLogger({ component: "tasks" }) } = options;
  const settings = readPoolSettings(options);
  const { workerCount, leaseMs, tickMs, idleWaitMs } = settings;
  const handlers = new Map(Object.entries(options.handlers).filter(([, h]) => typeof h === "function"));
  const inflight = new Map<string, TaskRun>();
  const stopController = new AbortController();
  let active = 0;
  let stopping = false;
  let pending: Pending[] = [];
  let flushScheduled = false;
  const writes = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  let extending = false;
  let lastDepth = 0;
  let outage = false;

  /** Wakes the dispatch loop (or stop) when a slot or an in-flight place frees up. */
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const waitForChange = (): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
    });

  /** Ends a run's claim on its slot; its lease stays in `inflight` until the final write lands. */
  const release = (entry: TaskRun): void => {
    entry.done = true;
    active -= 1;
    notify();
  };

  const forget = (entry: TaskRun): void => {
    if (inflight.get(entry.taskId) === entry) inflight.delete(entry.taskId);
    notify();
  };

  const flush = (): void => {
    flushScheduled = false;
    if (pending.length === 0) return;
    const batch = pending.length > MAX_FLUSH ? pending.splice(0, MAX_FLUSH) : pending;
    if (batch === pending) pending = [];
    if (pending.length > 0) schedule();
    const write = backend.finishMany(batch.map((p) => p.outcome)).then(
      (results) => {
        batch.forEach(({ entry, outcome }, i) => {
          const result = results[i];
          const status: TaskStatus = result === "ok" ? outcome.status : result === "cancelled" ? "cancelled" : "queued";
          if (result === "lost") log.warn(`task ${entry.taskId}: lease lost before its outcome was written; another worker has it`);
          traceFinished(
            entry.trace,
            status,
            status === "completed" ? undefined : status === "cancelled" ? "TASK_CANCELLED" : outcome.status === "failed" ? outcome.error.code : undefined,
          );
          forget(entry);
        });
      },
      (error: unknown) => {
        // The leases lapse and the tasks are delivered again: at-least-once, nothing is lost.
        log.error(`writing ${batch.length} task outcome(s) failed; they will be redelivered: ${describe(error)}`);
        for (const { entry } of batch) {
          traceFinished(entry.trace, "queued");
          forget(entry);
        }
      },
    );
    writes.add(write);
    void write.finally(() => writes.delete(write));
  };
  const schedule = (): void => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  const finish = (entry: TaskRun, outcome: TaskOutcome): void => {
    release(entry);
    pending.push({ entry, outcome });
    schedule();
  };

  const failWith = (entry: TaskRun, error: TaskError): void => {
    finish(entry, { status: "failed", taskId: entry.taskId, token: entry.leaseToken, error });
  };

  // A result JSON cannot carry is failed HANDLER_PANIC by the backend, which serialises it anyway.
  const succeed = (entry: TaskRun, result: unknown): void => {
    if (!entry.done) finish(entry, { status: "completed", taskId: entry.taskId, token: entry.leaseToken, result });
  };

  const fail = (entry: TaskRun, thrown: unknown): void => {
    if (entry.done) return;
    if (isManifoldError(thrown)) return failWith(entry, { code: "HANDLER_ERROR", message: thrown.expose ? thrown.message : "internal error" });
    // The spec's "handler returns an error": an Error the handler threw on purpose fails the task
    // with its message (registered secrets redacted). A TypeError or ReferenceError is a bug, and a
    // thrown non-Error is not an error value: those are the panics, with a fixed message.
    if (thrown instanceof Error && !(thrown instanceof TypeError) && !(thrown instanceof ReferenceError)) {
      log.warn(`task ${entry.taskId} (${entry.type}) handler returned an error: ${describe(thrown)}`);
      return failWith(entry, { code: "HANDLER_ERROR", message: redactSecrets(thrown.message).slice(0, MAX_ERROR_MESSAGE) || thrown.name });
    }
    log.error(`task ${entry.taskId} (${entry.type}) handler failed: ${describe(thrown)}`);
    failWith(entry, { code: "HANDLER_PANIC", message: PANIC_MESSAGE });
  };

  /** The run ends without a write of ours: cancelled (already stored), lease lost, or handed back. */
  const abandon = (entry: TaskRun, reason: ManifoldError, status: TaskStatus): void => {
    if (!entry.done) release(entry);
    entry.abort(reason);
    traceFinished(entry.trace, status, reason.code);
    forget(entry);
  };

  const cancelled = (entry: TaskRun): void => {
    if (!entry.done) abandon(entry, new ManifoldError("TASK_CANCELLED", "the task was cancelled"), "cancelled");
  };
  const lost = (entry: TaskRun): void => {
    if (entry.done) return;
    log.warn(`task ${entry.taskId}: lease lost (it lapsed and the task was redelivered); the handler is aborted`);
    abandon(entry, new ManifoldError("UNAVAILABLE", "the worker lost the task's lease"), "queued");
  };

  const storeProgress = async (entry: TaskRun, progress: TaskProgress): Promise<void> => {
    if (entry.done) return;
    traceProgress(entry.trace, progress);
    try {
      const outcome = await backend.progress(entry.taskId, entry.leaseToken, progress);
      if (outcome === "cancelled") cancelled(entry);
      else if (outcome === "lost") lost(entry);
    } catch (error) {
      log.warn(`task ${entry.taskId}: progress not stored: ${describe(error)}`);
    }
  };

  const run = (lease: Lease): void => {
    const { task } = lease;
    const previous = inflight.get(task.task_id);
    if (previous !== undefined) lost(previous);
    const entry = new TaskRun(lease, traceStarted(task), storeProgress);
    inflight.set(task.task_id, entry);
    active += 1;
    const handler = handlers.get(task.type);
    if (handler === undefined) return failWith(entry, { code: "UNKNOWN_TASK_TYPE", message: `no handler for task type ${task.type} in this worker` });
    // Outbound calls the handler makes carry the task id as their request id.
    const requestId = validRequestId(task.task_id);
    const scope: RequestScope = { requestId, originalRequestId: requestId, conversationId: undefined, forwarded: undefined };
    let output: unknown;
    try {
      const span = entry.trace?.span;
      output = span === undefined ? runInScope(scope, handler, task.input, entry) : span.run(() => runInScope(scope, handler, task.input, entry));
    } catch (thrown) {
      return fail(entry, thrown);
    }
    if (!isThenable(output)) return succeed(entry, output);
    output.then(
      (value) => succeed(entry, value),
      (thrown: unknown) => fail(entry, thrown),
    );
  };

  const tick = (): void => {
    const now = Date.now();
    for (const entry of inflight.values()) {
      if (entry.done || entry.deadline > now) continue;
      entry.abort(new ManifoldError("TASK_TIMEOUT", `the task ran past its timeout of ${entry.timeoutMs} ms`));
      failWith(entry, { code: "TASK_TIMEOUT", message: `the task ran past its timeout of ${entry.timeoutMs} ms` });
    }
    if (!extending && inflight.size > 0) {
      extending = true;
      const sent = [...inflight.values()];
      backend
        .extend(
          sent.map((e) => ({ taskId: e.taskId, token: e.leaseToken })),
          leaseMs,
        )
        .then(
          (results) => {
            for (const entry of sent) {
              const result = results.get(entry.taskId);
              if (inflight.get(entry.taskId) !== entry) continue;
              if (result === "cancelled") cancelled(entry);
              else if (result === "lost") lost(entry);
            }
          },
          (error: unknown) => log.warn(`extending ${sent.length} task lease(s) failed: ${describe(error)}`),
        )
        .finally(() => {
          extending = false;
        });
    }
    if (telemetryEnabled()) {
      recordActive(active);
      if (now - lastDepth >= DEPTH_SAMPLE_MS) {
        lastDepth = now;
        backend.depth().then(recordQueueDepth, () => undefined);
      }
    }
  };
  const ticker = setInterval(tick, tickMs);
  ticker.unref();

  const dispatch = async (): Promise<void> => {
    let backoff = 100;
    while (!stopping) {
      // Running handlers take the slots; leases waiting for their write are bounded too, so a slow
      // store cannot make the process hold an unbounded number of tasks.
      const free = Math.min(workerCount - active, 2 * workerCount - inflight.size);
      if (free <= 0) {
        await waitForChange();
        continue;
      }
      let leases: Lease[];
      try {
        leases = await backend.dequeue({ count: Math.min(free, MAX_DEQUEUE_COUNT), leaseMs, blockMs: idleWaitMs, signal: stopController.signal });
        if (outage) log.info("task queue reachable again");
        outage = false;
        backoff = 100;
      } catch (error) {
        if (stopping) break;
        if (!outage) log.warn(`dequeuing tasks failed; retrying: ${describe(error)}`);
        outage = true;
        await sleep(backoff, stopController.signal);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        continue;
      }
      if (stopping) {
        // Taken while stop began: straight back to the queue, never started.
        await Promise.allSettled(leases.map((l) => backend.release(l.task.task_id, l.token)));
        break;
      }
      for (const lease of leases) {
        try {
          run(lease);
        } catch (error) {
          // Not the handler (its throws are outcomes): a bug of ours must not end the loop. The
          // lease lapses and the task is delivered again.
          log.error(`task ${lease.task.task_id}: could not be started: ${describe(error)}`);
        }
      }
    }
  };
  const loop = dispatch();
  recordWorker("started");

  let stopped: Promise<void> | undefined;
  const stop = (timeoutMs = 30_000): Promise<void> => {
    stopped ??= (async () => {
      stopping = true;
      stopController.abort();
      notify();
      await loop;
      const deadline = Date.now() + timeoutMs;
      while (active > 0 && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([waitForChange(), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
        clearTimeout(timer);
      }
      const unfinished = [...inflight.values()].filter((e) => !e.done);
      if (unfinished.length > 0) log.warn(`releasing ${unfinished.length} unfinished task(s) to the queue after ${timeoutMs} ms`);
      const reason = new ManifoldError("UNAVAILABLE", "the worker is shutting down; the task goes back to the queue");
      const releases = unfinished.map(async (entry) => {
        abandon(entry, reason, "queued");
        try {
          await backend.release(entry.taskId, entry.leaseToken);
        } catch (error) {
          log.warn(`task ${entry.taskId}: release failed, it is redelivered when its lease lapses: ${describe(error)}`);
        }
      });
      await Promise.all(releases);
      if (pending.length > 0) flush();
      while (writes.size > 0) await Promise.allSettled([...writes]);
      clearInterval(ticker);
      recordWorker("stopped");
    })();
    return stopped;
  };

  return {
    get active() {
      return active;
    },
    settings,
    stop,
  };
}
