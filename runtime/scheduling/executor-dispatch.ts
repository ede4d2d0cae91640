/**
 * The executor's one task handler: read the occurrence, resolve its agent, POST it to the agent's
 * `/api/v1/scheduled` within the dispatch limit, retry a failure after the backoff (the lease is
 * kept alive meanwhile), and dead-letter it after the last attempt, or at once for a target that is
 * a tool.
 */
import type { Caller } from "../outbound/index.js";
import { isManifoldError, ManifoldError, toManifoldError } from "../errors/index.js";
import { abortSourceOf, type TaskContext } from "../tasks/index.js";
import { ATTR, getTelemetry, METRIC, type Logger } from "../telemetry/index.js";
import { type Backoff, type Clock, sleepOn } from "../util/index.js";
import type { Slots } from "./executor-slots.js";
import type { DeadLetter, DeadLetterReason, DeadLetters } from "./dead-letters.js";
import { type AgentLabels, MODULE, type Targets } from "./executor-targets.js";
import type { ExecutorSettings } from "./settings.js";
import type { ScheduledRequest, ScheduledTaskInput } from "./wire.js";

export { createSlots, type Slots } from "./executor-slots.js";

export function readInput(input: unknown): ScheduledTaskInput {
  const task = input as Partial<ScheduledTaskInput> | null;
  if (
    task === null ||
    typeof task !== "object" ||
    typeof task.schedule_id !== "string" ||
    typeof task.target_agent !== "string" ||
    typeof task.instruction !== "string" ||
    typeof task.input !== "object" ||
    task.input === null ||
    (task.attempt !== undefined && (!Number.isSafeInteger(task.attempt) || task.attempt < 1)) ||
    (task.avoid !== undefined && typeof task.avoid !== "string")
  ) {
    throw new ManifoldError("INVALID_INPUT", "a scheduled-executor task needs schedule_id, target_agent, instruction and input");
  }
  return task as ScheduledTaskInput;
}

/**
 * The run's idempotency key: its deterministic task id `<schedule_id>:<fire_unix_seconds>`, without
 * the suffix a replayed or deferred copy's id adds, so every delivery of one occurrence has one key.
 */
export function idempotencyKeyOf(taskId: string): string {
  return taskId.replace(/(?::(?:replay|defer)-\d+)+$/, "");
}

/**
 * The task id the agent is told: a deferred copy's suffix removed, so the agent sees one id for
 * every delivery of a run (a replay keeps its own, being a run an operator asked for again).
 */
export function deliveredIdOf(taskId: string): string {
  return taskId.replace(/(?::defer-\d+)+$/, "");
}

/** What the handler works with, built once by the executor. */
export interface Dispatcher {
  readonly settings: ExecutorSettings;
  readonly caller: Caller;
  readonly targets: Targets;
  readonly slots: Slots;
  readonly deadLetters: DeadLetters;
  readonly retryWait: Backoff;
  /** Puts a deferred occurrence at the back of the queue, as a task of its own. */
  readonly requeue: (task: { task_id: string; input: ScheduledTaskInput }) => Promise<void>;
  /**
   * Whether a run is recorded done by its agent (its run claim, in the same store and namespace):
   * asked only for a redelivered task, whose earlier delivery may have been answered by the agent
   * but not acknowledged (an executor killed mid-dispatch). Absent: every task is dispatched.
   */
  readonly runDone?: ((key: string) => Promise<boolean>) | undefined;
  /** The clock of retry waits and dead letters' times. */
  readonly clock: Clock;
  readonly log: Logger;
}

type Outcome = { readonly status: string } & Record<string, unknown>;

const metrics = () => getTelemetry().metrics;

async function deadLetter(
  d: Dispatcher,
  task: ScheduledTaskInput,
  context: TaskContext,
  reason: DeadLetterReason,
  attempts: number,
  lastError?: ManifoldError,
): Promise<Outcome> {
  const at = new Date(d.clock.now()).toISOString();
  // A deferred copy's bookkeeping (its attempt count, the replica to avoid) is not the occurrence: a
  // replay starts the occurrence afresh, with every retry and every replica.
  const { attempt: _attempt, avoid: _avoid, ...input } = task;
  const letter: DeadLetter = {
    task: { task_id: context.taskId, type: context.type, input, created_at: at, deliveries: context.attempt },
    reason,
    failed_at: at,
    attempts,
    ...(lastError === undefined ? {} : { last_error: { code: lastError.code, message: lastError.message } }),
  };
  try {
    await d.deadLetters.push(letter);
    metrics().counter(METRIC.EXECUTOR_DLQ_WRITES, 1, { ...MODULE, [ATTR.STATUS]: "success" });
  } catch (error) {
    metrics().counter(METRIC.EXECUTOR_DLQ_WRITES, 1, { ...MODULE, [ATTR.STATUS]: "failure" });
    d.log.error("a dead letter could not be written; the task is failed instead", { operation: "executor_dispatch", task_id: context.taskId, error });
    throw new ManifoldError("UNAVAILABLE", `dead letter not written (${reason})`);
  }
  metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, d.targets.labelsOf(task.target_agent).deadLetter);
  d.log.warn(`scheduled task dead-lettered: ${reason}`, {
    operation: "executor_dispatch",
    task_id: context.taskId,
    target_agent: task.target_agent,
    reason,
    attempts,
    ...(lastError === undefined ? {} : { code: lastError.code }),
  });
  return { status: "dead_letter", reason };
}

/**
 * One call under the dispatch timeout, on the executor's clock: past it the call is aborted and
 * fails TIMEOUT (retried, on another replica when the agent has one). The task's own abort (a lost
 * lease, a shutdown) aborts it too.
 */
async function withDeadline<T>(d: Dispatcher, context: TaskContext, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const task = abortSourceOf(context);
  let unlink: () => void = () => undefined;
  if ("onAbort" in task) unlink = task.onAbort(() => controller.abort(task.reason));
  else task.addEventListener("abort", () => controller.abort(task.reason), { once: true });
  let timedOut = false;
  const timer = d.clock.setTimeout(() => {
    timedOut = true;
    controller.abort(new ManifoldError("TIMEOUT", `the agent did not answer within ${d.settings.dispatchTimeoutMs} ms`));
  }, d.settings.dispatchTimeoutMs);
  try {
    return await call(controller.signal);
  } catch (error) {
    if (timedOut && !abortSourceOf(context).aborted) throw new ManifoldError("TIMEOUT", `the agent did not answer within ${d.settings.dispatchTimeoutMs} ms`);
    throw error;
  } finally {
    d.clock.clearTimeout(timer);
    unlink();
  }
}

/**
 * The caller's own failures: the agent was not reached, did not answer in time, answered something
 * that is not an envelope, or the call was aborted; INTERNAL is an unexpected failure (perhaps ours).
 * Retried whatever their `retryable` says: no agent has judged the run.
 */
const NOT_AN_ANSWER = new Set(["NETWORK_ERROR", "TIMEOUT", "INVALID_RESPONSE", "ABORTED", "INTERNAL"]);

/** The agent's answer says no retry can mend the run (403 APPROVAL_REQUIRED, 409 CONFLICT, 400 INVALID_INPUT, …). */
function isRejection(error: unknown): error is ManifoldError {
  return isManifoldError(error) && !error.retryable && !NOT_AN_ANSWER.has(error.code);
}

/** A non-retryable answer, carried from the POST to the handler's loop, which dead-letters the run at once. */
class Rejection {
  constructor(readonly error: ManifoldError) {}
}

/** One POST to the agent's endpoint; its answer must be `{success: true, data}`. */
async function post(
  d: Dispatcher,
  url: string,
  body: ScheduledRequest,
  agent: string,
  context: TaskContext,
  attempt: number,
  started: number,
  tags: AgentLabels,
): Promise<Outcome> {
  const answer = (await withDeadline(d, context, (signal) =>
    d.caller.call({
      url,
      body,
      name: "scheduled",
      target: agent,
      timeoutMs: d.settings.dispatchTimeoutMs,
      signal,
      idempotencyKey: idempotencyKeyOf(context.taskId),
    }),
  ).catch((error: unknown) => {
    throw isRejection(error) ? new Rejection(error) : error;
  })) as { success?: unknown; data?: { response?: unknown; request_id?: unknown } };
  if (answer?.success !== true) throw new ManifoldError("INVALID_RESPONSE", "the agent's answer is not {success: true, data}");
  const ms = performance.now() - started;
  metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, tags.success);
  metrics().histogram(METRIC.EXECUTOR_DISPATCH_DURATION, ms, tags.success);
  d.log.debug("scheduled task dispatched", {
    operation: "executor_dispatch",
    task_id: context.taskId,
    target_agent: agent,
    attempt,
    duration_ms: Math.round(ms),
  });
  return { status: "success", attempts: attempt, response: answer.data?.response, request_id: answer.data?.request_id };
}

function attemptFailed(d: Dispatcher, agent: string, tags: AgentLabels, context: TaskContext, attempt: number, started: number, error: ManifoldError): void {
  // The replica may be gone or hung: the next attempt looks the agent up again, and prefers another replica.
  d.targets.forget(agent);
  metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, tags.error);
  metrics().histogram(METRIC.EXECUTOR_DISPATCH_DURATION, performance.now() - started, tags.error);
  d.log.warn(`scheduled dispatch failed (attempt ${attempt} of ${d.settings.maxRetries + 1}): ${error.message}`, {
    operation: "executor_dispatch",
    task_id: context.taskId,
    target_agent: agent,
    code: error.code,
  });
}

function readTask(input: unknown): ScheduledTaskInput {
  try {
    return readInput(input);
  } catch (error) {
    metrics().counter(METRIC.EXECUTOR_CONSUME_ERRORS, 1, { ...MODULE, [ATTR.ERROR_TYPE]: "invalid_task" });
    throw error;
  }
}

/**
 * The agent stayed at its share for the whole wait: the occurrence goes to the back of the queue as
 * a task of its own (same idempotency key, its attempt count and the replica that just failed
 * carried), so that it does not hold a place in the pool that another agent's run could use. Without
 * the replica, a deferred retry went back to the hung one half the time.
 */
async function defer(d: Dispatcher, task: ScheduledTaskInput, context: TaskContext, attempt: number, failedUrl: string | undefined): Promise<Outcome> {
  const taskId = `${idempotencyKeyOf(context.taskId)}:defer-${d.clock.now()}`;
  const { avoid: _, ...rest } = task;
  await d.requeue({ task_id: taskId, input: { ...rest, attempt, ...(failedUrl === undefined ? {} : { avoid: failedUrl }) } });
  d.log.debug("scheduled task deferred: its agent holds its share of the dispatch places", {
    operation: "executor_consume",
    task_id: context.taskId,
    target_agent: task.target_agent,
    deferred_as: taskId,
  });
  return { status: "deferred", deferred_as: taskId };
}

/**
 * Defers the run; when the queue refuses the copy (Redis down), the run is not failed for it (that
 * lost the run: a failed task is not retried) but waits here for a place instead, bounded by its
 * lease and timeout. Undefined once it holds a place.
 */
async function deferOrWait(
  d: Dispatcher,
  task: ScheduledTaskInput,
  context: TaskContext,
  attempt: number,
  failedUrl: string | undefined,
): Promise<Outcome | undefined> {
  try {
    return await defer(d, task, context, attempt, failedUrl);
  } catch (error) {
    d.log.warn("a scheduled run could not be deferred; it waits for a place instead", { operation: "executor_consume", task_id: context.taskId, error });
  }
  const abort = abortSourceOf(context);
  while (!(await (d.slots.enter(task.target_agent) ?? true))) {
    if (abort.aborted) throw abort.reason;
  }
  return undefined;
}

/** The agent refused the run for good: dead-lettered at once (`rejected`, with its code), its replica not forgotten (it answered). */
async function rejected(
  d: Dispatcher,
  task: ScheduledTaskInput,
  context: TaskContext,
  tags: AgentLabels,
  started: number,
  attempts: number,
  error: ManifoldError,
): Promise<Outcome> {
  metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, tags.error);
  metrics().histogram(METRIC.EXECUTOR_DISPATCH_DURATION, performance.now() - started, tags.error);
  return deadLetter(d, task, context, "rejected", attempts, error);
}

/**
 * A redelivered task (its lease lapsed: an executor died holding it) whose run the agent recorded
 * done: its earlier POST was answered, only not acknowledged. Completed without a POST. A failed
 * read is not a reason to hold the run: it is dispatched, and the agent drops it if it is a duplicate.
 */
async function alreadyDone(d: Dispatcher, context: TaskContext, agent: string): Promise<Outcome | undefined> {
  if (context.attempt <= 1 || d.runDone === undefined) return undefined;
  const key = idempotencyKeyOf(context.taskId);
  const done = await d.runDone(key).catch((error: unknown) => {
    d.log.warn("a redelivered run's record could not be read; it is dispatched", { operation: "executor_dispatch", task_id: context.taskId, error });
    return false;
  });
  if (!done) return undefined;
  metrics().counter(METRIC.EXECUTOR_TASKS_DISPATCHED, 1, d.targets.labelsOf(agent).suppressed);
  d.log.info("redelivered scheduled run already done at its agent: not delivered again", {
    operation: "executor_dispatch",
    task_id: context.taskId,
    target_agent: agent,
    status: "duplicate_suppressed",
    delivery: context.attempt,
  });
  return { status: "duplicate_suppressed" };
}

/** The handler of a `scheduled` task: attempts until one is delivered, the task is aborted, or it is dead-lettered. */
export async function dispatch(d: Dispatcher, input: unknown, context: TaskContext): Promise<Outcome> {
  const task = readTask(input);
  const agent = task.target_agent;
  const tags = d.targets.labelsOf(agent);
  metrics().counter(METRIC.EXECUTOR_TASKS_RECEIVED, 1, tags.received);
  d.log.debug("scheduled task received", { operation: "executor_consume", task_id: context.taskId, target_agent: agent, delivery: context.attempt });
  const suppressed = await alreadyDone(d, context, agent);
  if (suppressed !== undefined) return suppressed;
  const body: ScheduledRequest = { schedule_id: task.schedule_id, task_id: deliveredIdOf(context.taskId), instruction: task.instruction, input: task.input };
  // The run's abort without an AbortSignal per task (see Abortable); the signal only for a retry's wait.
  const abort = abortSourceOf(context);
  let lastError: ManifoldError | undefined;
  // A deferred copy continues its occurrence: the POSTs its earlier copies made count too.
  let attempts = (task.attempt ?? 1) - 1;
  let unknown = false;
  let failedUrl = task.avoid;
  for (let attempt = task.attempt ?? 1; attempt <= d.settings.maxRetries + 1; attempt += 1) {
    if (attempt > 1 && lastError !== undefined) {
      metrics().counter(METRIC.EXECUTOR_RETRY_ATTEMPTS, 1, { ...tags.received, [ATTR.ATTEMPT]: attempt - 1 });
      await sleepOn(d.clock, d.retryWait(attempt - 1), context.signal, { hold: true });
      if (abort.aborted) throw abort.reason;
    }
    const place = d.slots.enter(agent);
    if (place !== undefined && !(await place)) {
      const deferred = await deferOrWait(d, task, context, attempt, failedUrl);
      if (deferred !== undefined) return deferred;
    }
    const started = performance.now();
    try {
      // Aborted while it waited for its turn: the catch hands the task back to the pool.
      if (abort.aborted) throw abort.reason;
      const target = d.targets.known(agent, failedUrl) ?? (await d.targets.resolve(agent, failedUrl));
      // A tool cannot serve /api/v1/scheduled, and will not learn to: no retry.
      if (target.kind === "tool") return await deadLetter(d, task, context, "target_not_agent", attempts);
      unknown = target.kind === "unknown";
      if (target.kind === "unknown") throw new ManifoldError("NOT_FOUND", `no agent named ${agent} is registered`);
      attempts += 1;
      failedUrl = target.url;
      return await post(d, target.url, body, agent, context, attempt, started, tags);
    } catch (error) {
      // Cancelled, timed out or shutting down: the pool decides (a shutdown hands the task back).
      if (abort.aborted) throw abort.reason;
      if (error instanceof Rejection) return await rejected(d, task, context, tags, started, attempts, error.error);
      lastError = toManifoldError(error);
      attemptFailed(d, agent, tags, context, attempt, started, lastError);
    } finally {
      d.slots.leave(agent);
    }
  }
  return deadLetter(d, task, context, unknown ? "unknown_target_agent" : "max_retries_exhausted", attempts, lastError);
}
