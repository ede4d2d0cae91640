/**
 * Every name telemetry puts on the wire or into a backend, in one place: span attributes, metric
 * names, metric labels, baggage keys and span names. Call sites use these constants, never strings,
 * so a rename is one edit and a dashboard can be checked against this file.
 */

/** Span and resource attributes; OpenTelemetry semantic conventions where one exists. */
export const ATTR = {
  SERVICE_NAME: "service.name",
  SERVICE_VERSION: "service.version",
  SERVICE_INSTANCE_ID: "service.instance.id",
  DEPLOYMENT_ENVIRONMENT: "deployment.environment.name",
  HTTP_METHOD: "http.request.method",
  HTTP_ROUTE: "http.route",
  HTTP_STATUS: "http.response.status_code",
  URL_PATH: "url.path",
  URL_FULL: "url.full",
  COMPONENT: "manifold.component",
  CAPABILITY: "manifold.capability",
  TARGET: "manifold.target",
  OUTCOME: "manifold.outcome",
  ERROR_CODE: "manifold.error.code",
  /** Span attributes only: ids are fine on a span, never on a metric (see LABELS). */
  REQUEST_ID: "manifold.request_id",
  CONVERSATION_ID: "manifold.conversation_id",
  /** Task metrics and spans: the task type (bounded: the agent's declared types) and final status. */
  TASK_TYPE: "manifold.task.type",
  TASK_STATUS: "manifold.task.status",
  /** Span attributes only, like REQUEST_ID. */
  TASK_ID: "manifold.task.id",
  TASK_ATTEMPT: "manifold.task.attempt",
  /** Orchestration: the front end (natural, workflow, custom, yaml) and a run's final status, both bounded. */
  ORCHESTRATION_MODE: "manifold.orchestration.mode",
  ORCHESTRATION_STATUS: "manifold.orchestration.status",
  /** Span attributes only: the workflow run, its plan and step ids. */
  WORKFLOW: "manifold.workflow",
  PLAN_ID: "manifold.plan_id",
  STEP_ID: "manifold.step_id",
  /** Language-model calls (OpenTelemetry GenAI conventions where one exists): model, token type (`input`/`output`), phase. */
  LLM_MODEL: "gen_ai.request.model",
  LLM_TOKEN_TYPE: "gen_ai.token.type",
  LLM_PHASE: "manifold.llm.phase",
  /** Task metrics' labels, the spec's names: the task type (status is STATUS below). */
  TASK_TYPE_LABEL: "task_type",
  /** The scheduled executor's metrics, with the spec's own label names (module, target_agent, status, attempt, error_type, trigger). */
  MODULE: "module",
  TARGET_AGENT: "target_agent",
  STATUS: "status",
  ATTEMPT: "attempt",
  ERROR_TYPE: "error_type",
  TRIGGER: "trigger",
  /** Span attributes only: the skill version a span read or activated, and the resource it read (never a body). */
  SKILL_NAMESPACE: "skill.namespace",
  SKILL_NAME: "skill.name",
  SKILL_VERSION: "skill.version",
  SKILL_RESOURCE: "skill.resource",
  /** Replaces a metric's labels once it has seen more label sets than its profile allows. */
  OVERFLOW: "otel.metric.overflow",
} as const;

/** W3C baggage entries Manifold reads and writes. */
export const BAGGAGE = {
  REQUEST_ID: "request_id",
  ORIGINAL_REQUEST_ID: "original_request_id",
  CONVERSATION_ID: "conversation_id",
} as const;

/** Metric names; the instrument type is chosen at the call site (`metrics.counter(...)`). */
export const METRIC = {
  SERVER_REQUESTS: "manifold.server.requests",
  SERVER_DURATION: "manifold.server.duration",
  CLIENT_REQUESTS: "manifold.client.requests",
  CLIENT_DURATION: "manifold.client.duration",
  /** Orchestration runs by mode and final status, and their duration in ms. */
  ORCHESTRATION_RUNS: "manifold.orchestration.runs",
  ORCHESTRATION_RUN_DURATION: "manifold.orchestration.run.duration",
  /** One step (all its attempts) by target, capability and outcome, in ms. */
  ORCHESTRATION_STEP_DURATION: "manifold.orchestration.step.duration",
  /** Model calls by model, phase and outcome (`ok` or an error code); tokens by model, phase and token type; duration in ms. */
  LLM_REQUESTS: "manifold.llm.requests",
  LLM_TOKENS: "manifold.llm.tokens",
  LLM_DURATION: "manifold.llm.duration",
  /** Bytes of each prompt sent (labels: model, phase): what tiered selection and distillation keep bounded. */
  LLM_PROMPT_BYTES: "manifold.llm.prompt.bytes",
  TASKS_SUBMITTED: "manifold.tasks.submitted",
  TASKS_STARTED: "manifold.tasks.started",
  TASKS_COMPLETED: "manifold.tasks.completed",
  /** Handler run time, start to final status, in ms. */
  TASKS_DURATION: "manifold.tasks.duration",
  /** Handlers running in this process (a gauge). */
  TASKS_WORKERS_ACTIVE: "manifold.tasks.workers.active",
  /** Tasks waiting in the queue (a gauge, sampled by the worker pool). */
  TASKS_QUEUE_DEPTH: "manifold.tasks.queue_depth",
  /** Submit to first start, in ms. */
  TASKS_QUEUE_WAIT: "manifold.tasks.queue_wait_ms",
  /** A worker pool started / stopped taking tasks in a process. */
  TASKS_WORKER_STARTED: "manifold.tasks.worker.started",
  TASKS_WORKER_STOPPED: "manifold.tasks.worker.stopped",
  /** The scheduled executor (label `module=scheduled-executor` on each), names as the spec's table. */
  EXECUTOR_TASKS_RECEIVED: "manifold.scheduled_executor.tasks_received",
  EXECUTOR_TASKS_DISPATCHED: "manifold.scheduled_executor.tasks_dispatched",
  EXECUTOR_DISPATCH_DURATION: "manifold.scheduled_executor.dispatch_duration_ms",
  EXECUTOR_RETRY_ATTEMPTS: "manifold.scheduled_executor.retry_attempts",
  EXECUTOR_CONSUME_ERRORS: "manifold.scheduled_executor.consume_errors",
  EXECUTOR_DLQ_WRITES: "manifold.scheduled_executor.dlq_writes_total",
  EXECUTOR_ACK_ERRORS: "manifold.scheduled_executor.ack_errors_total",
  EXECUTOR_CATALOG_REFRESH: "manifold.scheduled_executor.catalog_refresh_total",
  EXECUTOR_CATALOG_AGENTS_KNOWN: "manifold.scheduled_executor.catalog_agents_known",
  /** Agent side of `POST /api/v1/scheduled`. */
  EXECUTOR_TASKS_HANDLED: "manifold.scheduled_executor.tasks_handled_total",
  EXECUTOR_TASKS_HANDLED_DURATION: "manifold.scheduled_executor.tasks_handled_duration_ms",
  /** Registry records a keyed registry ignored (label `error_type`: unsigned, bad_signature, expired), once per record id. */
  DISCOVERY_REJECTED_RECORDS: "manifold.discovery.rejected_records",
} as const;

/** Span names of the orchestration runtime; hooks are `pipeline.hook.<phase>.<name>` (hookSpanName). */
export const ORCHESTRATION_SPAN = {
  RUN: "orchestration.run",
  STEP: "orchestration.step",
} as const;

/** The spec's orchestration span events the executor emits on the request's span. */
export const ORCHESTRATION_EVENT = {
  /** A run starts (`stage: started`, with its step count) and ends (`stage: finished`, status, duration). */
  LIFECYCLE: "orchestrator.execution.lifecycle",
  /** A step reads another step's output without listing it in `depends_on`; the dependency is added. */
  DEPENDENCY_INCLUSION: "orchestration.template.dependency_inclusion",
} as const;

export function hookSpanName(phase: string, name: string): string {
  return `pipeline.hook.${phase}.${name}`;
}

/**
 * Span names of skills per natural request (the skills context source): the candidates pinned and
 * chosen, the registry reads under them, the instructions activated and the resources read.
 */
export const SKILLS_SPAN = {
  PIN_CANDIDATES: "orchestrator.skills.pin_candidates",
  ACTIVATE: "orchestrator.skills.activate",
  RESOLVE_RESOURCES: "orchestrator.skills.resolve_resources",
  REGISTRY_LIST: "skills.registry.list",
  REGISTRY_GET: "skills.registry.get",
  REGISTRY_RESOURCE: "skills.registry.resource",
} as const;

/** Span and event names of the task runtime. */
export const TASK_SPAN = {
  PROCESS: "task.process",
  STARTED: "task.started",
  PROGRESS: "task.progress",
  COMPLETED: "task.completed",
  FAILED: "task.failed",
} as const;

/**
 * The only attribute names a metric may carry. Each has a small, bounded set of values; nothing
 * that identifies a request, conversation, session, user, trace, checkpoint, plan or step is here,
 * and `isIdLabel` refuses such names even if someone adds them.
 */
export const LABELS: ReadonlySet<string> = new Set([
  ATTR.COMPONENT,
  ATTR.CAPABILITY,
  ATTR.TARGET,
  ATTR.OUTCOME,
  ATTR.ERROR_CODE,
  ATTR.HTTP_METHOD,
  ATTR.HTTP_ROUTE,
  ATTR.HTTP_STATUS,
  ATTR.TASK_TYPE,
  ATTR.TASK_STATUS,
  ATTR.ORCHESTRATION_MODE,
  ATTR.ORCHESTRATION_STATUS,
  ATTR.LLM_MODEL,
  ATTR.LLM_TOKEN_TYPE,
  ATTR.LLM_PHASE,
  ATTR.TASK_TYPE_LABEL,
  ATTR.MODULE,
  ATTR.TARGET_AGENT,
  ATTR.STATUS,
  ATTR.ATTEMPT,
  ATTR.ERROR_TYPE,
  ATTR.TRIGGER,
]);

/** Fallback for the conversation id when OpenTelemetry (and so baggage) is not initialised. */
export const CONVERSATION_HEADER = "x-manifold-conversation-id";

/** Probe and scrape routes: no server span, no metrics (they would drown the real traffic). */
export const UNTRACED_PATHS: ReadonlySet<string> = new Set(["/health", "/metrics", "/ready", "/live"]);

/** `HTTP POST /api/capabilities/x`; without a route (an unknown path) just the method, to bound names. */
export function spanName(method: string, route: string | undefined): string {
  return route === undefined ? `HTTP ${method}` : `HTTP ${method} ${route}`;
}

export const TRACER_NAME = "agent-manifold";
