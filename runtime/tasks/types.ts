/**
 * The task model and the storage/queue port every adapter implements (`memory`, `redis`). The API
 * and the worker pool see only this port; the contract suite in test/contract/tasks.cases.ts runs
 * against every adapter.
 */

export type TaskStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** Legal status changes (the seed's table). Anything else is refused by the adapter's compare-and-set. */
export const TASK_TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  queued: ["running", "cancelled"],
  running: ["completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
};

export function isFinished(status: TaskStatus): boolean {
  return TASK_TRANSITIONS[status].length === 0;
}

export interface TaskProgress {
  readonly current_step?: number;
  readonly total_steps?: number;
  readonly step_name?: string;
  readonly percentage?: number;
  readonly message?: string;
}

/** The error of a failed or cancelled task: a runtime error code (HANDLER_ERROR, HANDLER_PANIC, TASK_TIMEOUT, …). */
export interface TaskError {
  readonly code: string;
  readonly message: string;
}

/** A task as stored; the public GET view is `toTaskView`. Timestamps are ISO 8601 strings. */
export interface TaskRecord {
  readonly task_id: string;
  readonly type: string;
  readonly status: TaskStatus;
  readonly input: unknown;
  /** Per-task timeout in milliseconds, fixed at submit. */
  readonly timeout_ms: number;
  readonly progress?: TaskProgress;
  readonly result?: unknown;
  readonly error?: TaskError;
  readonly created_at: string;
  readonly started_at?: string;
  readonly completed_at?: string;
  /** How many times a worker has taken the task (1 on the first run; more after a lapsed lease). */
  readonly deliveries: number;
  /** W3C trace context of the submitting request, so the worker's span can link to it. */
  readonly trace?: { readonly traceparent: string; readonly tracestate?: string };
}

export interface NewTask {
  readonly task_id: string;
  readonly type: string;
  readonly input: unknown;
  readonly timeout_ms: number;
  readonly trace?: TaskRecord["trace"];
}

/** A task a worker owns until `expiresAt` (epoch ms) unless it extends the lease. */
export interface Lease {
  readonly task: TaskRecord;
  /** Proves ownership on every later write; a redelivered task gets a new token, so a zombie worker's writes are refused. */
  readonly token: string;
  readonly expiresAt: number;
}

export type Delivery = "at-least-once" | "at-most-once";

export interface DequeueOptions {
  /** Most tasks to take at once. */
  readonly count: number;
  /** Visibility lease. */
  readonly leaseMs: number;
  /** Wait at most this long for work when the queue is empty (0: return at once). */
  readonly blockMs: number;
  readonly signal?: AbortSignal;
}

/** Outcome of a write that needs the lease: ok, or why not. */
export type LeasedWrite = "ok" | "lost" | "cancelled";

/** One finished task for `finishMany`: a result (running → completed) or an error (running → failed). */
export type TaskOutcome =
  | { readonly status: "completed"; readonly taskId: string; readonly token: string; readonly result: unknown }
  | { readonly status: "failed"; readonly taskId: string; readonly token: string; readonly error: TaskError };

export interface TaskBackend {
  /** Stores a queued task and enqueues it. Throws ManifoldError TASK_EXISTS when the id is taken. */
  create(task: NewTask): Promise<TaskRecord>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Takes up to `count` tasks: queued → running (first delivery), or redelivers a running task whose
   * lease lapsed (deliveries + 1). A task past `maxDeliveries` is failed TASK_REDELIVERY_EXCEEDED
   * instead of returned. Under at-most-once delivery a lapsed task is failed, never redelivered.
   */
  dequeue(options: DequeueOptions): Promise<Lease[]>;
  /** Extends live leases; returns, per task id, what happened (`cancelled`: the worker must abort). */
  extend(leases: readonly { readonly taskId: string; readonly token: string }[], leaseMs: number): Promise<Map<string, LeasedWrite>>;
  /** running → completed, only for the lease holder. */
  complete(taskId: string, token: string, result: unknown): Promise<LeasedWrite>;
  /** running → failed, only for the lease holder. */
  fail(taskId: string, token: string, error: TaskError): Promise<LeasedWrite>;
  /**
   * `complete` and `fail` for many leases at once, each checked on its own exactly as they are;
   * answers in the order given. On Redis it is one script call, so a worker pool that flushes the
   * tasks finished within a tick (or a few milliseconds) through it saves a round trip and most of
   * the server's per-command cost per task. An empty list resolves to `[]`.
   */
  finishMany(outcomes: readonly TaskOutcome[]): Promise<LeasedWrite[]>;
  progress(taskId: string, token: string, progress: TaskProgress): Promise<LeasedWrite>;
  /** running → queued for graceful shutdown: the task is delivered again, its delivery not counted as a death. */
  release(taskId: string, token: string): Promise<LeasedWrite>;
  /**
   * queued | running → cancelled with TASK_CANCELLED. `not_found` for an unknown id; `finished` for a
   * task already completed, failed or cancelled (the record is returned unchanged).
   */
  cancel(taskId: string): Promise<{ readonly outcome: "cancelled" | "finished" | "not_found"; readonly task?: TaskRecord }>;
  /** Tasks waiting to be taken (not counting running ones). */
  depth(): Promise<number>;
  close(): Promise<void>;
}

export interface TaskBackendOptions {
  /** Key namespace (`manifold:v1:<namespace>:tasks…`). @defaultValue `MANIFOLD_REDIS_NAMESPACE`, else `default` */
  readonly namespace?: string;
  /**
   * The queue's name within the namespace: one per agent (its component name), so agents sharing a
   * store never take each other's tasks, and a task id is looked up only among its agent's tasks.
   * Letters, digits, `_`, `.`, `-`. @defaultValue "default"
   */
  readonly queue?: string;
  /** A finished task's record is kept this long. @defaultValue 24 h */
  readonly ttlMs?: number;
  /** Deliveries before a task whose workers keep dying is failed TASK_REDELIVERY_EXCEEDED. @defaultValue 5 */
  readonly maxDeliveries?: number;
  /** @defaultValue "at-least-once" */
  readonly delivery?: Delivery;
}
