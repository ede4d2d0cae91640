/**
 * The chat feature's running part: the session endpoints, `/chat/stream` and `/query` on the agent's
 * route table, one session store (Redis when configured, else this process's memory), and every run
 * in flight aborted when the agent stops.
 */
import type { ComponentExtension } from "../component/index.js";
import type { FeatureEvents } from "../feature/index.js";
import { ownerKey, type ForwardOptions } from "../context/index.js";
import type { Orchestrator, ResumedListener } from "../orchestration/served.js";
import { durationFromEnv } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";
import { newId } from "./ids.js";
import { ownerOf } from "./requests.js";
import { addSessionRoutes } from "./session-routes.js";
import { createSessionStore, isSessionId, type ChatSessionStore } from "./store/index.js";
import { addStreamRoutes } from "./stream-route.js";
import { checkChatOptions, DEFAULT_HEARTBEAT_MS, type ChatHandler, type ChatWorkflowRunner } from "./wire.js";

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
  /** Where a stored turn is announced (`chat.turn_completed`). @defaultValue nowhere */
  readonly events?: FeatureEvents;
}

/** What a resumed answer says, as the assistant's message: the synthesised text, else the JSON answer. */
function resumedContent(answer: unknown): string {
  const response = (answer as { response?: unknown } | null)?.response;
  return typeof response === "string" ? response : JSON.stringify(answer);
}

type Resumed = Parameters<ResumedListener>[0];

/**
 * Where a resumed answer is kept, by the spec's resume rule: the checkpoint's conversation id, else its
 * session id, when it is a session of the requester's; a new session of the requester's when it named
 * neither (a run not started from chat). A named session that is unknown, expired or someone else's
 * gets nothing: an expired one is not recreated, and a client cannot write into another's history by
 * naming its id as the conversation (X-Manifold-Conversation-ID).
 */
async function storeResumed(sessions: ChatSessionStore, { userContext, requestedBy, answer }: Resumed): Promise<{ session_id: string } | undefined> {
  // The requester owns it; a checkpoint from before requesters were recorded resumes as the caller (routes.ts: anonymous).
  const owner = requestedBy === undefined ? ownerOf(false) : ownerKey(requestedBy);
  const message = {
    id: newId(),
    role: "assistant" as const,
    content: resumedContent(answer),
    timestamp: new Date().toISOString(),
    metadata: { resumed: true },
  };
  const named = [userContext.conversation_id, userContext.session_id].filter(isSessionId);
  if (named.length === 0) {
    const created = await sessions.create({ id: newId(), userId: owner, metadata: {}, now: Date.now() });
    return (await sessions.append(created.id, message)) ? { session_id: created.id } : undefined;
  }
  for (const id of named) {
    if ((await sessions.get(id))?.user_id !== owner) continue;
    if (await sessions.append(id, message)) return { session_id: id };
  }
  return undefined;
}

export function createChatExtension(options: ChatExtensionOptions = {}): ComponentExtension {
  const { handler, orchestrator, log, forward, runWorkflow, events, env = process.env } = options;
  const heartbeatMs = options.heartbeatMs ?? durationFromEnv(env, "MANIFOLD_CHAT_HEARTBEAT_INTERVAL", DEFAULT_HEARTBEAT_MS);
  checkChatOptions(handler, heartbeatMs);
  const sessions = options.sessions ?? createSessionStore({ env });
  const running = new Set<{ abort(): void }>();
  let ready = false;
  options.onResumed?.((resumed) => storeResumed(sessions, resumed));
  return {
    name: "chat",
    routes(add, { bodyLimit }) {
      addSessionRoutes(add, sessions, { bodyLimit });
      addStreamRoutes(add, { sessions, handler, orchestrator, runWorkflow, log, bodyLimit, heartbeatMs, forward, running, events, ready: () => ready });
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
