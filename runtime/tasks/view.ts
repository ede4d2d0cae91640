import type { TaskError, TaskProgress, TaskRecord, TaskStatus } from "./types.js";

/** Where the task API lives on an agent. */
export const TASKS_PATH = "/api/v1/tasks";

/** `GET /api/v1/tasks/<id>` and the answer of a cancel: the record without its internals (input, lease, trace). */
export interface TaskView<O = unknown> {
  readonly task_id: string;
  readonly type: string;
  readonly status: TaskStatus;
  readonly progress?: TaskProgress;
  /** Present once completed. */
  readonly result?: O;
  /** Present once failed or cancelled: a runtime error code and its message. */
  readonly error?: TaskError;
  readonly created_at: string;
  readonly started_at?: string;
  readonly completed_at?: string;
}

/** The 202 answer of `POST /api/v1/tasks`. */
export interface TaskSubmitted {
  readonly task_id: string;
  readonly status: "queued";
  /** Relative to the agent's base URL; also sent as the `Location` header. */
  readonly status_url: string;
}

export function statusUrl(taskId: string): string {
  return `${TASKS_PATH}/${encodeURIComponent(taskId)}`;
}

/** The public view of a stored task. Fields in a fixed order, absent ones left out. */
export function toTaskView(task: TaskRecord): TaskView {
  return {
    task_id: task.task_id,
    type: task.type,
    status: task.status,
    ...(task.progress === undefined ? {} : { progress: task.progress }),
    ...(task.status === "completed" ? { result: task.result ?? null } : {}),
    ...(task.error === undefined ? {} : { error: task.error }),
    created_at: task.created_at,
    ...(task.started_at === undefined ? {} : { started_at: task.started_at }),
    ...(task.completed_at === undefined ? {} : { completed_at: task.completed_at }),
  };
}
