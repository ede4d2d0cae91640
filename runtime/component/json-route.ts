/**
 * The request scope of an extension route, so each feature's routes behave like capability calls:
 * the JSON body read within the component's limit, an AbortSignal that fires when the client hangs
 * up, the request id echoed, the server span, and the request context (ids, forwarded token and
 * headers) every outbound call made while answering reads.
 */
import {
  APPROVAL_GATE_HEADER,
  forwardedFrom,
  requestIdOf,
  validConversationId,
  withRequestContext,
  type ForwardOptions,
  type RequestContextInit,
} from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { CONVERSATION_HEADER } from "../telemetry/index.js";
import { getTelemetry, type ServerTrace } from "../telemetry/index.js";
import { readJsonBody } from "./body.js";
import { REQUEST_ID_HEADER, sendJson } from "./reply.js";
import type { RouteContext, RouteHandler } from "./routes.js";

/** What a JSON route's work gets beside the body. */
export interface JsonRouteScope {
  /** Aborts when the client disconnects before the answer is written. */
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** The route's context: `params`, headers. */
  readonly ctx: RouteContext;
}

/** A JSON answer with a status other than 200 (a run paused for approval is 202), made by `jsonReply`. */
export class JsonReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export const jsonReply = (status: number, body: unknown): JsonReply => new JsonReply(status, body);

export type JsonWork = (body: Record<string, unknown>, scope: JsonRouteScope) => Promise<unknown>;

export interface JsonRouteOptions {
  /** The component's body limit (`ExtensionContext.bodyLimit`). */
  readonly bodyLimit: number;
  /** Copy the incoming token and these headers into the calls the work makes. @defaultValue nothing is forwarded */
  readonly forward?: ForwardOptions;
}

/** The request scope of a route: its ids (from the trace's baggage or the header), and the forwarded token and headers. */
export function routeRequestContext(
  ctx: RouteContext,
  requestId: string,
  trace: ServerTrace | undefined,
  forward: ForwardOptions | undefined,
): RequestContextInit {
  const conversationId = trace?.conversationId ?? validConversationId(ctx.headers[CONVERSATION_HEADER]);
  const ids: RequestContextInit = {
    requestId,
    ...(trace?.originalRequestId === undefined ? {} : { originalRequestId: trace.originalRequestId }),
    ...(conversationId === undefined ? {} : { conversationId }),
    // The restrictions of an unapproved request that called this route (context/approval.ts).
    ...(ctx.headers[APPROVAL_GATE_HEADER] === undefined ? {} : { approvalGate: ctx.headers[APPROVAL_GATE_HEADER] }),
  };
  if (forward === undefined) return ids;
  const { token, headers } = forwardedFrom(ctx.headers, forward);
  return { ...ids, headers, ...(token === undefined ? {} : { token }) };
}

/**
 * A route handler around `work`: answers 200 with the JSON `work` resolves to (or a `jsonReply`'s
 * status and body). Errors are thrown as
 * ManifoldErrors for the errors middleware to answer in the envelope.
 */
export function jsonRoute(work: JsonWork, { bodyLimit, forward }: JsonRouteOptions): RouteHandler {
  return async (ctx) => {
    const trace = getTelemetry().serverTraceOf(ctx.req);
    const requestId = requestIdOf(ctx.req, trace?.requestId);
    ctx.set(REQUEST_ID_HEADER, requestId);
    const body = await readJsonBody(ctx.req, bodyLimit);
    const controller = new AbortController();
    // `close` before the response finished: the client hung up, so nobody waits for the work.
    const onClose = (): void => {
      if (!ctx.res.writableFinished) controller.abort(new ManifoldError("ABORTED", "client disconnected"));
    };
    ctx.res.once("close", onClose);
    try {
      const init = routeRequestContext(ctx, requestId, trace, forward);
      const run = (): Promise<unknown> => withRequestContext(init, () => work(body, { signal: controller.signal, requestId, ctx }));
      const payload = await (trace === undefined ? run() : trace.run(run));
      if (payload instanceof JsonReply) sendJson(ctx, payload.status, JSON.stringify(payload.body));
      else sendJson(ctx, 200, JSON.stringify(payload));
    } finally {
      ctx.res.off("close", onClose);
    }
  };
}
