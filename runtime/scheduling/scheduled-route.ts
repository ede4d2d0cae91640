/**
 * The agent side of scheduled execution: `POST /api/v1/scheduled`, where the scheduler's executor
 * delivers a due schedule. The agent's typed `scheduled` handler answers it; without one the
 * instruction goes to natural mode, which needs a language model. 503 until the agent has started
 * (and again once it drains); a handler's failure is `ORCHESTRATOR_ERROR`, which the executor retries,
 * unless a retry cannot mend it (APPROVAL_REQUIRED, …): then it keeps its own code, not retryable.
 */
import { randomUUID } from "node:crypto";
import { compileValidator, type ComponentExtension, type PostContext } from "../component/index.js";
import { HEADER } from "../context/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { llmUnavailable } from "../llm/index.js";
import { DEFAULT_ORCHESTRATION_TIMEOUT_MS, type Orchestrator } from "../orchestration/served.js";
import type { FieldsSpec } from "../spec/index.js";
import { ATTR, getTelemetry, METRIC, type Logger } from "../telemetry/index.js";
import { type Clock, isThenable, systemClock } from "../util/index.js";
import { checkIdempotencyKey, createMemoryRunClaims, createOrphans, type Orphans, type RunClaims } from "./run-claims.js";
import {
  SCHEDULED_EXECUTOR_QUEUE,
  SCHEDULED_PATH,
  scheduledRequestSchema,
  type ScheduledHandler,
  type ScheduledRequest,
  type ScheduledResponse,
  type ScheduledSkip,
} from "./wire.js";

/** Without a handler, a run is the instruction in natural mode: planned, run and synthesised. */
async function runInstruction(orchestrator: Orchestrator, { instruction, input }: ScheduledRequest, signal: AbortSignal): Promise<string> {
  const request = Object.keys(input).length === 0 ? instruction : `${instruction}\n\nInput: ${JSON.stringify(input)}`;
  const result = await orchestrator.runNatural(request, { signal, synthesise: orchestrator.hasSynthesiser });
  if (result.status === "interrupted") throw new ManifoldError("ABORTED", "the scheduled run was interrupted");
  // Nobody is there to answer a question: the run fails, not retried, saying what the instruction lacks.
  if (result.clarification !== undefined)
    throw new ManifoldError(
      "INVALID_INPUT",
      `the instruction needs more input (${result.clarification.missing_fields.join(", ")}): ${result.clarification.question}`,
    );
  return typeof result.synthesis === "string"
    ? result.synthesis
    : JSON.stringify(result.steps.map((s) => ({ step_id: s.step_id, status: s.status, output: s.output })));
}

/** Codes that say the agent cannot run it now, kept as they are; every other failure is the run's. */
const KEPT = new Set(["INVALID_INPUT", "LLM_UNAVAILABLE", "UNAVAILABLE", "ABORTED"]);

/**
 * A failed run as the executor sees it. A ManifoldError that no retry can mend (APPROVAL_REQUIRED: a
 * scheduled run is a request no human approved, and a second delivery is not one either; CONFLICT,
 * NOT_FOUND, …) keeps its code and status, not retryable, so the executor need not spend its retries
 * on it. A retryable one, INTERNAL (unexpected, like a thrown Error) and anything else is
 * ORCHESTRATOR_ERROR, retryable.
 */
function runFailure(error: unknown): ManifoldError {
  if (isManifoldError(error) && KEPT.has(error.code)) return error;
  // A ManifoldError's message is meant for callers (unless it says otherwise); anything else may hold internals.
  const why = isManifoldError(error) ? `${error.code}: ${error.expose ? error.message : "internal error"}` : "the scheduled handler failed";
  const message = `scheduled run failed (${why})`;
  if (isManifoldError(error) && !error.retryable && error.code !== "INTERNAL")
    // The details stay: APPROVAL_REQUIRED's name the refused call.
    return new ManifoldError(error.code, message, { cause: error, ...(error.details === undefined ? {} : { details: error.details }) });
  return new ManifoldError("ORCHESTRATOR_ERROR", message);
}

export interface ScheduledExtensionOptions {
  readonly handler?: ScheduledHandler | undefined;
  readonly orchestrator?: Orchestrator | undefined;
  readonly log?: Logger | undefined;
  /**
   * Where runs are claimed by idempotency key, so a second delivery of a run never runs the handler
   * again; shared by the agent's replicas through Redis. @defaultValue this process's memory claims
   */
  readonly claims?: RunClaims | undefined;
  /**
   * A run's deadline: past it the handler's signal aborts, the answer is 504 TIMEOUT (the executor
   * retries, on another replica when there is one) and the claim is released.
   * @defaultValue `MANIFOLD_ORCHESTRATION_TIMEOUT`, else 5 min (the feature reads it)
   */
  readonly runTimeoutMs?: number | undefined;
  /** The clock of the run's deadline. @defaultValue systemClock */
  readonly clock?: Clock | undefined;
  /** The fields a run's `input` must carry (the manifest's `scheduled.input`); a run that does not fit is 400. @defaultValue any object */
  readonly input?: FieldsSpec | undefined;
}

/** A running claim outlives the run's deadline by this much, so only a dead replica's claim lapses on its own. */
const CLAIM_GRACE_MS = 30_000;

/** A handler's answer on the wire: a string is the run's response; `{filtered: true, reason?}` skips it (reason at most 500 characters). */
export function answerOf(answer: unknown, requestId: string): ScheduledResponse {
  if (typeof answer === "string") return { success: true, data: { response: answer, request_id: requestId } };
  if (answer !== null && typeof answer === "object" && (answer as ScheduledSkip).filtered === true) {
    const { reason } = answer as ScheduledSkip;
    const kept = typeof reason === "string" ? reason.slice(0, 500) : undefined;
    return { success: true, status: "filtered", data: { response: "", request_id: requestId, ...(kept === undefined ? {} : { reason: kept }) } };
  }
  throw new TypeError("a scheduled handler must return a string or { filtered: true }");
}

function recordHandled(status: "success" | "error" | "filtered" | "duplicate", started: number): void {
  const { metrics } = getTelemetry();
  const labels = { [ATTR.MODULE]: SCHEDULED_EXECUTOR_QUEUE, [ATTR.STATUS]: status };
  metrics.counter(METRIC.EXECUTOR_TASKS_HANDLED, 1, labels);
  metrics.histogram(METRIC.EXECUTOR_TASKS_HANDLED_DURATION, performance.now() - started, labels);
}

/** The route's fixed parts and whether it is serving. */
interface Route {
  readonly handler: ScheduledHandler | undefined;
  readonly orchestrator: Orchestrator | undefined;
  readonly log: Logger | undefined;
  readonly validate: ReturnType<typeof compileValidator>;
  readonly claims: RunClaims;
  /** Claims whose call failed, released once the store answers. */
  readonly orphans: Orphans;
  readonly runTimeoutMs: number;
  readonly clock: Clock;
  ready: boolean;
}

/**
 * The handler's answer, or a promise of it: a synchronous handler is answered without a promise,
 * which is a measurable share of a run at the executor's rates. The call's context is the
 * handler's, so its signal is only created if the handler asks for it.
 */
function run({ handler, orchestrator }: Route, request: ScheduledRequest, context: PostContext): ScheduledResponse | Promise<ScheduledResponse> {
  const { requestId } = context;
  if (handler === undefined) {
    if (orchestrator?.hasPlanner !== true) throw llmUnavailable("a scheduled run without a scheduled handler (pass serve({ scheduled }))");
    return runInstruction(orchestrator, request, context.signal).then((response) => ({ success: true, data: { response, request_id: requestId } }));
  }
  const answer = handler(request, context);
  return isThenable(answer) ? answer.then((settled) => answerOf(settled, requestId)) : answerOf(answer, requestId);
}

function handled(route: Route, request: ScheduledRequest, started: number, response: ScheduledResponse): ScheduledResponse {
  const status = "status" in response ? "filtered" : "success";
  recordHandled(status, started);
  route.log?.debug(`scheduled run ${status === "filtered" ? "skipped by the application filter" : "done"}`, {
    operation: "scheduled_task_handler",
    task_id: request.task_id,
    schedule_id: request.schedule_id,
    status,
    duration_ms: Math.round(performance.now() - started),
  });
  return response;
}

function failed(route: Route, request: ScheduledRequest, started: number, error: unknown): never {
  const failure = runFailure(error);
  recordHandled("error", started);
  route.log?.warn(`scheduled run failed: ${failure.message}`, {
    operation: "scheduled_task_handler",
    task_id: request.task_id,
    schedule_id: request.schedule_id,
    status: "error",
    code: failure.code,
    ...(isManifoldError(error) ? {} : { error }),
  });
  throw failure;
}

/** A second delivery of a run already done: answered as delivered, the handler not run again. */
function duplicate(route: Route, request: ScheduledRequest, requestId: string): ScheduledResponse {
  recordHandled("duplicate", performance.now());
  route.log?.info("scheduled run already done: the duplicate delivery is dropped", {
    operation: "scheduled_task_handler",
    task_id: request.task_id,
    schedule_id: request.schedule_id,
    status: "duplicate",
  });
  return { success: true, status: "duplicate", data: { response: "", request_id: requestId } };
}

/**
 * The handler's run under the deadline: past it the run's signal aborts and the answer is TIMEOUT.
 * The handler sees the request's signal (the executor hanging up) and the deadline as one signal,
 * made only if it asks for it.
 */
function runWithDeadline(route: Route, request: ScheduledRequest, context: PostContext): Promise<ScheduledResponse> {
  const deadline = new AbortController();
  let combined: AbortSignal | undefined;
  // Not a spread: that would read (and so create) the request's signal for every run.
  const runContext: PostContext = {
    requestId: context.requestId,
    originalRequestId: context.originalRequestId,
    conversationId: context.conversationId,
    headers: context.headers,
    get signal() {
      return (combined ??= AbortSignal.any([context.signal, deadline.signal]));
    },
  };
  let timer: ReturnType<Clock["setTimeout"]> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = route.clock.setTimeout(() => {
      const error = new ManifoldError("TIMEOUT", `the scheduled run did not finish within ${route.runTimeoutMs} ms`);
      deadline.abort(error);
      reject(error);
    }, route.runTimeoutMs);
  });
  const running = (async () => run(route, request, runContext))();
  return Promise.race([running, expired]).finally(() => route.clock.clearTimeout(timer));
}

/** The claimed run: done → the claim is kept (later deliveries are dropped); failed → released for a retry. */
async function runClaimed(route: Route, request: ScheduledRequest, context: PostContext, key: string, token: string): Promise<ScheduledResponse> {
  const started = performance.now();
  let response: ScheduledResponse;
  try {
    response = await runWithDeadline(route, request, context);
  } catch (error) {
    await route.claims.release(key, token).catch(() => undefined); // it lapses on its own otherwise
    if (!isManifoldError(error) || error.code !== "TIMEOUT") return failed(route, request, started, error);
    recordHandled("error", started);
    route.log?.warn(`scheduled run timed out: ${error.message}`, {
      operation: "scheduled_task_handler",
      task_id: request.task_id,
      status: "error",
      code: error.code,
    });
    throw error;
  }
  try {
    await route.claims.complete(key, token);
  } catch (error) {
    // The run happened: say so. Its claim lapses after the deadline, so a redelivery then could run it again.
    route.log?.warn("a scheduled run's completion could not be recorded", { operation: "scheduled_task_handler", task_id: request.task_id, error });
  }
  return handled(route, request, started, response);
}

function idempotencyKeyOf(context: PostContext): string | undefined {
  const value = context.headers[HEADER.IDEMPOTENCY_KEY];
  return value === undefined ? undefined : checkIdempotencyKey(Array.isArray(value) ? value[0] : value);
}

/** With an idempotency key (the executor always sends one), the run is claimed first: a second delivery never runs the handler. */
async function claimAndRun(route: Route, request: ScheduledRequest, context: PostContext, key: string): Promise<ScheduledResponse> {
  const token = randomUUID();
  const runningTtlMs = route.runTimeoutMs + CLAIM_GRACE_MS;
  let state: Awaited<ReturnType<RunClaims["claim"]>>;
  try {
    state = await route.claims.claim(key, token, runningTtlMs);
  } catch (error) {
    route.log?.warn("the record of scheduled runs is unreachable", { operation: "scheduled_task_handler", task_id: request.task_id, error });
    // The claim may have landed with its answer lost: this delivery runs nothing, so it frees it.
    await route.orphans.release(key, token, route.clock.now() + runningTtlMs);
    throw new ManifoldError("UNAVAILABLE", "the record of scheduled runs is unreachable; deliver the run again later");
  }
  if (state === "done") return duplicate(route, request, context.requestId);
  // Retryable (503, not 409 CONFLICT): the executor dead-letters a non-retryable answer at once, and
  // this run may still fail and be freed, or its claim lapse (a replica that died mid-run).
  if (state === "running")
    throw new ManifoldError("UNAVAILABLE", "a delivery of this scheduled run is in progress; deliver it again later if it does not finish");
  return runClaimed(route, request, context, key, token);
}

function handle(route: Route, body: Record<string, unknown>, context: PostContext): ScheduledResponse | Promise<ScheduledResponse> {
  if (!route.ready) throw new ManifoldError("UNAVAILABLE", "the agent is not ready for scheduled runs (starting or shutting down)");
  const details = route.validate(body);
  if (details !== undefined) throw new ManifoldError("INVALID_INPUT", "scheduled request body is not valid", { details });
  const request = body as unknown as ScheduledRequest;
  const key = idempotencyKeyOf(context);
  if (key !== undefined) return claimAndRun(route, request, context, key);
  // Without a key (a direct call, not the executor's) the run is not deduplicated, as asked.
  const started = performance.now();
  let response: ScheduledResponse | Promise<ScheduledResponse>;
  try {
    response = run(route, request, context);
  } catch (error) {
    return failed(route, request, started, error);
  }
  return isThenable(response)
    ? response.then(
        (settled) => handled(route, request, started, settled),
        (error: unknown) => failed(route, request, started, error),
      )
    : handled(route, request, started, response);
}

export function createScheduledExtension({
  handler,
  orchestrator,
  log,
  claims = createMemoryRunClaims(),
  runTimeoutMs = DEFAULT_ORCHESTRATION_TIMEOUT_MS,
  clock = systemClock,
  input,
}: ScheduledExtensionOptions = {}): ComponentExtension {
  if (handler !== undefined && typeof handler !== "function") throw new TypeError("scheduled must be a function");
  if (!Number.isFinite(runTimeoutMs) || runTimeoutMs <= 0) throw new RangeError("runTimeoutMs must be a positive number of ms");
  const orphans = createOrphans(claims, { clock });
  const route: Route = {
    handler,
    orchestrator,
    log,
    validate: compileValidator(scheduledRequestSchema(input, "draft-07")),
    claims,
    orphans,
    runTimeoutMs,
    clock,
    ready: false,
  };
  return {
    name: "scheduled",
    start() {
      route.ready = true;
    },
    async stop() {
      route.ready = false;
      orphans.close();
      await claims.close();
    },
    routes(_add, { post }) {
      // The executor's hot path: served like a capability call, without Koa.
      post(SCHEDULED_PATH, (body, context) => handle(route, body, context));
    },
  };
}
