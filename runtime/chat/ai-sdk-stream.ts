/**
 * A chat turn written in the AI SDK's UI message stream protocol (what `useChat` reads): `start` with
 * the message id and the session, text as `text-start`/`text-delta`/`text-end`, each plan step as a
 * dynamic tool part (`tool-input-available`, then `tool-output-available` or `tool-output-error`), a
 * HITL checkpoint as a tool part awaiting approval (`tool-approval-request`, approval id = checkpoint
 * id) plus a `data-checkpoint` part, failures as `error`, then `finish` and the `[DONE]` marker.
 * Only the `ai` package's types are used: nothing of it loads at run time.
 */
import type { UIMessageChunk } from "ai";
import type { ChatMessage } from "./store/index.js";
import type { ChatEvent } from "./wire.js";

/** What a turn tells its client, whichever protocol it speaks (stream-route.ts has the spec's). */
export interface TurnWriter {
  /** First: the session the turn runs in; `created` when it is new. */
  session(sessionId: string, created: boolean): void;
  event(event: ChatEvent): void;
  /** The run stopped at a checkpoint: `body` is the 202 `{status: "interrupted", checkpoint_id, checkpoint}`. */
  paused(body: Record<string, unknown>, sessionId: string): void;
  done(sessionId: string, reply: ChatMessage): void;
  error(failure: { readonly code: string; readonly message: string }, requestId: string): void;
}

type StepEvent = Extract<ChatEvent, { type: "step" }>;

/** A step's tool name: `<component>.<capability>` (unambiguous across the network), the capability alone when the component is unknown. */
export function toolNameOf(component: string, capability: string): string {
  return component === "" ? capability : `${component}.${capability}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Where a checkpoint stopped: its step's tool part, or the whole plan (a plan checkpoint) as one. */
function checkpointTool(checkpointId: string, checkpoint: Record<string, unknown>): { toolCallId: string; toolName: string; input: unknown } {
  const stepId = isRecord(checkpoint["current_step"]) ? checkpoint["current_step"]["step_id"] : undefined;
  const plan = isRecord(checkpoint["plan"]) ? checkpoint["plan"] : {};
  if (typeof stepId !== "string") return { toolCallId: checkpointId, toolName: "approve_plan", input: plan };
  const steps = Array.isArray(plan["steps"]) ? (plan["steps"] as Record<string, unknown>[]) : [];
  const step = steps.find((s) => isRecord(s) && s["step_id"] === stepId);
  const capability = isRecord(step?.["metadata"]) ? String(step["metadata"]["capability"] ?? "") : "";
  return { toolCallId: stepId, toolName: toolNameOf(String(step?.["agent_name"] ?? ""), capability), input: checkpoint["resolved_parameters"] ?? {} };
}

/** Writes the turn as UI message chunks through `write` (one SSE frame each); `messageId` is the stored assistant message's id. */
export function createAiSdkWriter(write: (frame: string) => void, { messageId }: { readonly messageId: string }): TurnWriter {
  let openText: string | undefined;
  let texts = 0;
  const send = (chunk: UIMessageChunk): void => write(`data: ${JSON.stringify(chunk)}\n\n`);
  const closeText = (): void => {
    if (openText === undefined) return;
    send({ type: "text-end", id: openText });
    openText = undefined;
  };
  const say = (delta: string): void => {
    if (openText === undefined) {
      openText = `text-${++texts}`;
      send({ type: "text-start", id: openText });
    }
    send({ type: "text-delta", id: openText, delta });
  };
  const finish = (chunk: UIMessageChunk): void => {
    closeText();
    send(chunk);
    write("data: [DONE]\n\n");
  };
  const step = (event: StepEvent): void => {
    closeText();
    const toolCallId = event.step_id;
    send({ type: "tool-input-available", toolCallId, toolName: toolNameOf(event.tool, event.capability), input: event.input ?? {}, dynamic: true });
    if (event.status === "completed") send({ type: "tool-output-available", toolCallId, output: event.output ?? null, dynamic: true });
    else {
      const why = event.error === undefined ? `step ${event.status}` : `${event.error.code}: ${event.error.message}`;
      send({ type: "tool-output-error", toolCallId, errorText: why, dynamic: true });
    }
  };
  return {
    session(sessionId, created) {
      send({ type: "start", messageId, messageMetadata: { session_id: sessionId, created } });
    },
    event(event) {
      if (event.type === "chunk") {
        if (event.text !== "") say(event.text);
      } else if (event.type === "step") step(event);
      else if (event.type === "clarification") {
        // The question is the answer's text (natural mode streams no chunk for it); what it lacks rides along.
        say(event.question);
        closeText();
        send({ type: "data-clarification", data: { question: event.question, missing_fields: event.missing_fields } });
      } else {
        // Progress a UI may show while waiting; not kept in the message.
        const { type, ...data } = event;
        send({ type: `data-${type}`, data, transient: true });
      }
    },
    paused(body, sessionId) {
      closeText();
      const checkpointId = String(body["checkpoint_id"]);
      const checkpoint = isRecord(body["checkpoint"]) ? body["checkpoint"] : {};
      const decision = isRecord(checkpoint["decision"]) ? checkpoint["decision"] : {};
      const reason = typeof decision["reason"] === "string" ? decision["reason"] : "human approval required";
      const tool = checkpointTool(checkpointId, checkpoint);
      send({ type: "tool-input-available", toolCallId: tool.toolCallId, toolName: tool.toolName, input: tool.input, dynamic: true });
      send({ type: "tool-approval-request", approvalId: checkpointId, toolCallId: tool.toolCallId, reason });
      // For a UI without approval parts: what to answer on POST /hitl/command, and until when.
      const data = { checkpoint_id: checkpointId, type: checkpoint["type"], reason, expires_at: checkpoint["expires_at"], session_id: sessionId };
      send({ type: "data-checkpoint", id: checkpointId, data });
      finish({ type: "finish", finishReason: "tool-calls", messageMetadata: { session_id: sessionId, status: "interrupted", checkpoint_id: checkpointId } });
    },
    done(sessionId, reply) {
      finish({ type: "finish", finishReason: "stop", messageMetadata: { ...reply.metadata, session_id: sessionId } });
    },
    error(failure, requestId) {
      closeText();
      send({ type: "error", errorText: `${failure.code}: ${failure.message} (request ${requestId})` });
      finish({ type: "finish", finishReason: "error" });
    },
  };
}
