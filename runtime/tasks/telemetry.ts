/**
 * The task runtime's spans and metrics, kept out of the worker loop: every function is a no-op (one
 * property read) while telemetry is off, so the pool's hot path pays nothing for it.
 */
import { ATTR, METRIC, TASK_SPAN } from "../telemetry/index.js";
import { getTelemetry, type SpanTrace } from "../telemetry/index.js";
import type { TaskProgress, TaskRecord, TaskStatus } from "./types.js";

/** One task run as telemetry sees it; undefined while telemetry is off. */
export interface TaskTrace {
  readonly span: SpanTrace | undefined;
  readonly type: string;
  readonly started: number;
}

export function recordSubmitted(type: string): void {
  const telemetry = getTelemetry();
  if (telemetry.enabled) telemetry.metrics.counter(METRIC.TASKS_SUBMITTED, 1, { [ATTR.TASK_TYPE_LABEL]: type, [ATTR.STATUS]: "queued" });
}

/**
 * A worker took the task: `task.process` starts as the root of a trace of its own, linked to the
 * submitting request's span (the record keeps its traceparent), and `task.started` is its first event.
 */
export function traceStarted(task: TaskRecord): TaskTrace | undefined {
  const telemetry = getTelemetry();
  if (!telemetry.enabled) return undefined;
  const span = telemetry.startSpan(TASK_SPAN.PROCESS, {
    attributes: { [ATTR.TASK_ID]: task.task_id, [ATTR.TASK_TYPE]: task.type, [ATTR.TASK_ATTEMPT]: task.deliveries },
    ...(task.trace === undefined ? {} : { links: [task.trace] }),
  });
  span?.event(TASK_SPAN.STARTED, { [ATTR.TASK_ATTEMPT]: task.deliveries });
  const labels = { [ATTR.TASK_TYPE_LABEL]: task.type, [ATTR.STATUS]: "running" };
  telemetry.metrics.counter(METRIC.TASKS_STARTED, 1, labels);
  // Queue wait is measured on the first delivery only: a redelivery's wait is the dead worker's lease.
  if (task.deliveries === 1 && task.started_at !== undefined) {
    const wait = Date.parse(task.started_at) - Date.parse(task.created_at);
    if (Number.isFinite(wait) && wait >= 0) telemetry.metrics.histogram(METRIC.TASKS_QUEUE_WAIT, wait, { [ATTR.TASK_TYPE_LABEL]: task.type });
  }
  return { span, type: task.type, started: performance.now() };
}

export function traceProgress(trace: TaskTrace | undefined, progress: TaskProgress): void {
  trace?.span?.event(TASK_SPAN.PROGRESS, {
    "manifold.task.progress.percentage": progress.percentage,
    "manifold.task.progress.current_step": progress.current_step,
    "manifold.task.progress.total_steps": progress.total_steps,
    "manifold.task.progress.step_name": progress.step_name,
  });
}

/** The run ended with a final status, or was handed back to the queue (`queued`: no outcome metric). */
export function traceFinished(trace: TaskTrace | undefined, status: TaskStatus, errorCode?: string): void {
  if (trace === undefined) return;
  const telemetry = getTelemetry();
  if (status === "queued") {
    // Handed back at shutdown: not an outcome, another worker reports the real one.
    trace.span?.end();
    return;
  }
  if (status === "completed") trace.span?.event(TASK_SPAN.COMPLETED);
  else trace.span?.event(TASK_SPAN.FAILED, { [ATTR.TASK_STATUS]: status, [ATTR.ERROR_CODE]: errorCode });
  trace.span?.end(status === "completed" ? undefined : errorCode);
  if (!telemetry.enabled) return;
  const labels = { [ATTR.TASK_TYPE_LABEL]: trace.type, [ATTR.STATUS]: status, [ATTR.ERROR_CODE]: errorCode };
  telemetry.metrics.counter(METRIC.TASKS_COMPLETED, 1, labels);
  telemetry.metrics.histogram(METRIC.TASKS_DURATION, performance.now() - trace.started, labels);
}

/** A worker pool began (or stopped) taking tasks in this process: the spec's worker started / stopped. */
export function recordWorker(event: "started" | "stopped"): void {
  const telemetry = getTelemetry();
  if (telemetry.enabled) telemetry.metrics.counter(event === "started" ? METRIC.TASKS_WORKER_STARTED : METRIC.TASKS_WORKER_STOPPED, 1);
}

/** Sampled on the pool's tick. */
export function recordActive(active: number): void {
  const telemetry = getTelemetry();
  if (telemetry.enabled) telemetry.metrics.gauge(METRIC.TASKS_WORKERS_ACTIVE, active);
}

export function recordQueueDepth(depth: number): void {
  const telemetry = getTelemetry();
  if (telemetry.enabled) telemetry.metrics.gauge(METRIC.TASKS_QUEUE_DEPTH, depth);
}

export function telemetryEnabled(): boolean {
  return getTelemetry().enabled;
}
