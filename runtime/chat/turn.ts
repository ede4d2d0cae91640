/**
 * One chat turn: the agent's typed `chat` handler when it has one, else natural mode (plan over the
 * network, run, synthesise) with the conversation's earlier turns in the request. Progress goes to
 * `onEvent` as it happens; the result is the assistant message's text and metadata.
 */
import { ManifoldError } from "../errors/index.js";
import { cutUtf8, llmUnavailable, NO_USAGE, toolOutput, type LlmUsage } from "../llm/index.js";
import { naturalConfidence, type CallRecord, type Orchestrator } from "../orchestration/index.js";
import type { ChatMessage } from "./store/index.js";
import { HISTORY_CHARS, HISTORY_MESSAGES, type ChatAnswer, type ChatEvent, type ChatHandler, type ChatTurnInput, type ChatWorkflowRunner } from "./wire.js";

export interface TurnOptions {
  readonly handler?: ChatHandler | undefined;
  readonly orchestrator?: Orchestrator | undefined;
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly onEvent: (event: ChatEvent) => void;
  readonly runWorkflow?: ChatWorkflowRunner | undefined;
  /** How the turn is answered, for a checkpoint if its run pauses for approval. @defaultValue "non_streaming" */
  readonly requestMode?: "streaming" | "non_streaming";
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

async function runHandler(
  handler: ChatHandler,
  input: ChatTurnInput,
  { signal, requestId, onEvent, runWorkflow }: TurnOptions,
): Promise<{ text: string; tools: Set<string> }> {
  const tools = new Set<string>();
  const workflow = (name: string, workflowInput: unknown): Promise<Record<string, unknown>> => {
    if (runWorkflow === undefined) return Promise.reject(new ManifoldError("NOT_FOUND", `this agent has no workflow ${name}`));
    return runWorkflow(name, workflowInput, {
      signal,
      onStep: (step) => {
        if (step.status === "completed") tools.add(step.tool);
        onEvent({ type: "step", ...step });
      },
    });
  };
  const produced = handler(input, { signal, requestId, runWorkflow: workflow });
  if (!isIterable(produced)) {
    const text = await produced;
    if (typeof text !== "string") throw new TypeError("a chat handler must return a string or an async iterable of events and strings");
    if (text !== "") onEvent({ type: "chunk", text });
    return { text, tools };
  }
  let text = "";
  for await (const item of produced) {
    if (signal.aborted) break;
    if (typeof item === "string") {
      text += item;
      if (item !== "") onEvent({ type: "chunk", text: item });
    } else if (isEvent(item)) {
      if (item.type === "chunk") text += item.text;
      if (item.type === "step") tools.add(item.tool);
      onEvent(item);
    } else {
      throw new TypeError("a chat handler yielded something that is neither a string nor a status, step or chunk event");
    }
  }
  return { text, tools };
}

/** What a turn came to: the answer's text and what its metadata says. */
interface TurnOutcome {
  readonly text: string;
  readonly tools: Set<string>;
  readonly paused?: unknown;
  readonly confidence?: number;
  /** The turn asked the user: the values it lacks. */
  readonly needsInput?: readonly string[];
}

async function runNatural(orchestrator: Orchestrator, input: ChatTurnInput, options: TurnOptions, usage: Map<string, LlmUsage>): Promise<TurnOutcome> {
  const { signal, onEvent, requestMode = "non_streaming" } = options;
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

export async function runTurn(input: ChatTurnInput, options: TurnOptions): Promise<ChatAnswer> {
  const started = performance.now();
  const { handler, orchestrator } = options;
  checkAnswerable(handler, orchestrator);
  let usage = NO_PHASES;
  let outcome: TurnOutcome;
  if (handler !== undefined) outcome = await runHandler(handler, input, options);
  else {
    const counted = new Map<string, LlmUsage>();
    usage = counted;
    outcome = await runNatural(orchestrator!, input, options, counted);
  }
  const { text, tools, paused, confidence, needsInput } = outcome;
  const total = [...usage.values()].reduce(addUsage, NO_USAGE);
  return {
    content: keptAnswer(text),
    ...(paused === undefined ? {} : { paused }),
    metadata: {
      request_id: options.requestId,
      tools_used: [...tools].sort(),
      ...(confidence === undefined ? {} : { confidence }),
      ...(needsInput === undefined ? {} : { status: "needs_input", missing_fields: needsInput }),
      duration_ms: Math.round(performance.now() - started),
      ...total,
      usage_by_phase: Object.fromEntries([...usage].sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}
