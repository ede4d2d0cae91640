import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { readJsonBody, sendJson, type AddRoute, type ExtensionContext, type RouteContext } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import { getTelemetry, type TraceContext } from "../telemetry/index.js";
import { createSubmitParser, type Submission } from "./submit.js";
import { recordSubmitted } from "./telemetry.js";
import type { TaskBackend } from "./types.js";
import { statusUrl, TASKS_PATH, toTaskView, type TaskSubmitted } from "./view.js";

export interface TaskApiOptions {
  /** The backend, resolved on first use (the extension creates it lazily). */
  readonly backend: () => Promise<TaskBackend>;
  /** @defaultValue 24 h */
  readonly maxTimeoutMs?: number;
  /** @defaultValue 256 KiB */
  readonly maxInputBytes?: number;
}

/** `00-<32 hex>-<16 hex>-<2 hex>`, the only traceparent version there is. */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The submitter's trace, kept with the task so the worker's span can link to it: the server span of
 * this request when telemetry is on, else the caller's own `traceparent` header (a worker with
 * telemetry on still links to the caller's trace when the API process has it off).
 */
function submitterTrace(req: IncomingMessage): TraceContext | undefined {
  const telemetry = getTelemetry();
  const own = telemetry.enabled ? telemetry.serverTraceOf(req)?.traceContext() : undefined;
  if (own !== undefined) return own;
  const header = req.headers["traceparent"];
  if (typeof header !== "string" || !TRACEPARENT.test(header)) return undefined;
  const state = req.headers["tracestate"];
  return typeof state === "string" && state !== "" && state.length <= 512 ? { traceparent: header, tracestate: state } : { traceparent: header };
}

/** The backends' id alphabet (UUIDs, the scheduler's `<schedule>:<second>`): anything else cannot exist. */
const TASK_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Whether `value` can name a task at all (a lookup of anything else is a plain NOT_FOUND). */
export const isTaskId = (value: unknown): value is string => typeof value === "string" && TASK_ID.test(value);

/** Stores a checked submission as a queued task (the submit route's and the MCP `start_task` tool's one way in). */
export async function enqueueTask(store: TaskBackend, { taskType, input, timeoutMs }: Submission, trace: TraceContext | undefined): Promise<TaskSubmitted> {
  const taskId = randomUUID();
  await store.create({ task_id: taskId, type: taskType.type, input, timeout_ms: timeoutMs, ...(trace === undefined ? {} : { trace }) });
  recordSubmitted(taskType.type);
  return { task_id: taskId, status: "queued", status_url: statusUrl(taskId) };
}

/** The `:task_id` of the route, or a 404 when it cannot name a task. */
function taskIdOf(ctx: RouteContext): string {
  const taskId = ctx.params["task_id"] ?? "";
  if (!isTaskId(taskId)) throw new ManifoldError("NOT_FOUND", `no route ${ctx.method} ${ctx.path}`);
  return taskId;
}

function notFound(taskId: string): ManifoldError {
  return new ManifoldError("NOT_FOUND", `no task ${taskId}`);
}

/** `POST /api/v1/tasks`, `GET /api/v1/tasks/:task_id`, `POST /api/v1/tasks/:task_id/cancel`. */
export function addTaskRoutes(add: AddRoute, context: ExtensionContext, { backend, maxTimeoutMs, maxInputBytes }: TaskApiOptions): void {
  const parser = createSubmitParser(context.spec, {
    ...(maxTimeoutMs === undefined ? {} : { maxTimeoutMs }),
    ...(maxInputBytes === undefined ? {} : { maxInputBytes }),
  });

  add("POST", TASKS_PATH, async (ctx) => {
    const body = await readJsonBody(ctx.req, context.bodyLimit);
    const submission = parser.parse(body);
    const answer = await enqueueTask(await backend(), submission, submitterTrace(ctx.req));
    ctx.set("Location", answer.status_url);
    sendJson(ctx, 202, JSON.stringify(answer));
  });

  add("GET", `${TASKS_PATH}/:task_id`, async (ctx) => {
    const taskId = taskIdOf(ctx);
    const task = await (await backend()).get(taskId);
    if (task === undefined) throw notFound(taskId);
    sendJson(ctx, 200, JSON.stringify(toTaskView(task)));
  });

  add("POST", `${TASKS_PATH}/:task_id/cancel`, async (ctx) => {
    const taskId = taskIdOf(ctx);
    const { outcome, task } = await (await backend()).cancel(taskId);
    if (outcome === "not_found" || task === undefined) throw notFound(taskId);
    if (outcome === "finished") throw new ManifoldError("TASK_NOT_CANCELLABLE", `task ${taskId} has already finished (${task.status})`);
    sendJson(ctx, 200, JSON.stringify(toTaskView(task)));
  });
}
