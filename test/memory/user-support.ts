/**
 * A served agent with chat and user memory for the user-memory suites: the real `openai` client
 * against a scripted server that answers `user_memory_extraction` requests (told apart by their
 * response_format name) with the facts a test queues, plans one echo step, writes the summaries a test
 * queues (else "A traveller.") and answers. `turn()` posts one chat turn and waits for its extraction with the
 * memory's whenIdle(), never a sleep.
 */
import { randomUUID } from "node:crypto";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createLlmProvider, type LlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createFactStore, createMemoryFactStore, type FactStore } from "../../runtime/memory/index.js";
import type { UserMemory } from "../../runtime/memory/user/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { postSse } from "../support/sse-client.js";
import { agentSpec, planStep, startTools, type Tools } from "../orchestration/support.js";

export interface MemoryAgent {
  readonly tools: Tools;
  readonly llm: ScriptedLlm;
  readonly running: RunningComponent;
  readonly memory: UserMemory;
  readonly facts: FactStore;
  /** Facts the next extraction requests answer with, one per request: an array, or a function of the request's prompt. */
  readonly extractions: (unknown[] | ((prompt: string) => unknown[]))[];
  /** What the next summary requests answer; "A traveller." when none is queued. */
  readonly summaries: string[];
  close(): Promise<void>;
}

const answer = (value: unknown): ScriptedEntry => ({ text: JSON.stringify(value) });
export const schemaName = (body: any): string | undefined => body.response_format?.json_schema?.name;
export const promptOf = (body: any): string => body.messages.map((m: { content: string }) => m.content).join("\n");

export interface MemoryAgentOptions {
  /** Awaited before each extraction call reaches the model: a test holds the extraction there (a promise it settles). */
  readonly beforeExtraction?: () => Promise<void>;
  /** Served without any of memory's parts (no store, no callback): the memories load on first use. `memory` is then unset. */
  readonly lazy?: boolean;
}

export async function startMemoryAgent({ beforeExtraction, lazy = false }: MemoryAgentOptions = {}): Promise<MemoryAgent> {
  const extractions: MemoryAgent["extractions"] = [];
  const summaries: string[] = [];
  const tools = await startTools();
  const llm = await startScriptedLlm((body) => {
    const name = schemaName(body);
    if (name === "user_memory_extraction") {
      const next = extractions.shift() ?? [];
      return answer({ facts: typeof next === "function" ? next(promptOf(body)) : next });
    }
    if (name === "routing_plan") return answer({ steps: [planStep("s1", "worker", "echo", { note: "ok" })] });
    if (String(body.messages[0]?.content).startsWith("Write a short profile")) return { text: summaries.shift() ?? "A traveller." };
    return { text: "Here is your answer." };
  });
  const real = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const provider: LlmProvider = {
    model: real.model,
    baseUrl: real.baseUrl,
    toJSON: () => real.toJSON(),
    complete: async (request) => {
      if (request.phase === "user_memory_extraction") await beforeExtraction?.();
      return real.complete(request);
    },
  };
  const base = agentSpec("memory-agent", { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, chat: true as const, memory: { user: true, episodic: false, domain: "memory-agent" } } };
  // Lazily, the agent makes its own fact store: the process's shared memory store (the one createFactStore gives here too).
  const facts = lazy ? createFactStore({ env: process.env }) : createMemoryFactStore();
  let memory: UserMemory | undefined;
  const running = await serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    llm: provider,
    orchestration: { baseUrls: tools.baseUrls, executionStore: false },
    ...(lazy ? {} : { memory: { facts, onUserMemory: (built: UserMemory) => (memory = built) } }),
  } as never);
  return {
    tools,
    llm,
    running,
    memory: memory!,
    facts,
    extractions,
    summaries,
    close: async () => {
      await running.close();
      await tools.close();
      await llm.close();
    },
  };
}

/** One chat turn as `user` (none: anonymous), in `session` or a new one, once its extraction has settled. */
export async function turn(agent: MemoryAgent, message: string, user?: string, session?: string): Promise<{ session_id: string; request_id: string }> {
  const answered = await turnAnswered(agent, message, user, session);
  await agent.memory.whenIdle();
  return answered;
}

/** One chat turn, once its answer is in: its extraction is queued (or running), not waited for. */
export async function turnAnswered(agent: MemoryAgent, message: string, user?: string, session?: string): Promise<{ session_id: string; request_id: string }> {
  const requestId = randomUUID();
  const headers: Record<string, string> = { "X-Manifold-Request-ID": requestId, ...(user === undefined ? {} : { "X-User-ID": user }) };
  const result = await postSse(`${agent.running.url}/chat/stream`, { message, ...(session === undefined ? {} : { session_id: session }) }, { headers });
  const done = result.events.find((e) => e.event === "done");
  assert.ok(done !== undefined, JSON.stringify(result.events));
  return { session_id: done.data.session_id, request_id: requestId };
}

/** The planning prompts the scripted server saw since `from`. */
export const plans = ({ llm }: MemoryAgent, from = 0): string[] =>
  llm.requests
    .slice(from)
    .filter((r) => schemaName(r.body) === "routing_plan")
    .map((r) => promptOf(r.body));

/** A `/memory/facts` call as `user` (none: anonymous). */
export async function factsCall(agent: MemoryAgent, user?: string, method = "GET", path = "/memory/facts"): Promise<{ status: number; body: any }> {
  const response = await fetch(`${agent.running.url}${path}`, { method, headers: user === undefined ? {} : { "X-User-ID": user } });
  return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
}
