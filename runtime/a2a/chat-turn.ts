/**
 * Natural mode on an agent with chat: an A2A message is a turn of the chat session its `contextId`
 * stands for. It goes through `POST /chat/stream` with the body `useChat` sends (`{id: contextId,
 * messages}`), so the chat route maps (caller, contextId) to the session exactly as it maps a useChat
 * chat id (chat/ai-sdk-request.ts `derivedSessionId`), keeps the history and limits, and stores the
 * answer. The UI message stream's chunks fold into the answer the executor reads; each finished tool
 * part (one per plan step, told by the run's `onRound`/`onStep`) is reported as it comes.
 */
import type { RouteAnswer, SelfCaller, SelfCallOptions } from "./self-call.js";

/** A plan step that finished: its id, `<component>.<capability>`, and how it ended. */
export interface FinishedStep {
  readonly step_id: string;
  readonly tool: string;
  readonly status: "completed" | "failed";
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** What the stream said so far. */
interface Folded {
  text: string;
  readonly tools: Map<string, string>;
  readonly steps: Record<string, unknown>[];
  checkpoint?: string;
  question?: string;
  error?: string;
  metadata?: Record<string, unknown>;
}

function fold(state: Folded, chunk: Record<string, unknown>, onStep: (step: FinishedStep) => void): void {
  const id = String(chunk["toolCallId"] ?? "");
  switch (chunk["type"]) {
    case "text-delta":
      state.text += String(chunk["delta"] ?? "");
      return;
    case "tool-input-available":
      state.tools.set(id, String(chunk["toolName"] ?? ""));
      return;
    case "tool-output-available":
    case "tool-output-error": {
      const completed = chunk["type"] === "tool-output-available";
      state.steps.push(
        completed ? { step_id: id, status: "completed", output: chunk["output"] } : { step_id: id, status: "failed", error: chunk["errorText"] },
      );
      onStep({ step_id: id, tool: state.tools.get(id) ?? "", status: completed ? "completed" : "failed" });
      return;
    }
    case "data-checkpoint":
      if (isRecord(chunk["data"]) && typeof chunk["data"]["checkpoint_id"] === "string") state.checkpoint = chunk["data"]["checkpoint_id"];
      return;
    case "data-clarification":
      if (isRecord(chunk["data"]) && typeof chunk["data"]["question"] === "string") state.question = chunk["data"]["question"];
      return;
    case "error":
      state.error = String(chunk["errorText"] ?? "");
      return;
    case "finish":
      if (isRecord(chunk["messageMetadata"])) state.metadata = chunk["messageMetadata"];
      return;
  }
}

/** The stream's end as the route answer the executor reads (outcomeOf): an error, a pause, a question, or the answer. */
function answerOf(state: Folded): RouteAnswer {
  if (state.error !== undefined) {
    // The chat stream's error text is `CODE: message (request id)`.
    const [, code = "INTERNAL", message = state.error] = /^([A-Z_]+): (.*?)(?: \(request [^)]*\))?$/s.exec(state.error) ?? [];
    return { status: 500, body: { error: { code, message } } };
  }
  if (state.checkpoint !== undefined) return { status: 202, body: { status: "interrupted", checkpoint_id: state.checkpoint } };
  if (state.question !== undefined) return { status: 200, body: { status: "needs_input", question: state.question } };
  const metadata = state.metadata ?? {};
  return { status: 200, body: { response: state.text, steps: state.steps, session_id: metadata["session_id"], metadata } };
}

/** One turn of the chat session (caller, `contextId`), its steps told to `onStep` as they finish. */
export async function runChatTurn(
  caller: SelfCaller,
  turn: { readonly contextId: string; readonly messageId: string; readonly text: string },
  options: SelfCallOptions,
  onStep: (step: FinishedStep) => void,
): Promise<RouteAnswer> {
  const body = { id: turn.contextId, messages: [{ id: turn.messageId, role: "user", parts: [{ type: "text", text: turn.text }] }], trigger: "submit-message" };
  const state: Folded = { text: "", tools: new Map(), steps: [] };
  // The session is the conversation: no X-Manifold-Conversation-ID (the chat route sets its own).
  const { conversationId: _conversationId, ...call } = options;
  const answer = await caller.stream("/chat/stream", body, call, (chunk) => {
    if (isRecord(chunk)) fold(state, chunk, onStep);
  });
  return answer.status >= 400 ? answer : answerOf(state);
}
