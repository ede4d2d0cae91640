/**
 * What chat puts on the wire and what an agent's typed `chat` handler gives back. The spec names the
 * SSE events `session`, `checkpoint`, `done` and `error` and leaves progress events to the
 * implementation: here `status`, `step` (one per finished plan step), `chunk` (each piece of text),
 * `progress` (natural mode's further phases and retries) and `clarification` (a question for the user).
 */
import type { ChatMessage } from "./store/index.js";

/** Progress a chat turn reports while it runs. */
export type ChatEvent =
  | { readonly type: "status"; readonly message: string }
  | {
      readonly type: "step";
      readonly step_id: string;
      readonly tool: string;
      readonly capability: string;
      readonly status: string;
      readonly duration_ms?: number;
      /**
       * What the step was called with, what it returned, or why it failed: the AI SDK stream shows them
       * as the step's tool part; the spec's SSE `step` event leaves them out.
       */
      readonly input?: unknown;
      readonly output?: unknown;
      readonly error?: { readonly code: string; readonly message: string };
    }
  | { readonly type: "chunk"; readonly text: string }
  /** Natural mode asked the user instead of guessing: the question is the assistant's message, the next turn answers it. */
  | { readonly type: "clarification"; readonly question: string; readonly missing_fields: readonly string[] }
  /** Natural mode's loop at work: a further phase, or a step retried with corrected or resolved parameters. */
  | {
      readonly type: "progress";
      readonly kind: "phase" | "retry";
      readonly phase?: number;
      readonly step_id?: string;
      readonly capability?: string;
      readonly reason: string;
    };

export interface ChatTurnInput {
  readonly message: string;
  /** The session's id; absent for a `/query` without a known session. */
  readonly session_id?: string;
  /** Earlier messages of the session, oldest first (bounded). */
  readonly history: readonly ChatMessage[];
}

export interface ChatHandlerContext {
  /** Fires when the client disconnects or the agent shuts down. */
  readonly signal: AbortSignal;
  readonly requestId: string;
  /**
   * Runs one of the agent's workflows and resolves to its outputs; each finished step is streamed as a
   * `step` event. Rejects like the workflow's endpoint (WORKFLOW_FAILED, INVALID_INPUT, NOT_FOUND).
   */
  runWorkflow(name: string, input: unknown): Promise<Record<string, unknown>>;
}

/** How chat runs a workflow for a handler: the agent's orchestration, telling each finished step. */
export type ChatWorkflowRunner = (
  name: string,
  input: unknown,
  options: { readonly signal: AbortSignal; readonly onStep: (step: Omit<Extract<ChatEvent, { type: "step" }>, "type">) => void },
) => Promise<Record<string, unknown>>;

/**
 * An agent's own chat logic, so a chat agent works without a language model: an async generator of
 * events and text (each string is a `chunk`), or a function that resolves to the whole answer. The
 * answer the session keeps is the text of all its chunks.
 */
export type ChatHandler = (input: ChatTurnInput, ctx: ChatHandlerContext) => AsyncIterable<ChatEvent | string> | Promise<string> | string;

/** A turn's answer: what the assistant message stores. */
export interface ChatAnswer {
  readonly content: string;
  /** Set when the turn's run paused for human approval: the paused answer (a 202 `{status: "interrupted", checkpoint_id, checkpoint}`). */
  readonly paused?: unknown;
  readonly metadata: {
    readonly request_id: string;
    readonly tools_used: readonly string[];
    readonly duration_ms: number;
    readonly confidence?: number;
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
    readonly usage_by_phase: Readonly<Record<string, { readonly prompt_tokens: number; readonly completion_tokens: number; readonly total_tokens: number }>>;
  };
}

/** Longest message a user may send, in characters: larger is 413 PAYLOAD_TOO_LARGE. */
export const MAX_MESSAGE_CHARS = 16_000;
/** The earlier turns given to the planner and the synthesis: at most this many messages and characters. */
export const HISTORY_MESSAGES = 10;
export const HISTORY_CHARS = 4_000;
/** A comment line this often keeps proxies from closing an idle stream. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** What the chat extension is given, checked: the feature checks it at start too, before the extension loads. */
export function checkChatOptions(handler: unknown, heartbeatMs: number): void {
  if (handler !== undefined && typeof handler !== "function") throw new TypeError("chat must be a function");
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 10) throw new RangeError("heartbeatMs must be a whole number of ms, at least 10");
}
