/**
 * The scheduled executor: workers on the `scheduled-executor` task queue (at-least-once: a worker
 * that dies mid-dispatch leaves its task to be redelivered when its lease ends) that POST each fired
 * occurrence to its agent's `POST /api/v1/scheduled`, found through discovery. A failed dispatch is
 * retried with exponential backoff inside the task (the lease is kept alive meanwhile); after the
 * last retry, or at once for a target that is a tool, the occurrence goes to the dead-letter list.
 *
 * Tracing: the worker pool runs each task in a `task.process` span that starts a trace of its own,
 * linked (not parented) to the scheduler's fire span stamped on the task; the POST carries that
 * trace, so the agent's handler continues it.
 */
import { type Caller, createCaller } from "../outbound/index.js";
import { createRegistry, type Registry } from "../discovery/index.js";
import { createStore, type Store } from "../store/index.js";
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { createTaskBackend, createWorkerPool, MAX_TASK_TIMEOUT_MS, readLeaseMs, type TaskBackend, type WorkerPool } from "../tasks/index.js";
import { ATTR, createLogger, getTelemetry, METRIC, type Logger } from "../telemetry/index.js";
import { type Clock, createBackoff, systemClock } from "../util/index.js";
import { createDeadLetters, replayDeadLetter, type DeadLetters } from "./dead-letters.js";
import { countedBackend } from "./executor-backend.js";
import { createSlots, type Dispatcher, dispatch } from "./executor-dispatch.js";
import { createTargets, MODULE } from "./executor-targets.js";
import { createRunRecord } from "./run-claims.js";
import { dispatchLimitOf, dispatchTimeoutWarning, readExecutorSettings, runLimitOf, type ExecutorSettings } from "./settings.js";
import { SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_TASK_TYPE } from "./wire.js";

export interface ScheduledExecutorOptions extends Partial<ExecutorSettings> {
  /** Where the queue and the dead-letter list live. @defaultValue `createStore({ env })` */
  readonly store?: Store;
  /** Where target agents are found. @defaultValue `createRegistry({ store })` */
  readonly registry?: Registry;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Visibility lease of a dispatch: a dead executor's task is redelivered this long after its last extension. @defaultValue `MANIFOLD_TASK_LEASE_MS`, else 30 s */
  readonly leaseMs?: number;
  /** Most dead letters kept (the oldest are dropped). @defaultValue 10,000 */
  readonly maxDeadLetters?: number;
  /** @defaultValue a caller with `MANIFOLD_OAUTH_TOKEN` (keep-alive undici, the caller's default) */
  readonly caller?: Caller;
  /** How long a run whose agent holds its share waits for a place before it is deferred to the back of the queue. @defaultValue 1 s */
  readonly deferAfterMs?: number;
  /** How often the known-agents gauge is refreshed. @defaultValue 30 s */
  readonly catalogRefreshMs?: number;
  readonly log?: Logger;
  /** The clock of retry waits, replica freshness, dead letters and the worker pool (task timeouts, ticks, stop). @defaultValue systemClock */
  readonly clock?: Clock;
}

export interface ScheduledExecutor {
  readonly settings: ExecutorSettings;
  readonly deadLetters: DeadLetters;
  start(): Promise<void>;
  /** Stops taking tasks; dispatches in flight get `timeoutMs` to finish, then go back to the queue. */
  stop(timeoutMs?: number): Promise<void>;
  /** Takes a dead letter out and queues its occurrence again; the new task id (`<task_id>:replay-<ms>`), or undefined when there was none. */
  replay(taskId: string): Promise<string | undefined>;
}

/** Counts the agents the registry knows, for the known-agents gauge (a periodic catalog refresh). */
async function refreshCatalog(registry: Registry, log: Logger): Promise<void> {
  const { metrics } = getTelemetry();
  try {
    const agents = await registry.byType("agent");
    metrics.counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "success", [ATTR.TRIGGER]: "periodic" });
    metrics.gauge(METRIC.EXECUTOR_CATALOG_AGENTS_KNOWN, new Set(agents.map((a) => a.name)).size, MODULE);
  } catch (error) {
    metrics.counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "error", [ATTR.TRIGGER]: "periodic" });
    log.warn("the agent catalog could not be read", { operation: "executor_consume", error });
  }
}

export function createScheduledExecutor(options: ScheduledExecutorOptions = {}): ScheduledExecutor {
  const { env = process.env, maxDeadLetters, catalogRefreshMs = 30_000, clock = systemClock, deferAfterMs = 1_000 } = options;
  const settings = readExecutorSettings(options, env);
  // The task queue's own lease variable: the executor's queue is a task queue like any other.
  const leaseMs = readLeaseMs(options.leaseMs, env);
  const log = options.log ?? createLogger({ service: "scheduler", component: "scheduled-executor", env: env as NodeJS.ProcessEnv });
  // A dispatch shorter than the agents' run limit would retry runs still running (settings.ts).
  const dispatchSet = options.dispatchTimeoutMs !== undefined || dispatchLimitOf(env).set;
  const shortDispatch = dispatchTimeoutWarning({ ms: settings.dispatchTimeoutMs, set: dispatchSet }, runLimitOf(env));
  if (shortDispatch !== undefined) log.warn(shortDispatch, { operation: "executor_start" });
  const store = options.store ?? createStore({ env });
  const registry = options.registry ?? createRegistry({ store });
  const deadLetters = createDeadLetters(store, maxDeadLetters === undefined ? {} : { maxEntries: maxDeadLetters });
  const dispatcher: Dispatcher = {
    settings,
    caller: options.caller ?? createCaller({ env: env as NodeJS.ProcessEnv, timeoutMs: settings.dispatchTimeoutMs, log }),
    targets: createTargets(registry, clock),
    // `workerCount` dispatches in flight; the pool leases as many again ahead of them (waiting here
    // for a place), so a finished dispatch is followed at once by the next one instead of by a round
    // trip to the queue.
    // A run whose agent holds its share is deferred after the wait, so other agents' runs pass it;
    // with one share for all (a single worker) there is nobody to let past, so it just waits.
    slots: createSlots(settings.workerCount, {
      perAgent: settings.perAgentLimit,
      clock,
      waitMs: settings.perAgentLimit < settings.workerCount ? deferAfterMs : Number.POSITIVE_INFINITY,
    }),
    deadLetters,
    // The agents' run claims, read where the executor's own store is: same cluster only (the spec).
    runDone: createRunRecord(store).isDone,
    // No jitter: these are one occurrence's retries, spaced base × 2^(n−1) as the settings say.
    retryWait: createBackoff({ baseDelayMs: settings.retryBaseDelayMs, maxDelayMs: settings.retryMaxDelayMs, random: () => 1 }),
    clock,
    log,
    requeue: async ({ task_id, input }) => {
      if (backend === undefined) throw new ManifoldError("UNAVAILABLE", "the executor is not running");
      try {
        await backend.create({ task_id, type: SCHEDULED_TASK_TYPE, input, timeout_ms: MAX_TASK_TIMEOUT_MS });
      } catch (error) {
        // Created already (a redelivery of the task that deferred it): the copy is there.
        if (toManifoldError(error).code !== "TASK_EXISTS") throw error;
      }
    },
  };
  const handlers = { [SCHEDULED_TASK_TYPE]: (input: unknown, context: Parameters<typeof dispatch>[2]) => dispatch(dispatcher, input, context) };
  let backend: TaskBackend | undefined;
  let pool: WorkerPool | undefined;
  let refresher: NodeJS.Timeout | undefined;
  return {
    settings,
    deadLetters,
    async start() {
      if (pool !== undefined) return;
      backend = countedBackend(createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE }), { leaseMs, clock });
      pool = createWorkerPool({ backend, handlers, workerCount: 2 * settings.workerCount, leaseMs, log, env, clock });
      void refreshCatalog(registry, log);
      refresher = setInterval(() => void refreshCatalog(registry, log), catalogRefreshMs).unref();
      log.info(`scheduled executor started (${settings.workerCount} workers, ${settings.maxRetries} retries)`, { operation: "executor_start" });
    },
    async stop(timeoutMs = 10_000) {
      clearInterval(refresher);
      const running = pool;
      pool = undefined;
      if (running === undefined) return;
      await running.stop(timeoutMs);
      await backend?.close();
      if (options.store === undefined) await store.close();
      log.info("scheduled executor stopped", { operation: "executor_stop" });
    },
    replay: (taskId) => replayDeadLetter(store, deadLetters, taskId),
  };
}
