/**
 * A 1,000-capability network for the tiered-selection suites: 100 components × 10 capabilities built
 * as specs in code (only the real `worker` tool of startTools is served; nothing else is ever
 * called, so the others need no base URL), an agent with natural mode over all of them, and a
 * scripted model answering by the request's json_schema name (`capability_selection`,
 * `routing_plan`; synthesis has none).
 */
import { createLlmProvider, createMemoryLlmDebugStore, resolveLlmConfig, type LlmDebugStore } from "../../runtime/llm/index.js";
import type { AdaptiveSettings } from "../../runtime/orchestration/index.js";
import type { CapabilitySpec, ComponentSpec, FieldSpec } from "../../runtime/spec/types.js";
import { type Answerer, schemaKind, scriptByKind, startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, serveAgent, startTools, type Tools } from "./support.js";

export const DOMAINS = ["weather", "geo", "finance", "calendar", "mail", "news", "music", "shipping", "inventory", "hotels"];
const VERBS = ["lookup", "search", "convert", "list", "create", "update", "delete", "summarize", "validate", "export"];

const field = (name: string, type: FieldSpec["type"], description: string): FieldSpec => ({ name, type, description });

/** `<domain>-svc-<n>`, ten capabilities each (`<verb>_<domain>_records`), with input and output schemas. */
export function manyComponents(count = 100): ComponentSpec[] {
  return Array.from({ length: count }, (_, n) => {
    const domain = DOMAINS[n % DOMAINS.length]!;
    const capabilities: CapabilitySpec[] = VERBS.map((verb) => {
      const name = `${verb}_${domain}_records`;
      return {
        name,
        key: name,
        description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${domain} records of region ${n} by a free-text query. Paginated.`,
        type: "tool",
        internal: false,
        endpoint: `/api/capabilities/${name}`,
        input: {
          required: [field("query", "string", `what to ${verb}`)],
          optional: [field("limit", "integer", "most records returned"), field("region", "string", "a region code such as eu-west")],
        },
        output: {
          required: [{ ...field("records", "array", `the ${domain} records`), items: { type: "object" } }],
          optional: [field("next_page", "string", "cursor of the next page")],
        },
      };
    });
    return { kind: "tool", name: `${domain}-svc-${n}`, description: `${domain} service number ${n}`, version: "1.0.0", capabilities };
  });
}

export interface SelectionNetwork {
  readonly tools: Tools;
  readonly llm: ScriptedLlm;
  readonly debug: LlmDebugStore;
  readonly specs: readonly ComponentSpec[];
  readonly agent: Awaited<ReturnType<typeof serveAgent>>;
  /** What the model answers to each kind of request (by json_schema name; "text" for synthesis). */
  answers: Record<string, Answerer>;
  close(): Promise<void>;
}

/** The json_schema name of a scripted request (`capability_selection`, `routing_plan`), or "text". */
export const kindOf = schemaKind;

export const json = (value: unknown): ScriptedEntry => ({ text: JSON.stringify(value) });
export const selectionOf = (...keys: string[]): ScriptedEntry =>
  json({ capabilities: keys.map((key) => ({ agent_name: key.slice(0, key.lastIndexOf(".")), capability: key.slice(key.lastIndexOf(".") + 1) })) });

export async function startSelectionNetwork({
  components = 100,
  adaptive = {},
}: {
  components?: number;
  adaptive?: Partial<AdaptiveSettings>;
} = {}): Promise<SelectionNetwork> {
  const tools = await startTools();
  const network = { answers: {} as Record<string, Answerer> };
  const llm = await startScriptedLlm(scriptByKind(() => network.answers));
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const debug = createMemoryLlmDebugStore();
  const specs = [...tools.specs, ...manyComponents(components)];
  const agent = await serveAgent(agentSpec("selector", { natural: true }), {
    components: specs,
    baseUrls: tools.baseUrls,
    llm: provider,
    llmDebug: debug,
    componentName: "selector",
    env: {},
    adaptive: { maxSemanticRetries: 0, ...adaptive },
  });
  return Object.assign(network, {
    tools,
    llm,
    debug,
    specs,
    agent,
    close: async () => {
      await agent.running.close();
      await tools.close();
      await llm.close();
      await debug.close();
    },
  });
}

/** The system prompt of a scripted request. */
export const systemOf = (body: any): string => String(body.messages?.[0]?.content ?? "");
/** Every message of a scripted request, as one text. */
export const promptOf = (body: any): string => (body.messages as { content: string }[]).map((m) => m.content).join("\n");
