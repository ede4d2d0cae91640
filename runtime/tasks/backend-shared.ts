/**
 * What the task backends (memory, redis) share: option defaults and checks, the check of a new task,
 * the errors the backend itself writes into records, and the encoding of handler results. Keeping
 * these in one place is what lets the contract suite hold both adapters to the same behaviour.
 */
import { ManifoldError } from "../errors/index.js";
import { checkKeyName, resolveNamespace } from "../store/index.js";
import { checkInteger } from "../util/index.js";
import type { DequeueOptions, Delivery, NewTask, TaskBackendOptions, TaskError } from "./types.js";

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Most tasks one dequeue may take: keeps a Redis script call short (it blocks the server while it runs). */
export const MAX_DEQUEUE_COUNT = 1_000;

export interface ResolvedBackendOptions {
  readonly namespace: string;
  readonly queue: string;
  readonly ttlMs: number;
  readonly maxDeliveries: number;
  readonly delivery: Delivery;
}

/** Bad options are a programming or deployment error, found at start-up: RangeError, like the store's. */
export function resolveBackendOptions(
  { namespace, queue = "default", ttlMs = DAY_MS, maxDeliveries = 5, delivery = "at-least-once" }: TaskBackendOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ResolvedBackendOptions {
  // The store's namespace rule; the queue becomes a hash tag, so it follows the same rule.
  const ns = resolveNamespace(namespace, env, "task backend namespace");
  checkKeyName("task queue name", queue);
  checkInteger("ttlMs", ttlMs, { min: 1 });
  checkInteger("maxDeliveries", maxDeliveries, { min: 1 });
  if (delivery !== "at-least-once" && delivery !== "at-most-once")
    throw new RangeError(`delivery must be "at-least-once" or "at-most-once" (got ${JSON.stringify(delivery)})`);
  return { namespace: ns, queue, ttlMs, maxDeliveries, delivery };
}

/**
 * Task ids become part of a Redis key, so braces, whitespace and control characters are refused.
 * UUIDs and the scheduler's `<schedule_id>:<fire_unix_seconds>` both fit.
 */
const TASK_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export function checkTaskId(taskId: unknown): asserts taskId is string {
  if (typeof taskId !== "string" || !TASK_ID.test(taskId)) {
    throw new ManifoldError("INVALID_INPUT", "task_id must be 1-200 letters, digits, '_', '.', ':' or '-'", {
      details: [{ pointer: "/task_id", message: "invalid task id" }],
    });
  }
}

/** What goes into a new record besides the id: the part that never changes after submit. */
export interface FixedPart {
  readonly type: string;
  readonly timeout_ms: number;
  readonly trace?: NewTask["trace"];
  readonly input: unknown;
}

/** Checks a new task and returns its unchanging part as JSON (input included). */
export function encodeNewTask(task: NewTask): string {
  checkTaskId(task.task_id);
  const { type, timeout_ms, trace, input } = task;
  // One pass; the problem list is made only for a task that has one (this runs once per task submitted),
  // and the stored object is a literal in the stored key order, not spread from a fresh one.
  let problems: { pointer: string; message: string }[] | undefined;
  if (typeof type !== "string" || type === "") (problems ??= []).push({ pointer: "/type", message: "must be a non-empty string" });
  if (!Number.isSafeInteger(timeout_ms) || timeout_ms < 1) (problems ??= []).push({ pointer: "/timeout_ms", message: "must be a positive integer" });
  if (trace !== undefined && !validTrace(trace)) (problems ??= []).push({ pointer: "/trace", message: "must be {traceparent, tracestate?}" });
  let json: string | undefined;
  try {
    json = JSON.stringify(trace === undefined ? { type, timeout_ms, input } : { type, timeout_ms, trace, input });
  } catch {
    (problems ??= []).push({ pointer: "/input", message: "is not JSON-serialisable" });
  }
  if (problems !== undefined || json === undefined) {
    const details = problems ?? [];
    throw new ManifoldError("INVALID_INPUT", `invalid task: ${details.map((p) => `${p.pointer} ${p.message}`).join("; ")}`, { details });
  }
  return json;
}

function validTrace(trace: unknown): boolean {
  return typeof trace === "object" && trace !== null && typeof (trace as { traceparent?: unknown }).traceparent === "string";
}

export function checkDequeueOptions({ count, leaseMs, blockMs }: DequeueOptions): void {
  checkInteger("dequeue count", count, { min: 1, max: MAX_DEQUEUE_COUNT });
  checkLeaseMs(leaseMs);
  checkInteger("blockMs", blockMs, { min: 0 });
}

export function checkLeaseMs(leaseMs: number): void {
  checkInteger("leaseMs", leaseMs, { min: 1 });
}

export const CANCELLED_ERROR: TaskError = { code: "TASK_CANCELLED", message: "The task was cancelled" };

export function redeliveryExceeded(maxDeliveries: number): TaskError {
  return {
    code: "TASK_REDELIVERY_EXCEEDED",
    message: `The task's worker stopped answering (lease lapsed) on each of its ${maxDeliveries} deliver${maxDeliveries === 1 ? "y" : "ies"}; not delivered again`,
  };
}

/** At-most-once delivery: a lapsed lease ends the task, under the same code as a spent redelivery budget. */
export const LEASE_LAPSED_AT_MOST_ONCE: TaskError = {
  code: "TASK_REDELIVERY_EXCEEDED",
  message: "The task's worker stopped answering (lease lapsed); delivery is at-most-once, so it is not delivered again",
};

/** The handler returned something JSON cannot carry (a BigInt, a cycle): the task fails rather than stays running. */
export const UNSERIALISABLE_RESULT: TaskError = { code: "HANDLER_PANIC", message: "The handler returned a result that is not JSON-serialisable" };

/**
 * A result as stored: its JSON, or `""` for `undefined` (no result), or the failure to record instead.
 * `toJSON` and friends apply, as they would on the wire.
 */
export function encodeResult(result: unknown): { readonly json: string } | { readonly error: TaskError } {
  const json = resultJson(result);
  return json === undefined ? { error: UNSERIALISABLE_RESULT } : { json };
}

/** encodeResult's JSON without a wrapper object, undefined for a result JSON cannot carry (the finish of every task calls it). */
export function resultJson(result: unknown): string | undefined {
  try {
    return JSON.stringify(result) ?? "";
  } catch {
    return undefined;
  }
}

/** A TaskError as stored: only its two fields, whatever else the caller's object carried. */
export function encodeError(error: TaskError): string {
  return JSON.stringify({ code: String(error.code), message: String(error.message) });
}

/** Progress as stored; a progress object JSON cannot carry is stored as empty rather than failing the handler. */
export function encodeProgress(progress: unknown): string {
  try {
    return JSON.stringify(progress) ?? "{}";
  } catch {
    return "{}";
  }
}

export function closedError(): ManifoldError {
  return new ManifoldError("UNAVAILABLE", "the task backend is closed");
}
