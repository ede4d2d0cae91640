/**
 * The wire of scheduled runs, kept apart from the route so the feature list (read by gen) can build
 * the OpenAPI part without loading the component runtime.
 */

import { objectSchema, type FieldsSpec, type SchemaDialect } from "../spec/index.js";

export const SCHEDULED_PATH = "/api/v1/scheduled";

/**
 * What the executor POSTs. `I`: the schedule's `input`, as the agent manifest's `scheduled.input`
 * declares it (the generated `<Agent>ScheduledInput`); the route refuses a run whose input does not fit.
 */
export interface ScheduledRequest<I = Readonly<Record<string, unknown>>> {
  readonly schedule_id: string;
  /** `<schedule_id>:<fire_unix_seconds>`: the same for every redelivery of one firing. */
  readonly task_id: string;
  readonly instruction: string;
  readonly input: I;
}

export interface ScheduledContext {
  /** Aborts when the executor hangs up (its dispatch timeout) or the agent shuts down. */
  readonly signal: AbortSignal;
  readonly requestId: string;
}

/** What a handler returns to skip a run on purpose (an application filter): answered HTTP 200 `status: "filtered"`. */
export interface ScheduledSkip {
  readonly filtered: true;
  /** Why, for the executor's log and the answer. */
  readonly reason?: string;
}

/**
 * Answers one scheduled run with the text the schedule's owner gets back, or skips it. Written as a
 * method's type so a handler typed for its agent's declared input (`<Agent>ScheduledHandler`) is
 * accepted by `serve({ scheduled })`: the route has checked the input against that declaration.
 */
export type ScheduledHandler<I = Readonly<Record<string, unknown>>> = {
  handle(request: ScheduledRequest<I>, context: ScheduledContext): string | ScheduledSkip | Promise<string | ScheduledSkip>;
}["handle"];

/**
 * The answer: `{success: true, data: {response, request_id}}` on a run, and on a skipped one
 * `{success: true, status: "filtered", data: {response: "", request_id, reason?}}`.
 */
export type ScheduledResponse =
  | { readonly success: true; readonly data: { readonly response: string; readonly request_id: string } }
  | { readonly success: true; readonly status: "filtered"; readonly data: { readonly response: ""; readonly request_id: string; readonly reason?: string } }
  /** A second delivery of a run already done (same idempotency key): dropped, the handler not run again. */
  | { readonly success: true; readonly status: "duplicate"; readonly data: { readonly response: ""; readonly request_id: string } };

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

/** The request schema, with `input` as the agent manifest's `scheduled.input` declares it when it does. */
export function scheduledRequestSchema(input: FieldsSpec | undefined, dialect: SchemaDialect): Record<string, unknown> {
  if (input === undefined) return SCHEDULED_REQUEST_SCHEMA;
  return { ...SCHEDULED_REQUEST_SCHEMA, properties: { ...SCHEDULED_REQUEST_SCHEMA.properties, input: objectSchema(input, dialect) } };
}

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
  /** A deferred occurrence's next attempt (its earlier attempts count toward the retries). @defaultValue 1 */
  readonly attempt?: number;
  /** A deferred retry's replica to skip: the scheduled URL of the one whose attempt just failed (it may be hung). */
  readonly avoid?: string;
}
