/**
 * The closed set of runtime error codes. Every error that crosses a process boundary carries one of
 * these in the envelope `{success: false, error: {code, message, category, retryable, details}}`.
 * The table is the single source for the HTTP status, category and retryability of each code; the
 * README's error reference is checked against it by a test.
 */

export type ErrorCategory = "input_error" | "not_found" | "auth_error" | "conflict" | "unavailable" | "service_error" | "internal_error";

interface CodeInfo {
  readonly status: number;
  readonly category: ErrorCategory;
  readonly retryable: boolean;
  readonly description: string;
}

export const ERROR_CODES = {
  INVALID_INPUT: {
    status: 400,
    category: "input_error",
    retryable: false,
    description: "The request body does not match the capability's input schema; `details` lists each violation with its JSON pointer.",
  },
  INVALID_JSON: { status: 400, category: "input_error", retryable: false, description: "The request body is not well-formed JSON, or is not a JSON object." },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    category: "input_error",
    retryable: false,
    description: "The request has a body whose Content-Type is not application/json.",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    category: "input_error",
    retryable: false,
    description: "The request body is larger than the component's body limit (default 1 MiB).",
  },
  NOT_FOUND: { status: 404, category: "not_found", retryable: false, description: "No route, capability or resource with that name or id." },
  METHOD_NOT_ALLOWED: {
    status: 405,
    category: "input_error",
    retryable: false,
    description: "The route exists but not for this HTTP method; the Allow header lists the ones it takes.",
  },
  UNAUTHORIZED: { status: 401, category: "auth_error", retryable: false, description: "The request lacks valid credentials." },
  FORBIDDEN: {
    status: 403,
    category: "auth_error",
    retryable: false,
    description: "The caller is known but may not do this: another origin, a Host the component does not serve, or a resource another identity owns.",
  },
  CONFLICT: { status: 409, category: "conflict", retryable: false, description: "The request conflicts with the current state of the resource." },
  LIMIT_EXCEEDED: {
    status: 409,
    category: "conflict",
    retryable: false,
    description:
      "A bounded collection is full (versions of a skill, skills of a namespace, facts of a user): retire or delete some first; the message names the bound.",
  },
  APPROVAL_REQUIRED: {
    status: 403,
    category: "auth_error",
    retryable: false,
    description:
      "A call to a sensitive capability inside a request no human approved (reached through another component's handler); `details[0]` names the component, capability and parameters. The orchestrating agent turns it into a checkpoint.",
  },
  LLM_UNAVAILABLE: {
    status: 503,
    category: "unavailable",
    retryable: false,
    description: "The request needs a language model and none is configured; the message names the variables to set.",
  },
  LLM_ERROR: {
    status: 502,
    category: "unavailable",
    retryable: true,
    description:
      "The language model endpoint failed (after its retries on 429 and 5xx) or answered with something unusable; the message names the status, never the key.",
  },
  PLAN_INVALID: {
    status: 422,
    category: "input_error",
    retryable: false,
    description:
      "Natural mode: the model's plan still failed the checks against the live catalog after its regeneration rounds; `details` lists each problem; nothing was dispatched.",
  },
  BUDGET_EXCEEDED: {
    status: 422,
    category: "service_error",
    retryable: false,
    description:
      "Natural mode: the request needed more language-model calls than `MANIFOLD_MAX_LLM_CALLS` allows (one is kept for the answer); nothing more was asked of the model.",
  },
  UNAVAILABLE: {
    status: 503,
    category: "unavailable",
    retryable: true,
    description: "The component is shutting down or a dependency is unreachable; try again.",
  },
  ORCHESTRATOR_ERROR: {
    status: 500,
    category: "service_error",
    retryable: true,
    description:
      "A scheduled run failed in the agent (its `scheduled` handler or its natural-mode run); the executor retries it, then dead-letters it. The message names the cause without internals.",
  },
  HANDLER_ERROR: {
    status: 422,
    category: "input_error",
    retryable: false,
    description: "The capability handler rejected the request on purpose (it threw a ManifoldError with this code).",
  },
  INTERNAL: { status: 500, category: "internal_error", retryable: false, description: "An unexpected failure; the message says nothing about internals." },
  NETWORK_ERROR: { status: 502, category: "unavailable", retryable: true, description: "Client side: the component could not be reached." },
  TIMEOUT: {
    status: 504,
    category: "unavailable",
    retryable: true,
    description: "A call did not finish within its timeout (client side), or a natural-mode request within `MANIFOLD_ORCHESTRATION_TIMEOUT`.",
  },
  INVALID_RESPONSE: {
    status: 502,
    category: "internal_error",
    retryable: false,
    description: "Client side: the component answered with something that is not JSON or not an error envelope.",
  },
  ABORTED: { status: 499, category: "unavailable", retryable: false, description: "Client side: the caller's AbortSignal fired." },
  WORKFLOW_FAILED: {
    status: 502,
    category: "internal_error",
    retryable: false,
    description: "A workflow step failed and its `on_error` is `fail`; `details` lists every step with its status, error and duration.",
  },
  INVALID_WORKFLOW: {
    status: 400,
    category: "input_error",
    retryable: false,
    description: "A workflow given at run time failed the static checks against the live catalog; `details` lists each problem with its MF code and path.",
  },
  HOOK_FAILED: {
    status: 500,
    category: "internal_error",
    retryable: false,
    description: "A required (`fail_closed`) pipeline hook failed, or a hook threw unexpectedly; nothing further was dispatched.",
  },
  UNKNOWN_TASK_TYPE: { status: 400, category: "input_error", retryable: false, description: "`type` names no task type of this agent; rejected at submit." },
  INVALID_TIMEOUT: {
    status: 400,
    category: "input_error",
    retryable: false,
    description: "`timeout` is not a duration such as `90s` or `10m`, or is out of range.",
  },
  TASK_EXISTS: { status: 409, category: "conflict", retryable: false, description: "A task with this id already exists." },
  TASK_NOT_CANCELLABLE: { status: 409, category: "conflict", retryable: false, description: "The task has already finished (completed, failed or cancelled)." },
  TASK_CANCELLED: { status: 409, category: "conflict", retryable: false, description: "Task record: the task was cancelled; its handler's AbortSignal fired." },
  TASK_TIMEOUT: {
    status: 504,
    category: "unavailable",
    retryable: false,
    description: "Task record: the handler ran past the task's timeout; its AbortSignal fired.",
  },
  HANDLER_PANIC: {
    status: 500,
    category: "internal_error",
    retryable: false,
    description:
      "Task record: the handler threw a TypeError, a ReferenceError or a non-Error value (a bug); the message is fixed, the error is logged; the worker kept serving.",
  },
  TASK_REDELIVERY_EXCEEDED: {
    status: 500,
    category: "internal_error",
    retryable: false,
    description: "Task record: the task's workers died (lease lapsed) more times than the redelivery limit allows.",
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CODES, value);
}
