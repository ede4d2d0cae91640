/**
 * One chat turn: the agent's typed `chat` handler when it has one, else natural mode (plan over the
 * network, run, synthesise) with the conversation's earlier turns in the request. Progress goes to
 * `onEvent` as it happens; the result is the assistant message's text and metadata.
 */
import { ManifoldError } from "../errors/index.js";
import { cutUtf8, llmUnavailable, NO_USAGE, toolOutput, type LlmUsage } from "../llm/index.js";
import { naturalConfidence, type CallRecord, type Orchestrator } from "../orchestration/served.js";
import type { ChatMessage } from "./store/index.js";
import { HISTORY_CHARS, HISTORY_MESSAGES, type ChatAnswer, type ChatEvent, type ChatHandler, type ChatTurnInput, type ChatWorkflowRunner } from "./wire.js";

export interface TurnOptions {
  readonly handler?: ChatHandler | undefined;
  readonly orchestrator?: Orchestrator | undefined;
  /** May be a getter: a handler's turn reads it only when the handler or a workflow asks for it. */
  readonly signal: AbortSignal;
  /** Whether the turn was aborted, read before each item of a handler's turn instead of `signal.aborted` when given. */
  readonly cancelled?: { readonly aborted?: boolean } | undefined;
  readonly requestId: string;
  /** Called as a method of the options (a held stream's options keep no closure for it). */
  onEvent(event: ChatEvent): void;
  readonly runWorkflow?: ChatWorkflowRunner | undefined;
  /** How the turn is answered, for a checkpoint if its run pauses for approval. @defaultValue "non_streaming" */
  readonly requestMode?: "streaming" | "non_streaming";
}

/** Where a turn's answer goes: a promise's resolvers (runTurn), or a held stream's turn; a second call of either does nothing. */
export interface TurnSink {
  resolve(answer: ChatAnswer): void;
  reject(error: unknown): void;
}

/** Whether a turn can be answered at all; checked before a stream's headers go out. */
export function checkAnswerable(handler: ChatHandler | undefined, orchestrator: Orchestrator | undefined): void {
  if (handler === undefined && orchestrator?.hasPlanner !== true) throw llmUnavailable("chat without a chat handler (pass serve({ chat }))");
}

/** The newest earlier messages that fit the budget, oldest first. */
export function boundedHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let chars = 0;
  for (const message of [...messages].reverse().slice(0, HISTORY_MESSAGES)) {
    const content = message.content.length > 1000 ? `${message.content.slice(0, 997)}...` : message.content;
    if (chars + content.length > HISTORY_CHARS) break;
    chars += content.length;
    kept.unshift({ ...message, content });
  }
  return kept;
}

/** What the planner and the synthesis read: the message, after the earlier turns when there are some. */
export function conversationRequest(message: string, history: readonly ChatMessage[]): string {
  if (history.length === 0) return message;
  // The agent's earlier answers carry what tools returned (issue 32, H2): they reach the prompt as data.
  const turns = history
    .map((m) => (m.role === "assistant" ? `assistant: ${toolOutput(m.content, { source: "earlier answer" })}` : `${m.role}: ${m.content}`))
    .join("\n");
  return `Earlier in this conversation (oldest first):\n${turns}\n\nThe user's new message, to answer now:\n${message}`;
}

function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

function isEvent(value: unknown): value is ChatEvent {
  if (typeof value !== "object" || value === null) return false;
  const { type } = value as { type?: unknown };
  return type === "status" || type === "step" || type === "chunk";
}

function isIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * A typed handler's turn, driven by callbacks instead of awaits: a held stream keeps this one object and
 * the handler's own pending step rather than suspended async frames with a promise each (bench:chat
 * measures the heap per held stream). The steps are a for-await's over the handler's events: the
 * handler is called and its first `next()` asked at once; strings and `chunk` events add to the text; an
 * abort stops before the next item and closes the iterator (its `return()` awaited, its failure the
 * turn's); an item that is no event fails the turn after closing it (a failure of `return()` ignored);
 * a failing `next()` fails the turn without closing.
 */
class HandlerTurn {
  readonly #options: TurnOptions;
  readonly #started: number;
  /** Made at the first tool a step names: most turns name none, and an empty Set's table is a held stream's too. */
  #tools: Set<string> | undefined;
  #text = "";
  #iterator: AsyncIterator<unknown> | undefined;
  #next: AsyncIterator<unknown>["next"] | undefined;
  /** Where the answer goes (runTurn's promise, or the held stream's turn): no promise is the turn's own. */
  readonly #sink: TurnSink;
  /** Bound, not arrows: no context of their own kept beside them (a held stream's heap). */
  readonly #onNext = this.#took.bind(this);
  readonly #onFailed = this.#reject.bind(this);

  #workflow(name: string, workflowInput: unknown): Promise<Record<string, unknown>> {
    const options = this.#options;
    const { runWorkflow, signal } = options;
    if (runWorkflow === undefined) return Promise.reject(new ManifoldError("NOT_FOUND", `this agent has no workflow ${name}`));
    return runWorkflow(name, workflowInput, {
      signal,
      onStep: (step) => {
        if (step.status === "completed") this.#used(step.tool);
        options.onEvent({ type: "step", ...step });
      },
    });
  }

  constructor(handler: ChatHandler, input: ChatTurnInput, options: TurnOptions, started: number, sink: TurnSink) {
    this.#options = options;
    this.#started = started;
    this.#sink = sink;
    try {
      const produced = handler(input, {
        // Read from the options when the handler asks: a route stream makes its controller only then.
        get signal() {
          return options.signal;
        },
        requestId: options.requestId,
        // Made with the handler's context, not kept by the turn: a handler that never keeps its context holds none.
        runWorkflow: (name: string, workflowInput: unknown) => this.#workflow(name, workflowInput),
      });
      if (!isIterable(produced)) {
        Promise.resolve(produced).then((text) => this.#whole(text), this.#onFailed);
        return;
      }
      const iterator = produced[Symbol.asyncIterator]() as AsyncIterator<unknown>;
      if (!isObject(iterator)) throw new TypeError("a chat handler's async iterator is not an object");
      this.#iterator = iterator;
      this.#next = iterator.next;
      this.#step();
    } catch (error) {
      this.#reject(error);
    }
  }

  /** A handler that resolved to the whole answer. */
  #whole(text: unknown): void {
    if (typeof text !== "string") return this.#reject(new TypeError("a chat handler must return a string or an async iterable of events and strings"));
    try {
      if (text !== "") this.#options.onEvent({ type: "chunk", text });
      this.#text = text;
      this.#finish();
    } catch (error) {
      this.#reject(error);
    }
  }

  #step(): void {
    try {
      Promise.resolve(this.#next!.call(this.#iterator)).then(this.#onNext, this.#onFailed);
    } catch (error) {
      this.#reject(error);
    }
  }

  #took(result: unknown): void {
    if (!isObject(result)) return this.#reject(new TypeError(`Iterator result ${String(result)} is not an object`));
    let item: unknown;
    try {
      if ((result as IteratorResult<unknown>).done) return this.#finish();
      item = (result as IteratorResult<unknown>).value;
    } catch (error) {
      return this.#reject(error);
    }
    // Not `signal.aborted` when the options say otherwise: reading the signal would make a route stream's controller.
    if ((this.#options.cancelled?.aborted ?? this.#options.signal.aborted) === true) return this.#close(undefined);
    try {
      this.#item(item);
    } catch (error) {
      return this.#close({ error });
    }
    this.#step();
  }

  #item(item: unknown): void {
    const options = this.#options;
    if (typeof item === "string") {
      this.#text += item;
      if (item !== "") options.onEvent({ type: "chunk", text: item });
    } else if (isEvent(item)) {
      if (item.type === "chunk") this.#text += item.text;
      if (item.type === "step") this.#used(item.tool);
      options.onEvent(item);
    } else {
      throw new TypeError("a chat handler yielded something that is neither a string nor a status, step or chunk event");
    }
  }

  #used(tool: string): void {
    (this.#tools ??= new Set()).add(tool);
  }

  /** As for-await closes its iterator: after a break (`thrown` undefined) or a throw from the loop's body. */
  #close(thrown: { readonly error: unknown } | undefined): void {
    const iterator = this.#iterator!;
    let closing: unknown;
    try {
      const close = iterator.return;
      if (close === undefined || close === null) return thrown === undefined ? this.#finish() : this.#reject(thrown.error);
      closing = close.call(iterator);
    } catch (error) {
      return this.#reject(thrown === undefined ? error : thrown.error);
    }
    Promise.resolve(closing).then(
      (result) => {
        if (thrown !== undefined) this.#reject(thrown.error);
        else if (!isObject(result)) this.#reject(new TypeError(`Iterator result ${String(result)} is not an object`));
        else this.#finish();
      },
      (error: unknown) => this.#reject(thrown === undefined ? error : thrown.error),
    );
  }

  #finish(): void {
    try {
      this.#sink.resolve(turnAnswer({ text: this.#text, tools: this.#tools ?? NO_TOOLS }, NO_PHASES, this.#options.requestId, this.#started));
    } catch (error) {
      this.#reject(error);
    }
  }

  #reject(error: unknown): void {
    this.#sink.reject(error);
  }
}

function isObject(value: unknown): value is object {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

/** What a turn came to: the answer's text and what its metadata says. */
interface TurnOutcome {
  readonly text: string;
  readonly tools: ReadonlySet<string>;
  readonly paused?: unknown;
  readonly confidence?: number;
  /** The turn asked the user: the values it lacks. */
  readonly needsInput?: readonly string[];
}

async function runNatural(orchestrator: Orchestrator, input: ChatTurnInput, options: TurnOptions, usage: Map<string, LlmUsage>): Promise<TurnOutcome> {
  const { signal, requestMode = "non_streaming" } = options;
  const onEvent = (event: ChatEvent): void => options.onEvent(event);
  const tools = new Set<string>();
  // Each step's parameters, from its last round until its step event is out (the AI SDK stream's tool input).
  const parameters = new Map<string, unknown>();
  let streamed = "";
  onEvent({ type: "status", message: "planning" });
  const result = await orchestrator.runNatural(conversationRequest(input.message, input.history), {
    signal,
    synthesise: orchestrator.hasSynthesiser,
    onRound: (round) => parameters.set(round.step_id, round.parameters),
    onStep: (step) => {
      if (step.status === "completed") tools.add(step.component);
      const input = parameters.get(step.step_id);
      parameters.delete(step.step_id);
      onEvent({
        type: "step",
        step_id: step.step_id,
        tool: step.component,
        capability: step.capability,
        status: step.status,
        duration_ms: step.duration_ms,
        ...(input === undefined ? {} : { input }),
        ...(step.status === "completed" ? { output: step.output } : {}),
        ...(step.error === undefined ? {} : { error: { code: step.error.code, message: step.error.message } }),
      });
    },
    onChunk: (text) => {
      streamed += text;
      onEvent({ type: "chunk", text });
    },
    onProgress: (progress) => onEvent({ type: "progress", ...progress }),
    onModelCall: ({ type, completion }: CallRecord) => {
      if (completion !== undefined) usage.set(type, addUsage(usage.get(type) ?? NO_USAGE, completion.usage));
    },
    // The session is the conversation: a resume continues it (the spec's checkpoint user context).
    requestContext: {
      request_mode: requestMode,
      user_context: input.session_id === undefined ? {} : { conversation_id: input.session_id, session_id: input.session_id },
    },
  });
  if (result.paused !== undefined) return { text: "", tools, paused: result.paused };
  if (result.status === "interrupted" || signal.aborted) throw new ManifoldError("ABORTED", "the chat turn was interrupted");
  const { clarification } = result;
  if (clarification !== undefined) {
    // The question is the assistant's message: the user's answer, next turn, continues the conversation with it in the history.
    onEvent({ type: "clarification", question: clarification.question, missing_fields: clarification.missing_fields });
    return { text: clarification.question, tools, needsInput: clarification.missing_fields };
  }
  // The same confidence `POST /orchestrate/natural` answers with (the spec's assistant message metadata).
  const confidence = naturalConfidence(result);
  if (typeof result.synthesis === "string") return { text: streamed === "" ? result.synthesis : streamed, tools, confidence };
  // No synthesiser: the steps' outputs are the answer, sent as one piece.
  const text = JSON.stringify(result.steps.map((s) => ({ step_id: s.step_id, status: s.status, output: s.output })));
  onEvent({ type: "chunk", text });
  return { text, tools, confidence };
}

/** Most UTF-8 bytes of one assistant answer kept in the session's history (issue 32 L2); a longer one is cut and says so. */
export const MAX_ANSWER_BYTES = 64 * 1024;

function keptAnswer(text: string): string {
  const kept = cutUtf8(text, MAX_ANSWER_BYTES);
  return kept.cut ? `${kept.text}\n\n[answer truncated: it was longer than ${MAX_ANSWER_BYTES} bytes]` : text;
}

/** A typed handler's turn calls no model: no usage to count, and no map held per stream for it. */
const NO_PHASES: ReadonlyMap<string, LlmUsage> = new Map();
const NO_TOOLS: ReadonlySet<string> = new Set();

/** The turn's answer from what it came to; `usage` is what its model calls counted, by phase. */
function turnAnswer(outcome: TurnOutcome, usage: ReadonlyMap<string, LlmUsage>, requestId: string, started: number): ChatAnswer {
  const { text, tools, paused, confidence, needsInput } = outcome;
  const total = [...usage.values()].reduce(addUsage, NO_USAGE);
  return {
    content: keptAnswer(text),
    ...(paused === undefined ? {} : { paused }),
    metadata: {
      request_id: requestId,
      tools_used: [...tools].sort(),
      ...(confidence === undefined ? {} : { confidence }),
      ...(needsInput === undefined ? {} : { status: "needs_input", missing_fields: needsInput }),
      duration_ms: Math.round(performance.now() - started),
      ...total,
      usage_by_phase: Object.fromEntries([...usage].sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}

/** Natural mode's turn: plan, run, synthesise, with the model calls' usage counted. */
async function naturalTurn(orchestrator: Orchestrator, input: ChatTurnInput, options: TurnOptions, started: number): Promise<ChatAnswer> {
  const usage = new Map<string, LlmUsage>();
  const outcome = await runNatural(orchestrator, input, options, usage);
  return turnAnswer(outcome, usage, options.requestId, started);
}

export function runTurn(input: ChatTurnInput, options: TurnOptions): Promise<ChatAnswer> {
  return new Promise((resolve, reject) => startTurn(input, options, { resolve, reject }));
}

/**
 * runTurn with the answer given to `sink`, maybe synchronously, instead of a promise of the turn's
 * own: a held stream keeps no promise for its answer.
 */
export function startTurn(input: ChatTurnInput, options: TurnOptions, sink: TurnSink): void {
  const started = performance.now();
  const { handler, orchestrator } = options;
  try {
    checkAnswerable(handler, orchestrator);
  } catch (error) {
    return sink.reject(error);
  }
  if (handler !== undefined) new HandlerTurn(handler, input, options, started, sink);
  else
    naturalTurn(orchestrator!, input, options, started).then(
      (answer) => sink.resolve(answer),
      (error: unknown) => sink.reject(error),
    );
}
