/**
 * How a run ends, for the worker pool: a handler's value or throw becomes an outcome, outcomes are
 * written in batches (`finishMany`, flushed once per event-loop turn), and a run that ends without a
 * write of ours (cancelled, lease lost, handed back at shutdown) is abandoned.
 */
import { redactSecrets } from "../context/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { describe, forget, type PoolState, releaseSlot } from "./pool-state.js";
import type { TaskRun } from "./task-run.js";
import { traceFinished } from "./telemetry.js";
import type { TaskError, TaskOutcome, TaskStatus } from "./types.js";

export const PANIC_MESSAGE = "the task handler failed unexpectedly";
/** A thrown Error's message as stored on the task: long enough to explain, bounded like every record field. */
export const MAX_ERROR_MESSAGE = 2_000;
/** Finished tasks written in one call at most; more wait for the next flush (a few ms later). */
const MAX_FLUSH = 500;

/** What a handler's throw makes of its task, and how loudly it is logged. */
export interface ThrownOutcome {
  readonly error: TaskError;
  /** `warn`: the handler reported an error on purpose; `error`: a bug (a panic); none: a ManifoldError, already a message for callers. */
  readonly log?: "warn" | "error";
}

/**
 * A ManifoldError fails HANDLER_ERROR with its message (an unexposed one says "internal error"),
 * but APPROVAL_REQUIRED (a sensitive call HITL refused: a task cannot pause) fails with that code.
 * The spec's "handler returns an error": an Error the handler threw on purpose fails the task with
 * its message (registered secrets redacted, at most 2,000 characters). A TypeError or ReferenceError
 * is a bug, and a thrown non-Error is not an error value: those are the panics, with a fixed message.
 */
export function outcomeOfThrow(thrown: unknown): ThrownOutcome {
  // Not the handler's error but the runtime's refusal (issue 32, H2): the client learns the task needs an approval it cannot get.
  if (isManifoldError(thrown) && thrown.code === "APPROVAL_REQUIRED") return { error: { code: thrown.code, message: thrown.message } };
  if (isManifoldError(thrown)) return { error: { code: "HANDLER_ERROR", message: thrown.expose ? thrown.message : "internal error" } };
  if (thrown instanceof Error && !(thrown instanceof TypeError) && !(thrown instanceof ReferenceError)) {
    return { error: { code: "HANDLER_ERROR", message: redactSecrets(thrown.message).slice(0, MAX_ERROR_MESSAGE) || thrown.name }, log: "warn" };
  }
  return { error: { code: "HANDLER_PANIC", message: PANIC_MESSAGE }, log: "error" };
}

/** The status a batched write leaves a task in, from its outcome and the backend's answer. */
export function writtenStatus(outcome: TaskOutcome, result: string | undefined): TaskStatus {
  return result === "ok" ? outcome.status : result === "cancelled" ? "cancelled" : "queued";
}

/** Writes up to MAX_FLUSH pending outcomes in one call (scheduling another flush for the rest). */
export function flushOutcomes(pool: PoolState): void {
  pool.flushScheduled = false;
  if (pool.pending.length === 0) return;
  const batch = pool.pending.length > MAX_FLUSH ? pool.pending.splice(0, MAX_FLUSH) : pool.pending;
  if (batch === pool.pending) pool.pending = [];
  if (pool.pending.length > 0) scheduleFlush(pool);
  const write = pool.backend.finishMany(batch.map((p) => p.outcome)).then(
    (results) => {
      batch.forEach(({ entry, outcome }, i) => {
        const result = results[i];
        const status = writtenStatus(outcome, result);
        if (result === "lost") pool.log.warn(`task ${entry.taskId}: lease lost before its outcome was written; another worker has it`);
        traceFinished(
          entry.trace,
          status,
          status === "completed" ? undefined : status === "cancelled" ? "TASK_CANCELLED" : outcome.status === "failed" ? outcome.error.code : undefined,
        );
        forget(pool, entry);
      });
    },
    (error: unknown) => {
      // The leases lapse and the tasks are delivered again: at-least-once, nothing is lost.
      pool.log.error(`writing ${batch.length} task outcome(s) failed; they will be redelivered: ${describe(error)}`);
      for (const { entry } of batch) {
        traceFinished(entry.trace, "queued");
        forget(pool, entry);
      }
    },
  );
  pool.writes.add(write);
  void write.finally(() => pool.writes.delete(write));
}

function scheduleFlush(pool: PoolState): void {
  if (pool.flushScheduled) return;
  pool.flushScheduled = true;
  setImmediate(pool.flush);
}

function finishRun(pool: PoolState, entry: TaskRun, outcome: TaskOutcome): void {
  releaseSlot(pool, entry);
  pool.pending.push({ entry, outcome });
  scheduleFlush(pool);
}

export function failRun(pool: PoolState, entry: TaskRun, error: TaskError): void {
  finishRun(pool, entry, { status: "failed", taskId: entry.taskId, token: entry.leaseToken, error });
}

// A result JSON cannot carry is failed HANDLER_PANIC by the backend, which serialises it anyway.
export function succeedRun(pool: PoolState, entry: TaskRun, result: unknown): void {
  if (!entry.done) finishRun(pool, entry, { status: "completed", taskId: entry.taskId, token: entry.leaseToken, result });
}

export function failRunWithThrow(pool: PoolState, entry: TaskRun, thrown: unknown): void {
  if (entry.done) return;
  const { error, log } = outcomeOfThrow(thrown);
  if (log === "warn") pool.log.warn(`task ${entry.taskId} (${entry.type}) handler returned an error: ${describe(thrown)}`);
  else if (log === "error") pool.log.error(`task ${entry.taskId} (${entry.type}) handler failed: ${describe(thrown)}`);
  failRun(pool, entry, error);
}

/** The run ends without a write of ours: cancelled (already stored), lease lost, or handed back. */
export function abandonRun(pool: PoolState, entry: TaskRun, reason: ManifoldError, status: TaskStatus): void {
  if (!entry.done) releaseSlot(pool, entry);
  entry.abort(reason);
  traceFinished(entry.trace, status, reason.code);
  forget(pool, entry);
}

export function runCancelled(pool: PoolState, entry: TaskRun): void {
  if (!entry.done) abandonRun(pool, entry, new ManifoldError("TASK_CANCELLED", "the task was cancelled"), "cancelled");
}

export function leaseLost(pool: PoolState, entry: TaskRun): void {
  if (entry.done) return;
  pool.log.warn(`task ${entry.taskId}: lease lost (it lapsed and the task was redelivered); the handler is aborted`);
  abandonRun(pool, entry, new ManifoldError("UNAVAILABLE", "the worker lost the task's lease"), "queued");
}
