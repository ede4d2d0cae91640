import { checkProgress, createProgressWriter, type TaskContext } from "./handler-context.js";
import type { TaskTrace } from "./telemetry.js";
import type { Lease, TaskProgress } from "./types.js";
import type { Abortable, AbortSource } from "../util/index.js";

/** Stores one progress value for a run; never throws (the pool logs and swallows failures). */
export type ProgressSink = (run: TaskRun, progress: TaskProgress) => Promise<void>;

/**
 * One delivery of a task to this process, from dequeue until its outcome is written: the pool's
 * bookkeeping and the handler's context in one object, so a task costs one allocation and a handler
 * that never looks at its signal never pays for an AbortController (the hot path at tens of
 * thousands of tasks a second). Handlers see it typed as TaskContext, which has no lease token.
 */
export class TaskRun implements TaskContext, Abortable {
  readonly input: unknown;
  readonly taskId: string;
  readonly type: string;
  readonly attempt: number;
  readonly timeoutMs: number;
  /** Epoch ms after which the pool's tick times the run out. */
  readonly deadline: number;
  readonly trace: TaskTrace | undefined;
  /** Set once the run has an outcome or was abandoned: later outcomes are ignored, the slot is free. */
  done = false;
  /** Proves the lease on the pool's writes. */
  readonly leaseToken: string;
  readonly #sink: ProgressSink;
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;
  #writer: ((progress: TaskProgress) => Promise<void>) | undefined;
  #listeners: Set<() => void> | undefined;

  /** `startedAt`: now on the pool's clock (the deadline is counted from it). */
  constructor(lease: Lease, trace: TaskTrace | undefined, sink: ProgressSink, startedAt: number) {
    const { task } = lease;
    this.input = task.input;
    this.taskId = task.task_id;
    this.type = task.type;
    this.attempt = task.deliveries;
    this.timeoutMs = task.timeout_ms;
    this.deadline = startedAt + task.timeout_ms;
    this.trace = trace;
    this.leaseToken = lease.token;
    this.#sink = sink;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the handler's signal (now, or when it first asks for it) and the Abortable's listeners; the first reason wins. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener();
  }

  /** Abortable: the run's abort without an AbortSignal, for runtime code that needs one per task (the scheduled executor). */
  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  onAbort(listener: () => void): () => void {
    if (this.#aborted) return () => undefined;
    const listeners = (this.#listeners ??= new Set());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }

  /** An own arrow function, not a method: handlers destructure it (`async (input, { progress }) => …`). */
  readonly progress = (progress: TaskProgress): Promise<void> => {
    const checked = checkProgress(progress);
    if (this.done) return Promise.resolve();
    this.#writer ??= createProgressWriter((value) => this.#sink(this, value));
    return this.#writer(checked);
  };
}

/** The cheapest abort source of a task's context: the run itself when the pool made it, else its signal. */
export function abortSourceOf(context: TaskContext): AbortSource {
  return context instanceof TaskRun ? context : context.signal;
}
