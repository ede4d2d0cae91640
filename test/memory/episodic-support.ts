/**
 * A travel agent with natural mode and episodic memory for the episodic suites: the real `worker`
 * tool, the real `openai` client against the scripted server, and the memory wired the way the
 * memory feature wires it (`useContext(source)`, `onSettled(onSettled)`). The scripted model answers
 * by the kind of request: plans by their json_schema name, the memory's text calls by their system
 * prompt (summary, compaction, incremental compaction, reflection), anything else as the synthesis.
 */
import type { LlmDebugStore, LlmProvider } from "../../runtime/llm/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createEpisodicMemory, newRecordId, type Episode, type EpisodeStore, type EpisodicMemory } from "../../runtime/memory/episodic/index.js";
import type { Store } from "../../runtime/store/index.js";
import type { Clock } from "../../runtime/util/index.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm, type ScriptedRequest } from "../support/scripted-llm.js";
import { agentSpec, memoryLog, planStep, planText, serveAgent, startTools, type Tools } from "../orchestration/support.js";

export type Kind = "routing_plan" | "summary" | "compaction" | "incremental" | "reflection" | "text";

/** What a scripted request is, from its json_schema name or its system prompt. */
export function kindOf(body: any): Kind {
  const schema = body.response_format?.json_schema?.name;
  if (schema === "routing_plan") return "routing_plan";
  const system = String(body.messages?.[0]?.content ?? "");
  if (system.startsWith("You summarise one finished run")) return "summary";
  if (system.includes("Update the current digest")) return "incremental";
  if (system.startsWith("You keep the activity digest")) return "compaction";
  if (system.startsWith("You reflect on an AI agent's earlier runs")) return "reflection";
  return "text";
}

/** The user message of a scripted request. */
export const userOf = (request: ScriptedRequest): string => String(request.body.messages?.at(-1)?.content ?? "");
export const systemOf = (request: ScriptedRequest): string => String(request.body.messages?.[0]?.content ?? "");

/** The run markers (`R1`, `R2`, …) a text names, in order. */
export const markers = (text: string): string[] => [...text.matchAll(/\bR(\d+)\b/g)].map((m) => `R${m[1]}`);

/** A completed run of `domain` at `ms` about `entities`, already summarised: `summary` is its one event and its summary. */
export function episode(ms: number, entities: string[], summary: string, domain = "travel-agent"): Episode {
  return {
    id: newRecordId(ms),
    domain,
    status: "completed",
    entities,
    events: [{ kind: "request", text: summary }],
    summary,
    summary_outcome: "complete",
    created_at: new Date(ms).toISOString(),
  };
}

/** The default answers: a plan echoing `destination` and the request's marker, summaries naming their run's marker. */
export const defaultAnswers: Record<Kind, (body: any) => ScriptedEntry> = {
  routing_plan: (body) => {
    const asked = String(body.messages?.at(-1)?.content ?? "");
    const marker = markers(asked).at(-1) ?? "R0";
    const destination = /\b(Lisbon|Kyoto|Oslo)\b/.exec(asked)?.[1] ?? "Lisbon";
    return { text: planText([planStep("s1", "worker", "echo", { destination, note: marker })]) };
  },
  summary: (body) => {
    const events = String(body.messages?.at(-1)?.content ?? "");
    return { text: `summary-${markers(events)[0] ?? "R?"}: a trip to ${/\b(Lisbon|Kyoto|Oslo)\b/.exec(events)?.[1] ?? "somewhere"} was planned.` };
  },
  compaction: (body) => ({ text: `DIGEST-FULL[${markers(String(body.messages?.at(-1)?.content ?? "")).join(",")}]` }),
  incremental: (body) => ({ text: `DIGEST-INC[${markers(String(body.messages?.at(-1)?.content ?? "")).join(",")}]` }),
  reflection: (body) => ({ text: `Travellers asking about ${/Entity: (.*)/.exec(String(body.messages?.at(-1)?.content ?? ""))?.[1]} want light luggage.` }),
  text: () => ({ text: "Done." }),
};

export interface EpisodicAgent {
  readonly tools: Tools;
  readonly llm: ScriptedLlm;
  readonly provider: LlmProvider;
  readonly memory: EpisodicMemory;
  readonly agent: Awaited<ReturnType<typeof serveAgent>>;
  /** What the model answers, by kind; tests replace entries. */
  answers: Record<Kind, (body: any) => ScriptedEntry>;
  /** The scripted requests of one kind, in arrival order. */
  requests(kind: Kind): ScriptedRequest[];
  /** POST /orchestrate/natural; asserts nothing. */
  ask(request: string, requestId: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startEpisodicAgent({
  env = {},
  store,
  clock,
  name = "travel-agent",
  llmDebug,
}: {
  env?: Record<string, string>;
  store?: EpisodeStore | Store;
  clock?: Clock;
  name?: string;
  llmDebug?: LlmDebugStore;
} = {}): Promise<EpisodicAgent> {
  const tools = await startTools();
  const answers = { ...defaultAnswers };
  const llm = await startScriptedLlm((body) => answers[kindOf(body)](body));
  const provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "sk-episodic", model: "test-model", maxRetries: 0 }, env: {} })!,
  );
  const spec = agentSpec(name, { natural: true });
  const agent = await serveAgent(spec, {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    llm: provider,
    componentName: name,
    ...(llmDebug === undefined ? {} : { llmDebug }),
  });
  const memory = createEpisodicMemory({
    services: { spec, agent: spec.agent!, env, llm: provider, log: () => memoryLog().log },
    ...(store === undefined ? {} : { store }),
    ...(clock === undefined ? {} : { clock }),
  });
  agent.extension.orchestrator.useContext(memory.source);
  agent.extension.orchestrator.onSettled(memory.onSettled);
  const network: EpisodicAgent = {
    tools,
    llm,
    provider,
    memory,
    agent,
    answers,
    requests: (kind) => llm.requests.filter((r) => kindOf(r.body) === kind),
    ask: (request, requestId) => agent.post("/orchestrate/natural", { request }, { "x-manifold-request-id": requestId }),
    close: async () => {
      await memory.stop();
      await agent.running.close();
      await tools.close();
      await llm.close();
    },
  };
  return network;
}
