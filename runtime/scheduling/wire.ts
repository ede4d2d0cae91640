/**
 * The wire of scheduled runs, kept apart from the route so the feature list (read by gen) can build
 * the OpenAPI part without loading the component runtime.
 */

export const SCHEDULED_PATH = "/api/v1/scheduled";

/** What the executor POSTs (the spec's ScheduledRequest). */
export interface ScheduledRequest {
  readonly schedule_id: string;
  /** `<schedule_id>:<fire_unix_seconds>`: the same for every redelivery of one firing. */
  readonly task_id: string;
  readonly instruction: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export interface ScheduledContext {
  /** Aborts when the executor hangs up (its dispatch timeout) or the agent shuts down. */
  readonly signal: AbortSignal;
  readonly requestId: string;
}

/** Answers one scheduled run with the text the schedule's owner gets back. */
export type ScheduledHandler = (request: ScheduledRequest, context: ScheduledContext) => string | Promise<string>;

/** The answer on success: `{success: true, data: {response, request_id}}`. */
export interface ScheduledResponse {
  readonly success: true;
  readonly data: { readonly response: string; readonly request_id: string };
}

export const SCHEDULED_REQUEST_SCHEMA = {
  type: "object",
  properties: {
    schedule_id: { type: "string", minLength: 1, maxLength: 200 },
    task_id: { type: "string", minLength: 1, maxLength: 200 },
    instruction: { type: "string", maxLength: 100_000 },
    input: { type: "object" },
  },
  required: ["schedule_id", "task_id", "instruction", "input"],
  additionalProperties: false,
} as const;

/** The task queue the scheduler fills and the executor consumes (the spec's fixed name). */
export const SCHEDULED_EXECUTOR_QUEUE = "scheduled-executor";
/** The type of the tasks on that queue. */
export const SCHEDULED_TASK_TYPE = "scheduled";

/** A fired occurrence, as the scheduler enqueues it (task id `<schedule_id>:<fire_unix_seconds>`). */
export interface ScheduledTaskInput {
  readonly schedule_id: string;
  /** The agent whose `POST /api/v1/scheduled` runs it, found through discovery at dispatch. */
  readonly target_agent: string;
  readonly instruction: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** ISO 8601 of the occurrence (the due time, not the moment it was enqueued). */
  readonly due_at: string;
}
