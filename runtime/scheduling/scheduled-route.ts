/**
 * The agent side of scheduled execution: `POST /api/v1/scheduled`, where the scheduler's executor
 * delivers a due schedule. The agent's typed `scheduled` handler answers it; without one the
 * instruction goes to natural mode, which needs a language model. 503 until the agent has started
 * (and again once it drains); a handler's failure is `ORCHESTRATOR_ERROR`, which the executor retries.
 */
import { compileValidator, type ComponentExtension, type PostContext } from "../component/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { llmUnavailable } from "../llm/index.js";
import type { Orchestrator } from "../orchestration/index.js";
import { ATTR, getTelemetry, METRIC, type Logger } from "../telemetry/index.js";
import { isThenable } from "../util/index.js";
import {
  SCHEDULED_EXECUTOR_QUEUE,
  SCHEDULED_PATH,
  SCHEDULED_REQUEST_SCHEMA,
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
  return typeof result.synthesis === "string"
    ? result.synthesis
    : JSON.stringify(result.steps.map((s) => ({ step_id: s.step_id, status: s.status, output: s.output })));
}

/** Codes that say the agent cannot run it now, kept as they are; every other failure is the run's. */
const KEPT = new Set(["INVALID_INPUT", "LLM_UNAVAILABLE", "UNAVAILABLE", "ABORTED"]);

function runFailure(error: unknown): ManifoldError {
  if (isManifoldError(error) && KEPT.has(error.code)) return error;
  // A ManifoldError's message is meant for callers; anything else may hold internals.
  const why = isManifoldError(error) ? `${error.code}: ${error.message}` : "the scheduled handler failed";
  return new ManifoldError("ORCHESTRATOR_ERROR", `scheduled run failed (${why})`);
}

export interface ScheduledExtensionOptions {
  readonly handler?: ScheduledHandler | undefined;
  readonly orchestrator?: Orchestrator | undefined;
  readonly log?: Logger | undefined;
}

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

function recordHandled(status: "success" | "error" | "filtered", started: number): void {
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

function handle(route: Route, body: Record<string, unknown>, context: PostContext): ScheduledResponse | Promise<ScheduledResponse> {
  if (!route.ready) throw new ManifoldError("UNAVAILABLE", "the agent is not ready for scheduled runs (starting or shutting down)");
  const details = route.validate(body);
  if (details !== undefined) throw new ManifoldError("INVALID_INPUT", "scheduled request body is not valid", { details });
  const request = body as unknown as ScheduledRequest;
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

export function createScheduledExtension({ handler, orchestrator, log }: ScheduledExtensionOptions = {}): ComponentExtension {
  if (handler !== undefined && typeof handler !== "function") throw new TypeError("scheduled must be a function");
  const route: Route = { handler, orchestrator, log, validate: compileValidator(SCHEDULED_REQUEST_SCHEMA), ready: false };
  return {
    name: "scheduled",
    start() {
      route.ready = true;
    },
    async stop() {
      route.ready = false;
    },
    routes(_add, { post }) {
      // The executor's hot path: served like a capability call, without Koa.
      post(SCHEDULED_PATH, (body, context) => handle(route, body, context));
    },
  };
}
