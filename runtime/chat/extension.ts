/**
 * The chat feature's running part: the session endpoints, `/chat/stream` and `/query` on the agent's
 * route table, one session store (Redis when configured, else this process's memory), and every run
 * in flight aborted when the agent stops.
 */
import type { ComponentExtension } from "../component/index.js";
import type { ForwardOptions } from "../context/index.js";
import { randomUUID } from "node:crypto";
import type { Orchestrator, ResumedListener } from "../orchestration/index.js";
import { durationFromEnv } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";
import { addSessionRoutes } from "./session-routes.js";
import { createSessionStore, isSessionId, type ChatSessionStore } from "./store/index.js";
import { addStreamRoutes } from "./stream-route.js";
import { DEFAULT_HEARTBEAT_MS, type ChatHandler, type ChatWorkflowRunner } from "./wire.js";

export interface ChatExtensionOptions {
  /** @defaultValue `createSessionStore({ env })` (closed with the agent) */
  readonly sessions?: ChatSessionStore;
  /** The agent's own answers; without one a message runs natural mode. */
  readonly handler?: ChatHandler | undefined;
  readonly orchestrator?: Orchestrator | undefined;
  readonly log?: Logger | undefined;
  /** @defaultValue `MANIFOLD_CHAT_HEARTBEAT_INTERVAL`, else 15 s */
  readonly heartbeatMs?: number;
  readonly forward?: ForwardOptions | undefined;
  /** What a handler's `ctx.runWorkflow` runs. @defaultValue none: it rejects with NOT_FOUND */
  readonly runWorkflow?: ChatWorkflowRunner | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where resumed runs are announced (the orchestration extension's `onResumed`): their answers join their conversation. */
  readonly onResumed?: (listener: ResumedListener) => void;
}

/** What a resumed answer says, as the assistant's message: the synthesised text, else the JSON answer. */
function resumedContent(answer: unknown): string {
  const response = (answer as { response?: unknown } | null)?.response;
  return typeof response === "string" ? response : JSON.stringify(answer);
}

export function createChatExtension(options: ChatExtensionOptions = {}): ComponentExtension {
  const { handler, orchestrator, log, forward, runWorkflow, env = process.env } = options;
  const heartbeatMs = options.heartbeatMs ?? durationFromEnv(env, "MANIFOLD_CHAT_HEARTBEAT_INTERVAL", DEFAULT_HEARTBEAT_MS);
  if (handler !== undefined && typeof handler !== "function") throw new TypeError("chat must be a function");
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 10) throw new RangeError("heartbeatMs must be a whole number of ms, at least 10");
  const sessions = options.sessions ?? createSessionStore({ env });
  const running = new Set<AbortController>();
  let ready = false;
  // The spec's resume rule: the conversation id first, then the session id; an expired session is
  // not recreated. A run with neither (not from chat) has no conversation to join.
  options.onResumed?.(async ({ userContext, answer }) => {
    for (const id of [userContext.conversation_id, userContext.session_id]) {
      if (id === undefined || !isSessionId(id)) continue;
      const appended = await sessions.append(id, {
        id: randomUUID(),
        role: "assistant",
        content: resumedContent(answer),
        timestamp: new Date().toISOString(),
        metadata: { resumed: true },
      });
      if (appended) return;
    }
  });
  return {
    name: "chat",
    routes(add, { bodyLimit }) {
      addSessionRoutes(add, sessions, { bodyLimit });
      addStreamRoutes(add, { sessions, handler, orchestrator, runWorkflow, log, bodyLimit, heartbeatMs, forward, running, ready: () => ready });
    },
    start() {
      ready = true;
    },
    async stop() {
      ready = false;
      for (const controller of running) controller.abort();
      if (options.sessions === undefined) await sessions.close();
    },
  };
}
