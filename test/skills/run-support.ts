/**
 * A served agent with natural mode over the real `worker` tool, the real `openai` client against the
 * scripted server, a real skill registry (the memory adapter) and the skills context source registered
 * as the skills feature registers it (`orchestrator.useContext`). The registry is a new memory adapter
 * (the process's shared one would carry skills from test to test), or the Redis adapter on the store
 * a test gives. The scripted model answers by the
 * request's json_schema name (`skill_selection`, `routing_plan`; synthesis has none), so a test
 * decides a plan from what the planning prompt holds.
 */
import { createLlmProvider, createMemoryLlmDebugStore, resolveLlmConfig, type LlmDebugStore } from "../../runtime/llm/index.js";
import { createMemoryExecutionStore, type ExecutionRecord, type ExecutionStore } from "../../runtime/orchestration/index.js";
import { createSkillsContextSource } from "../../runtime/skills/context.js";
import type { SkillsContextSettings } from "../../runtime/skills/context-settings.js";
import { createMemorySkillStore, createSkillStore, type SkillEvidence, type SkillStore, type SkillVersionInput } from "../../runtime/skills/store/index.js";
import type { Store } from "../../runtime/store/index.js";
import type { Clock } from "../../runtime/util/index.js";
import { type Answerer, schemaKind, scriptByKind, startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, serveAgent, startTools, type Tools } from "../orchestration/support.js";

/** The json_schema name of a scripted request (`skill_selection`, `routing_plan`), or "text". */
export const kindOf = schemaKind;
/** The system prompt of a scripted request. */
export const systemOf = (body: any): string => String(body.messages?.[0]?.content ?? "");

export interface SkillsNetwork {
  readonly tools: Tools;
  readonly llm: ScriptedLlm;
  readonly debug: LlmDebugStore;
  readonly executions: ExecutionStore;
  /** The registry as published to; the source reads it through `reads` (which counts resource reads). */
  readonly store: SkillStore;
  /** Every `resource()` call the source made: `<namespace>/<name>@<version>:<path>`. */
  readonly resourceReads: string[];
  readonly agent: Awaited<ReturnType<typeof serveAgent>>;
  /** What the model answers to each kind of request (by json_schema name; "text" for synthesis). */
  answers: Record<string, Answerer>;
  /** Requests the scripted server received, of one kind. */
  received(kind: string): any[];
  /** POST /orchestrate/natural with a request id. */
  ask(request: string, requestId: string): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startSkillsNetwork({
  namespaces = ["travel"],
  settings = {},
  clock,
  backing,
}: {
  namespaces?: string[];
  /** A Redis store under the registry, closed with the network. @defaultValue none: a new memory registry */
  backing?: Store;
  settings?: Partial<SkillsContextSettings>;
  clock?: Clock;
} = {}): Promise<SkillsNetwork> {
  const tools = await startTools();
  const network = { answers: {} as Record<string, Answerer> };
  const llm = await startScriptedLlm(scriptByKind(() => network.answers));
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const debug = createMemoryLlmDebugStore();
  const executions = createMemoryExecutionStore();
  const store = backing === undefined ? createMemorySkillStore() : createSkillStore({ store: backing, env: {} });
  const resourceReads: string[] = [];
  // The same registry, with each resource read noted: what "read on demand" is asserted on.
  const reads: SkillStore = {
    ...store,
    resource: (namespace, name, version, path) => {
      resourceReads.push(`${namespace}/${name}@${version}:${path}`);
      return store.resource(namespace, name, version, path);
    },
  };
  const agent = await serveAgent(agentSpec("skilled", { natural: true }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    llm: provider,
    llmDebug: debug,
    executionStore: executions,
    componentName: "skilled",
    env: {},
    adaptive: { maxSemanticRetries: 0, maxPhases: 1 },
  });
  agent.extension.orchestrator.useContext(
    createSkillsContextSource({ store: reads, agent: { skills: { namespaces, bundled: [] } }, env: {}, settings, ...(clock && { clock }) }),
  );
  return Object.assign(network, {
    tools,
    llm,
    debug,
    executions,
    store,
    resourceReads,
    agent,
    received: (kind: string) => llm.requests.filter((r) => kindOf(r.body) === kind).map((r) => r.body),
    ask: (request: string, requestId: string) => agent.post("/orchestrate/natural", { request }, { "x-manifold-request-id": requestId }),
    close: async () => {
      await agent.running.close();
      await tools.close();
      await llm.close();
      await debug.close();
      await store.close();
      await backing?.close();
    },
  });
}

/** A skill version to publish in namespace `travel` unless told otherwise. */
export function skill(name: string, instructions: string, more: Partial<SkillVersionInput> = {}): SkillVersionInput {
  return { namespace: "travel", name, version: "1.0.0", description: `${name.replaceAll("-", " ")}`, instructions, resources: [], ...more };
}

/** The skill evidence of an execution record (`context.skills`); empty when no skill shaped the run. */
export const skillsOf = (record: ExecutionRecord | undefined): readonly SkillEvidence[] => (record?.context?.["skills"] ?? []) as SkillEvidence[];
