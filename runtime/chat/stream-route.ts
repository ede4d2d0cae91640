/**
 * `POST /chat/stream` and `POST /query`. Everything that can be refused is refused before the SSE
 * headers go out (method, JSON, `message`, a model or handler to answer with), as an ordinary error
 * envelope. Then: the session (a replacement when the given one is unknown or expired, announced by
 * the first event), the user message appended before the run, progress events, and `done` with the
 * assistant message once it is stored. After the headers a failure is an `error` event with
 * `retryable: false`. A client that disconnects aborts the run, and with it every tool call still to come.
 */
import { randomUUID } from "node:crypto";
import {
  JsonReply,
  jsonRoute,
  readJsonBody,
  REQUEST_ID_HEADER,
  routeRequestContext,
  type AddRoute,
  type RouteContext,
  type RouteHandler,
} from "../component/index.js";
import { callerIdentity, requestIdOf, withRequestContext, type ForwardOptions } from "../context/index.js";
import { clientSafe, isManifoldError, ManifoldError } from "../errors/index.js";
import type { FeatureEvents } from "../feature/index.js";
import type { Orchestrator } from "../orchestration/index.js";
import { getTelemetry, type Logger, type TraceContext } from "../telemetry/index.js";
import { isOwnSession, messageOf, ownerOf, sessionIdOf } from "./requests.js";
import { openRouteStream } from "../component/index.js";
import { isSessionId, type ChatMessage, type ChatSession, type ChatSessionStore } from "./store/index.js";
import { boundedHistory, checkAnswerable, runTurn } from "./turn.js";
import type { ChatAnswer, ChatEvent, ChatHandler, ChatWorkflowRunner } from "./wire.js";

export interface StreamRouteOptions {
  readonly sessions: ChatSessionStore;
  readonly handler?: ChatHandler | undefined;
  readonly orchestrator?: Orchestrator | undefined;
  readonly runWorkflow?: ChatWorkflowRunner | undefined;
  readonly log?: Logger | undefined;
  readonly bodyLimit: number;
  readonly heartbeatMs: number;
  readonly forward?: ForwardOptions | undefined;
  /** Runs in flight, aborted when the agent stops. */
  readonly running: Set<AbortController>;
  /** False while starting or draining: 503 before anything is stored. */
  readonly ready: () => boolean;
  /** Told about each stored turn (`chat.turn_completed`). */
  readonly events?: FeatureEvents | undefined;
}

function message(role: ChatMessage["role"], content: string, metadata: Readonly<Record<string, unknown>>): ChatMessage {
  return { id: randomUUID(), role, content, timestamp: new Date().toISOString(), metadata };
}

/** Announces a stored turn to the features that listen (memory); builds nothing when none does. */
function announce(
  events: FeatureEvents | undefined,
  turn: {
    readonly sessionId: string;
    readonly asked: ChatMessage;
    readonly reply: ChatMessage;
    readonly requestId: string;
    readonly trace?: TraceContext | undefined;
  },
): void {
  if (events === undefined || !events.has("chat.turn_completed")) return;
  const { sessionId, asked, reply, requestId, trace } = turn;
  events.emit("chat.turn_completed", {
    identity: callerIdentity(),
    session_id: sessionId,
    user_message_id: asked.id,
    request_id: requestId,
    message: asked.content,
    answer: reply.content,
    ...(trace === undefined ? {} : { trace }),
  });
}

function eventData(event: ChatEvent): Record<string, unknown> {
  const { type: _type, ...data } = event;
  return data;
}

/**
 * The turn, inside the request's scope (which the caller has entered), with the session id as the
 * conversation id in baggage; aborted with `signal`.
 */
function answer(
  { handler, orchestrator, runWorkflow }: StreamRouteOptions,
  turn: { readonly requestId: string; readonly session: ChatSession | undefined; readonly text: string; readonly signal: AbortSignal },
  onEvent: (e: ChatEvent) => void,
  requestMode: "streaming" | "non_streaming",
): Promise<ChatAnswer> {
  const { requestId, session, text, signal } = turn;
  const history = boundedHistory(session?.messages ?? []);
  const input = { message: text, history, ...(session === undefined ? {} : { session_id: session.id }) };
  return withRequestContext(session === undefined ? {} : { conversationId: session.id }, () =>
    runTurn(input, { handler, orchestrator, runWorkflow, signal, requestId, onEvent, requestMode }),
  );
}

/** The caller's own session with that id; another caller's is treated as unknown (existence does not leak). */
async function ownSession(sessions: ChatSessionStore, id: string | undefined): Promise<ChatSession | undefined> {
  const found = id !== undefined && isSessionId(id) ? await sessions.get(id) : undefined;
  return found !== undefined && isOwnSession(found) ? found : undefined;
}

/** Refuses a turn while the agent starts or drains, or when nothing could answer it. */
function guard({ ready, handler, orchestrator }: StreamRouteOptions): void {
  if (!ready()) throw new ManifoldError("UNAVAILABLE", "the agent is not ready for chat (starting or shutting down)");
  checkAnswerable(handler, orchestrator);
}

/** `POST /chat/stream`: the turn over SSE, in the given session or a new one announced by the first event. */
function streamRoute(options: StreamRouteOptions): (ctx: RouteContext) => Promise<void> {
  const { sessions, log, bodyLimit, heartbeatMs, forward, running, events } = options;
  return async (ctx) => {
    const trace = getTelemetry().serverTraceOf(ctx.req);
    const requestId = requestIdOf(ctx.req, trace?.requestId);
    ctx.set(REQUEST_ID_HEADER, requestId);
    const body = await readJsonBody(ctx.req, bodyLimit);
    const text = messageOf(body);
    const given = sessionIdOf(body);
    guard(options);
    const found = await ownSession(sessions, given);
    const session = found ?? (await sessions.create({ id: randomUUID(), userId: ownerOf(false), metadata: {}, now: Date.now() }));
    // The user's message is kept even if the run then fails.
    const asked = message("user", text, {});
    await sessions.append(session.id, asked);

    const { stream, controller, end } = openRouteStream(ctx, { heartbeatMs, requestId });
    running.add(controller);
    try {
      stream.send("session", { session_id: session.id, created: found === undefined });
      // Not a jsonRoute: the request's scope and its server span are entered here.
      const run = (): Promise<ChatAnswer> =>
        withRequestContext(routeRequestContext(ctx, requestId, trace, forward), () =>
          answer(options, { requestId, session, text, signal: controller.signal }, (event) => stream.send(event.type, eventData(event)), "streaming"),
        );
      const done = await (trace === undefined ? run() : trace.run(run));
      if (done.paused instanceof JsonReply) {
        // Paused for approval: no answer yet. Only this client may resolve a streaming checkpoint.
        stream.send("checkpoint", { ...(done.paused.body as object), conversation_id: session.id, session_id: session.id });
        return;
      }
      const reply = message("assistant", done.content, done.metadata);
      await sessions.append(session.id, reply);
      announce(events, { sessionId: session.id, asked, reply, requestId, trace: trace?.traceContext() });
      stream.send("done", { session_id: session.id, message: reply });
    } catch (error) {
      const failure = clientSafe(error, "the chat handler failed");
      if (!controller.signal.aborted)
        log?.warn(`chat turn failed: ${failure.message}`, { request_id: requestId, code: failure.code, ...(isManifoldError(error) ? {} : { error }) });
      stream.send("error", { code: failure.code, message: failure.message, retryable: false, request_id: requestId });
    } finally {
      running.delete(controller);
      end();
    }
  };
}

/** `POST /query`: the turn answered as one JSON reply; an unknown session gets no replacement. */
function queryRoute(options: StreamRouteOptions): RouteHandler {
  const { sessions, log, bodyLimit, running, events } = options;
  return jsonRoute(
    async (body, { requestId, signal, ctx }) => {
      const text = messageOf(body);
      const given = sessionIdOf(body);
      guard(options);
      // An unknown session: no replacement, empty history, the run goes ahead.
      const session = await ownSession(sessions, given);
      const controller = new AbortController();
      const abort = (): void => controller.abort(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      running.add(controller);
      try {
        const asked = message("user", text, {});
        if (session !== undefined) await sessions.append(session.id, asked);
        // jsonRoute has entered the request's scope and span already.
        const done = await answer(options, { requestId, session, text, signal: controller.signal }, () => undefined, "non_streaming");
        if (done.paused !== undefined) return done.paused;
        if (session !== undefined) {
          const reply = message("assistant", done.content, done.metadata);
          await sessions.append(session.id, reply);
          announce(events, { sessionId: session.id, asked, reply, requestId, trace: getTelemetry().serverTraceOf(ctx.req)?.traceContext() });
        }
        return { response: done.content, request_id: requestId, ...(session === undefined ? {} : { session_id: session.id }), metadata: done.metadata };
      } catch (error) {
        if (!isManifoldError(error)) log?.warn("chat handler failed", { request_id: requestId, error });
        throw clientSafe(error, "the chat handler failed");
      } finally {
        signal.removeEventListener("abort", abort);
        running.delete(controller);
      }
    },
    { bodyLimit },
  );
}

export function addStreamRoutes(add: AddRoute, options: StreamRouteOptions): void {
  add("POST", "/chat/stream", streamRoute(options));
  add("POST", "/query", queryRoute(options));
}
