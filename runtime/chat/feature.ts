/**
 * Chat as an agent feature: `chat: true` serves the session endpoints, `/chat/stream` (SSE) and
 * `/query`, answered by the agent's typed `chat` handler or, without one, by natural mode.
 */
import type { Identity } from "../context/index.js";
import { durationFromEnv } from "../spec/index.js";
import { createLazyExtension, type AgentFeature, type LazyRoute } from "../feature/index.js";
import type { ResumedListener } from "../orchestration/served.js";
import type { TraceContext } from "../telemetry/index.js";
import { chatSchema, normaliseChat } from "./manifest.js";
import { addChatPaths } from "./openapi.js";
import { checkChatOptions, DEFAULT_HEARTBEAT_MS, type ChatHandler, type ChatWorkflowRunner } from "./wire.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

/** A chat turn whose answer is stored in its session: what another feature (memory) may learn from. */
export interface ChatTurnCompleted {
  /** Who asked, as the inbound check proved it (anonymous when nothing did). */
  readonly identity: Identity;
  readonly session_id: string;
  /** The stored user message's id. */
  readonly user_message_id: string;
  readonly request_id: string;
  /** The user's message and the stored answer, as they are in the session. */
  readonly message: string;
  readonly answer: string;
  /** The turn's trace, for work it causes later to link to. */
  readonly trace?: TraceContext;
}

declare module "../feature/index.js" {
  interface FeatureEventMap {
    /** Emitted right after a turn's answer is stored (streamed or `/query` in a session). */
    readonly "chat.turn_completed": ChatTurnCompleted;
  }
}

/** Every route the chat extension adds, in its order: served from start, the extension loads on the first request. */
export const CHAT_ROUTES: readonly LazyRoute[] = [
  ["POST", "/chat/session"],
  ["GET", "/chat/session/:id"],
  ["GET", "/chat/session/:id/history"],
  ["GET", "/chat/sessions"],
  ["PUT", "/chat/session/:id/title"],
  ["POST", "/chat/session/delete"],
  ["POST", "/chat/stream"],
  ["POST", "/query"],
];

/** The chat feature's part of an agent's `serve()` options. */
export interface ChatServeOptions {
  /** Answers each message. @defaultValue natural mode with the conversation's earlier turns (needs a language model) */
  readonly chat?: ChatHandler;
}

export const chatFeature: AgentFeature<ChatServeOptions> = {
  key: "chat",
  schema: chatSchema,
  routePrefixes: ["/chat", "/query"],
  normalise: normaliseChat,
  // `POST /query`'s operationId: a capability named `query` would take it too.
  operations: (raw) => (raw.chat === true ? { query: "POST /query" } : {}),
  optionKeys: ["chat"],
  enabled: (agent) => agent.chat === true,
  openapi: addChatPaths,
  async build({ chat }, { orchestration, log, env, events }) {
    // Chat serves requests only: its turn machinery and session store load with its first request. A
    // run resumed before then (an approval) loads it too, to keep the answer in its conversation.
    // What createChatExtension checks, checked here so that a bad value still fails start-up.
    const heartbeatMs = durationFromEnv(env, "MANIFOLD_CHAT_HEARTBEAT_INTERVAL", DEFAULT_HEARTBEAT_MS);
    checkChatOptions(chat, heartbeatMs);
    let resumed: ResumedListener | undefined;
    const lazy = createLazyExtension({
      name: "chat",
      routes: CHAT_ROUTES,
      load: async () => {
        const { createChatExtension } = await import("./extension.js");
        return createChatExtension({
          handler: chat,
          orchestrator: orchestration.orchestrator,
          runWorkflow,
          log: log("chat"),
          env,
          heartbeatMs,
          onResumed: (listener) => void (resumed = listener),
          events,
        });
      },
    });
    // What the listener answers (the session the answer joined) is the resume's answer too.
    orchestration.onResumed(async (run) => {
      await lazy.loaded();
      return resumed?.(run);
    });
    const runWorkflow: ChatWorkflowRunner = (name, input, { signal, onStep }) => {
      const parameters = new Map<string, unknown>();
      return orchestration.runWorkflow(name, input, {
        signal,
        onRound: (round) => parameters.set(round.step_id, round.parameters),
        onStep: ({ step_id, component, capability, status, output, error }) => {
          const called = parameters.get(step_id);
          parameters.delete(step_id);
          onStep({
            step_id,
            tool: component,
            capability,
            status,
            ...(called === undefined ? {} : { input: called }),
            ...(status === "completed" ? { output } : {}),
            ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
          });
        },
      });
    };
    return { extension: lazy.extension };
  },
};
