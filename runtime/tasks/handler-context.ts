import type { TaskProgress } from "./types.js";

/** What a task handler gets beside its input. */
export interface TaskContext<I = unknown> {
  /** The task's input, as submitted (and validated against the task type's input schema). */
  readonly input: I;
  /**
   * Aborts when the task is cancelled (reason: ManifoldError TASK_CANCELLED), runs past its timeout
   * (TASK_TIMEOUT), the worker loses its lease, or the worker shuts down past its grace period
   * (UNAVAILABLE; the task goes back to the queue). Pass it to every call that can take one.
   */
  readonly signal: AbortSignal;
  readonly taskId: string;
  /** The task type (its manifest name). */
  readonly type: string;
  /** Deliveries so far: 1 on the first run, more when a worker died holding the task. */
  readonly attempt: number;
  /**
   * Records progress, visible on `GET /api/v1/tasks/<id>`. Writes are coalesced: a burst of calls
   * writes the latest value, and the promise resolves once it (or a newer one) is stored. A failed
   * write is logged, never thrown: progress is informative. Throws TypeError on a malformed value.
   */
  progress(progress: TaskProgress): Promise<void>;
}

/**
 * A task handler: returns the result (JSON-serialisable) or throws. A thrown ManifoldError fails the
 * task HANDLER_ERROR with its message; anything else fails it HANDLER_PANIC with a fixed message,
 * the real error going to the log. Same `(input, context)` shape as a capability handler.
 */
export type TaskHandler<I = unknown, O = unknown> = (input: I, context: TaskContext<I>) => O | Promise<O>;

export interface RunWorkflowOptions {
  readonly signal: AbortSignal;
  readonly progress: (progress: TaskProgress) => Promise<void>;
  readonly taskId: string;
}

/** Runs a named workflow of the agent for a task type that declares `workflow:`; the lead wires it to orchestration. */
export type RunWorkflow = (workflow: string, input: unknown, options: RunWorkflowOptions) => Promise<unknown>;

const PROGRESS_KEYS = new Set(["current_step", "total_steps", "step_name", "percentage", "message"]);
/** Long enough for a sentence, short enough that a record stays small. */
const MAX_PROGRESS_TEXT = 1_000;

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isText(value: unknown): boolean {
  return typeof value === "string" && value.length <= MAX_PROGRESS_TEXT;
}

/**
 * A progress value a handler passed, checked field by field: a handler bug is a TypeError at the
 * call, not a malformed record a poller trips on later. Returns a copy with only the known fields.
 */
export function checkProgress(value: unknown): TaskProgress {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError("progress must be an object");
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  for (const [key, field] of entries) {
    if (!PROGRESS_KEYS.has(key)) throw new TypeError(`progress.${key} is not a progress field (current_step, total_steps, step_name, percentage, message)`);
    const ok =
      key === "percentage"
        ? typeof field === "number" && Number.isFinite(field) && field >= 0 && field <= 100
        : key === "current_step" || key === "total_steps"
          ? isCount(field)
          : isText(field);
    if (!ok) {
      const want =
        key === "percentage"
          ? "a number from 0 to 100"
          : key.endsWith("_steps") || key === "current_step"
            ? "a non-negative integer"
            : `a string of at most ${MAX_PROGRESS_TEXT} characters`;
      throw new TypeError(`progress.${key} must be ${want}`);
    }
  }
  return Object.fromEntries(entries) as TaskProgress;
}

/**
 * Coalesces progress writes of one task: at most one write in flight, and the newest value wins. The
 * returned function resolves once the value it was given, or a newer one, has been handed to `write`.
 */
export function createProgressWriter(write: (progress: TaskProgress) => Promise<void>): (progress: TaskProgress) => Promise<void> {
  let latest: TaskProgress | undefined;
  let flushing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    try {
      while (latest !== undefined) {
        const next = latest;
        latest = undefined;
        await write(next);
      }
    } finally {
      flushing = undefined;
    }
  };
  return (progress) => {
    latest = progress;
    flushing ??= flush();
    return flushing;
  };
}
