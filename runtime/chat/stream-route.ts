/**
 * `POST /chat/stream` and `POST /query`. Everything that can be refused is refused before the SSE
 * headers go out (method, JSON, `message`, a model or handler to answer with), as an ordinary error
 * envelope. Then: the session (a replacement when the given one is unknown or expired, announced by
 * the first event), the user message appended before the run, progress events, and `done` with the
 * assistant message once it is stored. After the headers a failure is an `error` event with
 * `retryable: false`. A client that disconnects aborts the run, and with it every tool call still to come.
 */
import { jsonRoute, readJsonBody, REQUEST_ID_HEADER, routeRequestContext, type AddRoute, type RouteContext, type RouteHandler } from "../component/index.js";
import { requestIdOf, withRequestContext } from "../context/index.js";
import { clientSafe, isManifoldError, ManifoldError } from "../errors/index.js";
import { getTelemetry } from "../telemetry/index.js";
import { flat, newId } from "./ids.js";
import { isOwnSession, messageOf, ownerOf, sessionIdOf } from "./requests.js";
import { openRouteStream } from "../component/index.js";
import { aiSdkMessageOf, AI_SDK_STREAM_HEADER, chatIdOf, derivedSessionId, wantsAiSdk } from "./ai-sdk-request.js";
import { createAiSdkWriter } from "./ai-sdk-stream.js";
import { isSessionId, type ChatMessage, type ChatSession, type ChatSessionStore } from "./store/index.js";
import { boundedHistory, checkAnswerable, runTurn, startTurn } from "./turn.js";
import { announce, HeldTurn, message, NO_METADATA, SpecWriter, type StreamRouteOptions } from "./held-turn.js";
import type { ChatAnswer, ChatEvent } from "./wire.js";

/**
 * The turn, inside the request's scope (which the caller has entered), with the session id as the
 * conversation id in baggage; aborted with `signal`.
 */
function answer(
  options: StreamRouteOptions,
  turn: { readonly requestId: string; readonly session: ChatSession | undefined; readonly text: string; readonly abort: AbortSource },
  onEvent: (e: ChatEvent) => void,
  requestMode: "streaming" | "non_streaming",
): Promise<ChatAnswer> {
  const { session } = turn;
  return withRequestContext(session === undefined ? {} : { conversationId: session.id }, () => answerInScope(options, turn, onEvent, requestMode));
}

/** The turn, in a scope the caller has entered with the session id as the conversation id. */
function answerInScope(
  { handler, orchestrator, runWorkflow }: StreamRouteOptions,
  {
    requestId,
    session,
    text,
    abort,
  }: { readonly requestId: string; readonly session: ChatSession | undefined; readonly text: string; readonly abort: AbortSource },
  onEvent: (e: ChatEvent) => void,
  requestMode: "streaming" | "non_streaming",
): Promise<ChatAnswer> {
  const history = boundedHistory(session?.messages ?? []);
  const input = { message: text, history, ...(session === undefined ? {} : { session_id: session.id }) };
  return runTurn(input, {
    handler,
    orchestrator,
    runWorkflow,
    // Read only when the turn needs the signal itself: a route stream makes its controller then.
    get signal() {
      return abort.signal;
    },
    cancelled: abort,
    requestId,
    onEvent,
    requestMode,
  });
}

/** What aborts a turn: a run's controller, or a route stream (whose controller is made only if the signal is read). */
interface AbortSource {
  readonly signal: AbortSignal;
  readonly aborted?: boolean;
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

/**
 * The session an AI SDK chat id stands for: the caller's own session when `id` is one, else the one
 * derived from the caller and `id` (ai-sdk-request.ts), made with that id when it does not exist yet.
 */
async function chatSession(sessions: ChatSessionStore, chatId: string | undefined): Promise<{ found?: ChatSession; id: string }> {
  if (chatId === undefined) return { id: newId() };
  const direct = await ownSession(sessions, chatId);
  if (direct !== undefined) return { found: direct, id: direct.id };
  const derived = derivedSessionId(ownerOf(false), chatId);
  const existing = await sessions.get(derived);
  if (existing !== undefined && isOwnSession(existing)) return { found: existing, id: derived };
  // Never another caller's: a (practically impossible) clash gets a session of its own.
  return { id: existing === undefined ? derived : newId() };
}

/** What a `/chat/stream` request asks: its text, its session (found, or the id a new one gets) and its protocol. */
async function readTurn(ctx: RouteContext, options: StreamRouteOptions): Promise<{ text: string; found?: ChatSession; id: string; aiSdk: boolean }> {
  const body = await readJsonBody(ctx.req, options.bodyLimit);
  const aiSdk = wantsAiSdk(ctx, body);
  const useChat = aiSdk && body["message"] === undefined;
  const text = useChat ? aiSdkMessageOf(body) : messageOf(body);
  const chatId = useChat ? chatIdOf(body) : undefined;
  const given = useChat ? undefined : sessionIdOf(body);
  guard(options);
  if (useChat) return { text, aiSdk, ...(await chatSession(options.sessions, chatId)) };
  const found = await ownSession(options.sessions, given);
  return { text, aiSdk, id: found?.id ?? newId(), ...(found === undefined ? {} : { found }) };
}

/** The AI SDK stream's own header, sent with the SSE head. */
const AI_SDK_HEADERS: Readonly<Record<string, string>> = { [AI_SDK_STREAM_HEADER]: "v1" };

/**
 * Everything up to the turn's start: the request read, the session found or made, the user's message
 * stored, the stream opened, and the turn started in the request's scope with its answer going to
 * `held`. A failure before the stream opened goes to `held.reject` as well.
 */
async function openTurn(held: HeldTurn, ctx: RouteContext): Promise<void> {
  const { options } = held;
  const { sessions, heartbeatMs, forward, running } = options;
  const trace = getTelemetry().serverTraceOf(ctx.req);
  // Flat: a generated id is a chain of string pieces until read, and the stream and its scope keep it (ids.ts).
  const requestId = flat(requestIdOf(ctx.req, trace?.requestId));
  let turn: Awaited<ReturnType<typeof readTurn>>;
  let session: ChatSession;
  let asked: ChatMessage;
  try {
    turn = await readTurn(ctx, options);
    session = turn.found ?? (await sessions.create({ id: turn.id, userId: ownerOf(false), metadata: NO_METADATA, now: Date.now() }));
    // The user's message is kept even if the run then fails.
    asked = message("user", turn.text, NO_METADATA);
    await sessions.append(session.id, asked);
  } catch (error) {
    // The error envelope carries the request id. Set only here: a header set on the response before
    // the stream's writeHead costs each held stream node's header map (bench:chat).
    ctx.set(REQUEST_ID_HEADER, requestId);
    return held.reject(error);
  }
  const { text, found, aiSdk } = turn;

  const replyId = newId();
  const route = openRouteStream(ctx, { heartbeatMs, requestId, ...(aiSdk ? { headers: AI_SDK_HEADERS } : {}) });
  const { stream } = route;
  held.writer = aiSdk ? createAiSdkWriter((frame) => stream.open && ctx.res.write(frame), { messageId: replyId }) : new SpecWriter(stream);
  held.cancelled = route;
  held.requestId = requestId;
  held.sessionId = session.id;
  held.asked = asked;
  held.replyId = replyId;
  held.trace = trace;
  running.add(route);
  try {
    held.writer.session(session.id, found === undefined);
    // Not a jsonRoute: the request's scope and its server span are entered here, one scope with the
    // session as its conversation (a nested one per turn cost a scope and an outbound context a stream).
    const history = boundedHistory(session.messages);
    const sessionId = session.id;
    const run = (): void =>
      withRequestContext({ ...routeRequestContext(ctx, requestId, trace, forward), conversationId: sessionId }, () =>
        startTurn({ message: text, history, session_id: sessionId }, held, held),
      );
    if (trace === undefined) run();
    else trace.run(run);
  } catch (error) {
    held.reject(error);
  }
}

/**
 * `POST /chat/stream`: the turn over SSE, in the given session or a new one announced first; in the
 * spec's events, or the AI SDK's UI message stream when the request asks for it (same turn, other writer).
 */
function streamRoute(options: StreamRouteOptions): (ctx: RouteContext) => Promise<void> {
  return (ctx) => {
    const held = new HeldTurn(options);
    // A throw of its own (before or while opening the stream) is the route's failure.
    openTurn(held, ctx).catch((error: unknown) => held.reject(error));
    // A thenable, not a promise (held-turn.ts): the pipeline and an `await` call only its `then`.
    return held as unknown as Promise<void>;
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
        const asked = message("user", text, NO_METADATA);
        if (session !== undefined) await sessions.append(session.id, asked);
        // jsonRoute has entered the request's scope and span already.
        const done = await answer(options, { requestId, session, text, abort: controller }, () => undefined, "non_streaming");
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
