/**
 * The HTTP side of the orchestration routes: body, abort on disconnect, request context (request id,
 * trace, forwarded token and headers), and the wire shapes of the answers.
 */
import type { Context } from "koa";
import { readJsonBody } from "../component/body.js";
import { requestIdOf } from "../component/call-context.js";
import { REQUEST_ID_HEADER, sendJson } from "../component/reply.js";
import type { ForwardOptions } from "../component/types.js";
import { ManifoldError } from "../errors/index.js";
import { withRequestContext, type RequestContextInit } from "../outbound/context.js";
import { bearerToken, isSkippedHeader } from "../outbound/headers.js";
import { validConversationId } from "../telemetry/ids.js";
import { CONVERSATION_HEADER } from "../telemetry/names.js";
import { getTelemetry, type ServerTrace } from "../telemetry/telemetry.js";
import type { ExecutionResult } from "./executor.js";
import type { NaturalRunResult, WorkflowRunResult } from "./orchestrator.js";

export type RouteWork = (body: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/**
 * The request context step calls run in: the request's ids (so a tool's logs and the agent's share
 * them, as for a capability handler's calls), and what `forward` copies from the request.
 */
function contextOf(ctx: Context, requestId: string, trace: ServerTrace | undefined, forward: ForwardOptions | undefined): RequestContextInit {
  const conversationId = trace?.conversationId ?? validConversationId(ctx.headers[CONVERSATION_HEADER]);
  const ids: RequestContextInit = {
    requestId,
    ...(trace?.originalRequestId === undefined ? {} : { originalRequestId: trace.originalRequestId }),
    ...(conversationId === undefined ? {} : { conversationId }),
  };
  if (forward === undefined) return ids;
  const token = forward.token === false ? undefined : bearerToken(ctx.headers.authorization);
  const headers: Record<string, string> = {};
  for (const name of forward.headers ?? []) {
    const lower = name.toLowerCase();
    const value = ctx.headers[lower];
    if (typeof value === "string" && !isSkippedHeader(lower)) headers[lower] = value;
  }
  return { ...ids, headers, ...(token === undefined ? {} : { token }) };
}

/**
 * A route handler around `work`: reads the JSON body, aborts the run when the client goes away,
 * runs inside the request's server span and request context, answers 200 with the JSON `work`
 * resolves to. Errors are thrown as ManifoldErrors for the errors middleware to answer.
 */
export function orchestrationRoute(work: RouteWork, bodyLimit: number, forward: ForwardOptions | undefined): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    const trace = getTelemetry().serverTraceOf(ctx.req);
    const requestId = requestIdOf(ctx.req, trace?.requestId);
    ctx.set(REQUEST_ID_HEADER, requestId);
    const body = await readJsonBody(ctx.req, bodyLimit);
    const controller = new AbortController();
    // `close` before the response finished: the client hung up, so nobody waits for the run.
    const onClose = (): void => {
      if (!ctx.res.writableFinished) controller.abort(new ManifoldError("ABORTED", "client disconnected"));
    };
    ctx.res.once("close", onClose);
    try {
      const init = contextOf(ctx, requestId, trace, forward);
      const run = (): Promise<unknown> => withRequestContext(init, () => work(body, controller.signal));
      const payload = await (trace === undefined ? run() : trace.run(run));
      sendJson(ctx, 200, JSON.stringify(payload));
    } finally {
      ctx.res.off("close", onClose);
    }
  };
}

/** 502 WORKFLOW_FAILED whose details are the step entries (each with a pointer into `steps`). */
export function workflowFailed(what: string, result: ExecutionResult): ManifoldError {
  const failed = result.steps.find((s) => s.status === "failed");
  const why = result.status === "interrupted"
    ? "the run was interrupted"
    : failed === undefined ? "a step failed" : `step ${failed.step_id} failed (${failed.error?.code ?? "INTERNAL"}: ${failed.error?.message ?? ""})`;
  return new ManifoldError("WORKFLOW_FAILED", `${what} failed: ${why}`, {
    details: result.steps.map((step, i) => ({
      ...step,
      pointer: `/steps/${i}`,
      message: step.status === "failed" ? `${step.error?.code ?? "INTERNAL"}: ${step.error?.message ?? ""}` : step.status === "skipped" ? (step.reason ?? "skipped") : "completed",
    })),
  });
}

/** `POST /orchestrate/<workflow>` answer. */
export function workflowResponse(result: WorkflowRunResult): Record<string, unknown> {
  if (result.status !== "completed") throw workflowFailed(`workflow ${result.workflow}`, result);
  return {
    success: true,
    plan_id: result.plan_id,
    workflow: result.workflow,
    outputs: result.outputs,
    ...(result.synthesis === undefined ? {} : { synthesis: result.synthesis }),
    steps: result.steps,
    duration_ms: result.duration_ms,
  };
}

/** `POST /orchestrate/natural` answer. */
export function naturalResponse(result: NaturalRunResult): Record<string, unknown> {
  if (result.status !== "completed") throw workflowFailed(`plan ${result.plan_id}`, result);
  return {
    success: true,
    plan_id: result.plan_id,
    mode: "natural",
    plan: result.plan,
    ...(result.synthesis === undefined ? {} : { synthesis: result.synthesis }),
    steps: result.steps,
    duration_ms: result.duration_ms,
  };
}
