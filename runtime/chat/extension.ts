/**
 * The chat feature's running part: the session endpoints, `/chat/stream` and `/query` on the agent's
 * route table, one session store (Redis when configured, else this process's memory), and every run
 * in flight aborted when the agent stops.
 */
import type { ComponentExtension } from "../component/index.js";
import type { ForwardOptions } from "../context/index.js";
import type { Orchestrator } from "../orchestration/index.js";
import { durationFromEnv } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";
import { addSessionRoutes } from "./session-routes.js";
import { createSessionStore, type ChatSessionStore } from "./store/index.js";
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
}

export function createChatExtension(options: ChatExtensionOptions = {}): ComponentExtension {
  const { handler, orchestrator, log, forward, runWorkflow, env = process.env } = options;
  const heartbeatMs = options.heartbeatMs ?? durationFromEnv(env, "MANIFOLD_CHAT_HEARTBEAT_INTERVAL", DEFAULT_HEARTBEAT_MS);
  if (handler !== undefined && typeof handler !== "function") throw new TypeError("chat must be a function");
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 10) throw new RangeError("heartbeatMs must be a whole number of ms, at least 10");
  const sessions = options.sessions ?? createSessionStore({ env });
  const running = new Set<AbortController>();
  let ready = false;
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
