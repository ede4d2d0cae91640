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
import { baseUrlOf, createRegistry, preferHealthy, type Registry, type RegistryEntry } from "../discovery/index.js";
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { createStore, type Store } from "../store/index.js";
import { abortSourceOf, createTaskBackend, createWorkerPool, type TaskBackend, type TaskContext, type WorkerPool } from "../tasks/index.js";
import { ATTR, createLogger, getTelemetry, METRIC, type Logger } from "../telemetry/index.js";
import { createBackoff, sleep } from "../util/index.js";
import { createDeadLetters, replayDeadLetter, type DeadLetter, type DeadLetterReason, type DeadLetters } from "./dead-letters.js";
import { readExecutorSettings, type ExecutorSettings } from "./settings.js";
import { SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_PATH, SCHEDULED_TASK_TYPE, type ScheduledRequest, type ScheduledTaskInput } from "./wire.js";

export interface ScheduledExecutorOptions extends Partial<ExecutorSettings> {
  /** Where the queue and the dead-letter list live. @defaultValue `createStore({ env })` */
  readonly store?: Store;
  /** Where target agents are found. @defaultValue `createRegistry({ store })` */
  readonly registry?: Registry;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Visibility lease of a dispatch: a dead executor's task is redelivered this long after its last extension. @defaultValue 30 s */
  readonly leaseMs?: number;
  /** Most dead letters kept (the oldest are dropped). @defaultValue 10,000 */
  readonly maxDeadLetters?: number;
  /** @defaultValue a caller with `MANIFOLD_OAUTH_TOKEN` (keep-alive undici, the caller's default) */
  readonly caller?: Caller;
  /** How often the known-agents gauge is refreshed. @defaultValue 30 s */
  readonly catalogRefreshMs?: number;
  readonly log?: Logger;
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

/** What a target agent's name resolves to: the URL of one replica's scheduled endpoint, or why there is none. */
type Target = { readonly kind: "agent"; readonly url: string } | { readonly kind: "tool" } | { readonly kind: "unknown" };

/** An agent's usable replicas (healthy ones first) and their endpoints, as last looked up. */
interface Replicas {
  readonly urls: readonly string[];
  readonly at: number;
}

/**
 * How long a lookup of an agent's replicas is reused: the catalog cache's own freshness, so a burst
 * of dispatches to one agent costs one lookup a second, not one each. A failed dispatch forgets it.
 */
const REPLICAS_FRESH_MS = 1_000;
/** Agents whose replicas (and metric labels) are remembered at most; past it the memo starts over. */
const MAX_AGENTS_REMEMBERED = 10_000;

const MODULE = { [ATTR.MODULE]: SCHEDULED_EXECUTOR_QUEUE };

/** One target agent's metric labels, built once (spreading computed-key literals on every dispatch showed in profiles). */
interface AgentLabels {
  readonly received: Readonly<Record<string, string>>;
  readonly success: Readonly<Record<string, string>>;
  readonly error: Readonly<Record<string, string>>;
  readonly deadLetter: Readonly<Record<string, string>>;
}

/** At most `limit` dispatches at once; the rest wait their turn in arrival order. */
interface Slots {
  /** Takes a place: at once (undefined) while one is free, else a promise of one. */
  enter(): Promise<void> | undefined;
  leave(): void;
}

/**
 * The dispatch limit. Entering is synchronous while a place is free, so the common case costs no
 * promise. A waiter is not watched for an abort: one whose task was aborted while it waited (a lost
 * lease, the pool's shutdown) hands its place on as soon as it gets it, and the dispatches in flight
 * end on the same aborts, so the line always moves.
 */
function createSlots(limit: number): Slots {
  let free = limit;
  const line: (() => void)[] = [];
  return {
    enter: () => {
      if (free === 0) return new Promise((resolve) => line.push(resolve));
      free -= 1;
      return undefined;
    },
    leave: () => {
      const next = line.shift();
      if (next === undefined) free += 1;
      else next();
    },
  };
}

function agentLabels(agent: string): AgentLabels {
  const received = { ...MODULE, [ATTR.TARGET_AGENT]: agent };
  return {
    received,
    success: { ...received, [ATTR.STATUS]: "success" },
    error: { ...received, [ATTR.STATUS]: "error" },
    deadLetter: { ...received, [ATTR.STATUS]: "dead_letter" },
  };
}

function readInput(input: unknown): ScheduledTaskInput {
  const task = input as Partial<ScheduledTaskInput> | null;
  if (
    task === null ||
    typeof task !== "object" ||
    typeof task.schedule_id !== "string" ||
    typeof task.target_agent !== "string" ||
    typeof task.instruction !== "string" ||
    typeof task.input !== "object" ||
    task.input === null
  ) {
    throw new ManifoldError("INVALID_INPUT", "a scheduled-executor task needs schedule_id, target_agent, instruction and input");
  }
  return task as ScheduledTaskInput;
}

export function createScheduledExecutor(options: ScheduledExecutorOptions = {}): ScheduledExecutor {
  const { env = process.env, leaseMs = 30_000, maxDeadLetters, catalogRefreshMs = 30_000 } = options;
  const settings = readExecutorSettings(options, env);
  const log = options.log ?? createLogger({ service: "scheduler", component: "scheduled-executor", env: env as NodeJS.ProcessEnv });
  const store = options.store ?? createStore({ env });
  const registry = options.registry ?? createRegistry({ store });
  const caller = options.caller ?? createCaller({ env: env as NodeJS.ProcessEnv, timeoutMs: settings.dispatchTimeoutMs, log });
  const deadLetters = createDeadLetters(store, maxDeadLetters === undefined ? {} : { maxEntries: maxDeadLetters });
  let backend: TaskBackend | undefined;
  let pool: WorkerPool | undefined;
  let refresher: NodeJS.Timeout | undefined;
  const turn = new Map<string, number>();
  // `workerCount` dispatches in flight; the pool leases as many again ahead of them (waiting here
  // for a place), so a finished dispatch is followed at once by the next one instead of by a round
  // trip to the queue.
  const slots = createSlots(settings.workerCount);
  // No jitter: these are one occurrence's retries, spaced base × 2^(n−1) as the settings say.
  const retryWait = createBackoff({ baseDelayMs: settings.retryBaseDelayMs, maxDelayMs: settings.retryMaxDelayMs, random: () => 1 });

  const metrics = () => getTelemetry().metrics;

  const refreshCatalog = async (): Promise<void> => {
    try {
      const agents = await registry.byType("agent");
      metrics().counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "success", [ATTR.TRIGGER]: "periodic" });
      metrics().gauge(METRIC.EXECUTOR_CATALOG_AGENTS_KNOWN, new Set(agents.map((a) => a.name)).size, MODULE);
    } catch (error) {
      metrics().counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "error", [ATTR.TRIGGER]: "periodic" });
      log.warn("the agent catalog could not be read", { operation: "executor_consume", error });
    }
  };

  const replicas = new Map<string, Replicas>();
  const labels = new Map<string, AgentLabels>();
  const labelsOf = (agent: string): AgentLabels => {
    let found = labels.get(agent);
    if (found === undefined) {
      if (labels.size >= MAX_AGENTS_REMEMBERED) labels.clear();
      labels.set(agent, (found = agentLabels(agent)));
    }
    return found;
  };

  /** Round-robin over the replicas looked up last, while that lookup is fresh; undefined when it is not. */
  const known = (name: string): Target | undefined => {
    const found = replicas.get(name);
    if (found === undefined || Date.now() - found.at >= REPLICAS_FRESH_MS) return undefined;
    const next = turn.get(name) ?? 0;
    turn.set(name, next + 1);
    return { kind: "agent", url: found.urls[next % found.urls.length]! };
  };

  /** A healthy replica (round-robin), else any live one; a name registered only as a tool is `tool`. */
  const resolve = async (name: string): Promise<Target> => {
    let entries: RegistryEntry[];
    try {
      entries = await registry.byName(name, { health: ["healthy", "degraded", "unknown"] });
      metrics().counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "success", [ATTR.TRIGGER]: "cache_miss" });
    } catch (error) {
      metrics().counter(METRIC.EXECUTOR_CATALOG_REFRESH, 1, { ...MODULE, [ATTR.STATUS]: "error", [ATTR.TRIGGER]: "cache_miss" });
      throw error;
    }
    const agents = entries.filter((e) => e.type === "agent");
    // Neither answer is remembered: an agent registering now is found by the next attempt.
    if (agents.length === 0) return entries.length > 0 ? { kind: "tool" } : { kind: "unknown" };
    if (replicas.size >= MAX_AGENTS_REMEMBERED) {
      replicas.clear();
      turn.clear();
    }
    replicas.set(name, { urls: preferHealthy(agents).map((entry) => `${baseUrlOf(entry)}${SCHEDULED_PATH}`), at: Date.now() });
    return known(name)!;
  };

  const deadLetter = async (task: ScheduledTaskInput, context: TaskContext, reason: DeadLetterReason, attempts: number, lastError?: ManifoldError) => {
    const letter: DeadLetter = {
      task: { task_id: context.taskId, type: context.type, input: task, created_at: new Date().toISOString(), deliveries: context.attempt },
      reason,
      failed_at: new Date().toISOString(),
      attempts,
      ...(lastError === undefined ? {} : { last_error: { code: lastError.code, message: lastError.message } }),
    };
    try {
      await deadLetters.push(letter);
      metrics().counter(METRIC.EXECUTOR_DLQ_WRITES, 1, { ...MODULE, [ATTR.STATUS]: "success" });
    } catch (error) {
      metrics().counter(METRIC.EXECUTOR_DLQ_WRITES, 1, { ...MODULE, [ATTR.STATUS]: "failure" });
      log.error("a dead letter could not be written; the task is failed instead", { operation: "executor_dispatch", task_id: context.taskId, error });
      throw new ManifoldError("UNAVAILABLE", `dead letter not written (${reason})`);
    }
    metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, labelsOf(task.target_agent).deadLetter);
    log.warn(`scheduled task dead-lettered: ${reason}`, {
      operation: "executor_dispatch",
      task_id: context.taskId,
      target_agent: task.target_agent,
      reason,
      attempts,
    });
    return { status: "dead_letter", reason };
  };

  const dispatch = async (input: unknown, context: TaskContext) => {
    let task: ScheduledTaskInput;
    try {
      task = readInput(input);
    } catch (error) {
      metrics().counter(METRIC.EXECUTOR_CONSUME_ERRORS, 1, { ...MODULE, [ATTR.ERROR_TYPE]: "invalid_task" });
      throw error;
    }
    const agent = task.target_agent;
    const tags = labelsOf(agent);
    metrics().counter(METRIC.EXECUTOR_TASKS_RECEIVED, 1, tags.received);
    log.debug("scheduled task received", { operation: "executor_consume", task_id: context.taskId, target_agent: agent, delivery: context.attempt });
    const body: ScheduledRequest = { schedule_id: task.schedule_id, task_id: context.taskId, instruction: task.instruction, input: task.input };
    // The run's abort without an AbortSignal per task (see Abortable); the signal only for a retry's wait.
    const abort = abortSourceOf(context);
    let lastError: ManifoldError | undefined;
    let attempts = 0;
    let unknown = false;
    for (let attempt = 1; attempt <= settings.maxRetries + 1; attempt += 1) {
      if (attempt > 1) {
        metrics().counter(METRIC.EXECUTOR_RETRY_ATTEMPTS, 1, { ...tags.received, [ATTR.ATTEMPT]: attempt - 1 });
        await sleep(retryWait(attempt - 1), context.signal);
        if (abort.aborted) throw abort.reason;
      }
      const place = slots.enter();
      if (place !== undefined) await place;
      const started = performance.now();
      try {
        // Aborted while it waited for its turn: the catch hands the task back to the pool.
        if (abort.aborted) throw abort.reason;
        const target = known(agent) ?? (await resolve(agent));
        // A tool cannot serve /api/v1/scheduled, and will not learn to: no retry.
        if (target.kind === "tool") return await deadLetter(task, context, "target_not_agent", attempts);
        unknown = target.kind === "unknown";
        if (target.kind === "unknown") throw new ManifoldError("NOT_FOUND", `no agent named ${agent} is registered`);
        attempts += 1;
        const answer = (await caller.call({
          url: target.url,
          body,
          name: "scheduled",
          target: agent,
          timeoutMs: settings.dispatchTimeoutMs,
          signal: abort,
        })) as { success?: unknown; data?: { response?: unknown; request_id?: unknown } };
        if (answer?.success !== true) throw new ManifoldError("INVALID_RESPONSE", "the agent's answer is not {success: true, data}");
        const ms = performance.now() - started;
        metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, tags.success);
        metrics().histogram(METRIC.EXECUTOR_DISPATCH_DURATION, ms, tags.success);
        log.debug("scheduled task dispatched", {
          operation: "executor_dispatch",
          task_id: context.taskId,
          target_agent: agent,
          attempt,
          duration_ms: Math.round(ms),
        });
        return { status: "success", attempts: attempt, response: answer.data?.response, request_id: answer.data?.request_id };
      } catch (error) {
        // Cancelled, timed out or shutting down: the pool decides (a shutdown hands the task back).
        if (abort.aborted) throw abort.reason;
        lastError = toManifoldError(error);
        // The replica may be gone: the next attempt looks the agent up again.
        replicas.delete(agent);
        metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, tags.error);
        metrics().histogram(METRIC.EXECUTOR_DISPATCH_DURATION, performance.now() - started, tags.error);
        log.warn(`scheduled dispatch failed (attempt ${attempt} of ${settings.maxRetries + 1}): ${lastError.message}`, {
          operation: "executor_dispatch",
          task_id: context.taskId,
          target_agent: agent,
          code: lastError.code,
        });
      } finally {
        slots.leave();
      }
    }
    return deadLetter(task, context, unknown ? "unknown_target_agent" : "max_retries_exhausted", attempts, lastError);
  };

  return {
    settings,
    deadLetters,
    async start() {
      if (pool !== undefined) return;
      backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
      pool = createWorkerPool({ backend, handlers: { [SCHEDULED_TASK_TYPE]: dispatch }, workerCount: 2 * settings.workerCount, leaseMs, log, env });
      void refreshCatalog();
      refresher = setInterval(() => void refreshCatalog(), catalogRefreshMs).unref();
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
