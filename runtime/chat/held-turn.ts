/**
 * What a `/chat/stream` turn holds while its stream is open (HeldTurn), the spec's SSE writer, and the
 * helpers the stream and query routes share. Every field here is a held stream's heap (bench:chat).
 */
import { AsyncResource } from "node:async_hooks";
import { JsonReply, type RouteStream, type SseStream } from "../component/index.js";
import { callerIdentity, type ForwardOptions } from "../context/index.js";
import { clientSafe, isManifoldError } from "../errors/index.js";
import type { FeatureEvents } from "../feature/index.js";
import type { Orchestrator } from "../orchestration/served.js";
import type { Logger, ServerTrace, TraceContext } from "../telemetry/index.js";
import type { TurnWriter } from "./ai-sdk-stream.js";
import { newId } from "./ids.js";
import type { ChatMessage, ChatSessionStore } from "./store/index.js";
import type { TurnOptions, TurnSink } from "./turn.js";
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
  /** Runs in flight (a run's controller, or a stream that makes its controller only if asked), aborted when the agent stops. */
  readonly running: Set<{ abort(): void }>;
  /** False while starting or draining: 503 before anything is stored. */
  readonly ready: () => boolean;
  /** Told about each stored turn (`chat.turn_completed`). */
  readonly events?: FeatureEvents | undefined;
}

/** A new session's and a user message's metadata: one frozen empty object shared, not one per stored session and message. */
export const NO_METADATA: Readonly<Record<string, unknown>> = Object.freeze({});

export function message(role: ChatMessage["role"], content: string, metadata: Readonly<Record<string, unknown>>, id: string = newId()): ChatMessage {
  return { id, role, content, timestamp: new Date().toISOString(), metadata };
}

/** Announces a stored turn to the features that listen (memory); builds nothing when none does. */
export function announce(
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

/** An event's SSE data: a step's input, output and error stay out of the spec's stream (they are the AI SDK's tool parts). */
function eventData(event: ChatEvent): Record<string, unknown> {
  if (event.type === "step") {
    const { type: _type, input: _input, output: _output, error: _error, ...data } = event;
    return data;
  }
  const { type: _type, ...data } = event;
  return data;
}

/**
 * The spec's SSE events: `session`, progress events, then `done`, `checkpoint` or `error`. A class, so
 * a held stream carries one small object and the methods are shared, not five closures of its own.
 */
export class SpecWriter implements TurnWriter {
  readonly #stream: SseStream;
  constructor(stream: SseStream) {
    this.#stream = stream;
  }
  session(sessionId: string, created: boolean): void {
    this.#stream.send("session", { session_id: sessionId, created });
  }
  event(event: ChatEvent): void {
    this.#stream.send(event.type, eventData(event));
  }
  paused(body: Record<string, unknown>, sessionId: string): void {
    this.#stream.send("checkpoint", { ...body, conversation_id: sessionId, session_id: sessionId });
  }
  done(sessionId: string, reply: ChatMessage): void {
    this.#stream.send("done", { session_id: sessionId, message: reply });
  }
  error(failure: { readonly code: string; readonly message: string }, requestId: string): void {
    this.#stream.send("error", { code: failure.code, message: failure.message, retryable: false, request_id: requestId });
  }
}

/**
 * A `/chat/stream` turn, its options (TurnOptions) and where its answer goes (TurnSink): a class, so a
 * held stream keeps this one object with its fields in place (an object literal with a `get signal()`
 * was a dictionary of about 450 bytes), and no suspended async frame that keeps every local of the
 * route (the session's copy, the request's parse) until the turn ends.
 *
 * It is also the route's outcome, a thenable rather than a promise: the pipeline's `then` (or the
 * `await` of a route around it) hands it the two callbacks, and the turn's end calls one. A promise
 * for the answer and another for the route, with their resolvers, reactions and the async ids that
 * promise hooks give each, were about 0.6 KB of every held stream (bench:chat). The answer is stored
 * and sent in the async scope the route was called in, not the turn's request scope, as when it was a
 * reaction attached there: an AsyncResource made with the turn keeps that scope.
 */
export class HeldTurn extends AsyncResource implements TurnOptions, TurnSink {
  /** Set once the stream is open: before that, a failure is the route's to throw (an error envelope). */
  cancelled: RouteStream | undefined;
  writer: TurnWriter | undefined;
  requestId = "";
  sessionId = "";
  asked: ChatMessage | undefined;
  replyId: string | undefined;
  trace: ServerTrace | undefined;
  /** The turn gave its answer or failed: a second call of either does nothing, as with a promise's resolvers. */
  #settled = false;
  /** The route's outcome once the answer is stored and sent (or the failure handled): kept until `then` asks. */
  #outcome: { readonly failed: boolean; readonly error: unknown } | undefined;
  #onDone: (() => void) | undefined;
  #onFailed: ((error: unknown) => void) | undefined;

  constructor(readonly options: StreamRouteOptions) {
    super("ChatTurn");
  }

  // The route's, read from its options: getters, not fields copied into every held stream.
  get handler(): ChatHandler | undefined {
    return this.options.handler;
  }

  get orchestrator(): Orchestrator | undefined {
    return this.options.orchestrator;
  }

  get runWorkflow(): ChatWorkflowRunner | undefined {
    return this.options.runWorkflow;
  }

  get requestMode(): "streaming" {
    return "streaming";
  }

  onEvent(event: ChatEvent): void {
    this.writer!.event(event);
  }

  /** Read only when the turn needs the signal itself: a route stream makes its controller then. */
  get signal(): AbortSignal {
    return this.cancelled!.signal;
  }

  /** The route's outcome, for one consumer (the pipeline, or an `await`): called once the turn is done with, never synchronously. */
  // biome-ignore lint/suspicious/noThenProperty: the route's outcome is this thenable, on purpose (above).
  then(onDone: () => void, onFailed: (error: unknown) => void): void {
    this.#onDone = onDone;
    this.#onFailed = onFailed;
    if (this.#outcome !== undefined) queueMicrotask(() => this.#deliver());
  }

  /** The turn's answer: stored, announced and sent as `done` (or `checkpoint` when it paused). */
  resolve(done: ChatAnswer): void {
    if (this.#settled) return;
    this.#settled = true;
    this.runInAsyncScope(this.#answer, this, done);
  }

  /** The turn failed: an `error` event; before the stream opened, the route's own failure. */
  reject(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.runInAsyncScope(this.#fail, this, error);
  }

  #answer(done: ChatAnswer): void {
    this.#answered(done).then(
      () => this.#settle(false, undefined),
      (error: unknown) => this.#settle(true, error),
    );
  }

  #fail(error: unknown): void {
    if (this.cancelled === undefined) return this.#settle(true, error);
    try {
      try {
        this.#failed(error);
      } finally {
        this.#end();
      }
    } catch (thrown) {
      return this.#settle(true, thrown);
    }
    this.#settle(false, undefined);
  }

  async #answered(done: ChatAnswer): Promise<void> {
    try {
      const { options, writer, sessionId } = this;
      if (done.paused instanceof JsonReply) {
        // Paused for approval: no answer yet. Only this client may resolve a streaming checkpoint.
        writer!.paused(done.paused.body as Record<string, unknown>, sessionId);
        return;
      }
      const reply = message("assistant", done.content, done.metadata, this.replyId!);
      await options.sessions.append(sessionId, reply);
      announce(options.events, { sessionId, asked: this.asked!, reply, requestId: this.requestId, trace: this.trace?.traceContext() });
      writer!.done(sessionId, reply);
    } catch (error) {
      this.#failed(error);
    } finally {
      this.#end();
    }
  }

  #failed(error: unknown): void {
    const failure = clientSafe(error, "the chat handler failed");
    if (!this.cancelled!.aborted)
      this.options.log?.warn(`chat turn failed: ${failure.message}`, {
        request_id: this.requestId,
        code: failure.code,
        ...(isManifoldError(error) ? {} : { error }),
      });
    this.writer!.error(failure, this.requestId);
  }

  #end(): void {
    this.options.running.delete(this.cancelled!);
    this.cancelled!.end();
  }

  #settle(failed: boolean, error: unknown): void {
    this.#outcome = { failed, error };
    // As a promise's reactions would: later, in the scope this runs in (the route's).
    if (this.#onDone !== undefined) queueMicrotask(() => this.#deliver());
  }

  #deliver(): void {
    const outcome = this.#outcome!;
    if (outcome.failed) this.#onFailed!(outcome.error);
    else this.#onDone!();
  }
}
