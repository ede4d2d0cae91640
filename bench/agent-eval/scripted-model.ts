/**
 * The fake model of a scenario, behind test/support/scripted-llm.ts's OpenAI-compatible server. It
 * answers by request kind (the json_schema `name`; no response_format is the synthesis) and by what
 * the request says: an entry is given only when the whole prompt (system included) fits its `when`,
 * `when_not` and `requires`, so an answer that depends on a tool's result or error is only given when
 * the orchestrator actually sent it. The first planning request of a run is answered from
 * `first_plan`; every later request takes the first unused entry of its kind that fits; the same
 * prompt asked twice gets the same answer. What a real model does when it has nothing scripted to
 * say: a plan request gets an empty plan (nothing more to do), an error analysis says it cannot fix
 * it, a micro-resolution answers null, the synthesis apologises.
 */
import type { ScriptedEntry, ScriptFunction } from "../../test/support/scripted-llm.js";
import type { ModelEntry, Scenario } from "./scenario.js";

export const APOLOGY = "Sorry, I could not complete that request.";

const DEFAULTS: Readonly<Record<string, unknown>> = {
  routing_plan: { steps: [] },
  error_analysis: { recoverable: false, reason: "I cannot tell how to fix this from the error.", parameters: {} },
  micro_resolution: { value: null },
};

/** `{id, call: "tool.capability", params, depends_on}` → the routing plan's step; full steps pass as they are. */
function expandStep(step: Record<string, unknown>): Record<string, unknown> {
  if (typeof step["call"] !== "string") return step;
  const call = step["call"];
  const dot = call.indexOf(".");
  return {
    step_id: step["id"],
    agent_name: call.slice(0, dot),
    depends_on: step["depends_on"] ?? [],
    metadata: { capability: call.slice(dot + 1), parameters: step["params"] ?? {} },
  };
}

/** The text the model answers with for one entry. */
export function entryText(kind: string, entry: ModelEntry): string {
  if (typeof entry.raw === "string") return entry.raw;
  const { when: _when, when_not: _whenNot, requires: _requires, raw: _raw, ...value } = entry;
  if (kind === "routing_plan" && Array.isArray(value["steps"]))
    return JSON.stringify({ ...value, steps: (value["steps"] as Record<string, unknown>[]).map(expandStep) });
  return JSON.stringify(value);
}

const textOf = (message: { content?: unknown } | undefined): string =>
  typeof message?.content === "string" ? message.content : JSON.stringify(message?.content ?? "");

/** The whole prompt of a request: every message, system included. */
export const promptOf = (body: { messages?: unknown }): string =>
  (Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : []).map(textOf).join("\n");

/** Whether an entry may answer this prompt. */
export const fits = (entry: ModelEntry, prompt: string): boolean =>
  (entry.when === undefined || prompt.includes(entry.when)) &&
  (entry.when_not === undefined || !prompt.includes(entry.when_not)) &&
  (entry.requires ?? []).every((fact) => prompt.includes(fact));

export interface ScriptedModel {
  readonly script: ScriptFunction;
  /** Starts a scenario's run: its entries, all unused. */
  use(scenario: Scenario): void;
  /** The kinds asked since `use`, in order (what the report shows of a run). */
  readonly asked: string[];
}

export function createScriptedModel(): ScriptedModel {
  let scenario: Scenario | undefined;
  const used = new Map<string, Set<number>>();
  const answered = new Map<string, string>();
  const asked: string[] = [];
  const pick = (kind: string, prompt: string): string => {
    if (kind === "routing_plan" && !asked.slice(0, -1).includes("routing_plan")) {
      const first = scenario?.model.first_plan.find((entry) => fits(entry, prompt));
      return first === undefined ? JSON.stringify(DEFAULTS[kind]) : entryText(kind, first);
    }
    const entries = (scenario?.model[kind as "routing_plan"] ?? []) as readonly ModelEntry[];
    const spent = used.get(kind) ?? new Set<number>();
    used.set(kind, spent);
    const index = entries.findIndex((entry, i) => !spent.has(i) && fits(entry, prompt));
    if (index === -1) return JSON.stringify(DEFAULTS[kind]);
    spent.add(index);
    return entryText(kind, entries[index]!);
  };
  const script: ScriptFunction = (body): ScriptedEntry => {
    const format = body.response_format;
    const kind: string = format === undefined ? "synthesis" : (format.json_schema?.name ?? "json_object");
    asked.push(kind);
    const prompt = promptOf(body);
    if (kind === "synthesis") {
      const answer = scenario?.model.synthesis;
      const known = answer !== undefined && (answer.requires ?? []).every((fact) => prompt.includes(fact));
      return { text: known ? answer.text : APOLOGY };
    }
    if (DEFAULTS[kind] === undefined) return { status: 500, body: { error: { message: `agent-eval: no scripted answer for a ${kind} request` } } };
    const key = `${kind}\n${prompt}`;
    const text = answered.get(key) ?? pick(kind, prompt);
    answered.set(key, text);
    return { text };
  };
  return {
    script,
    asked,
    use: (next) => {
      scenario = next;
      used.clear();
      answered.clear();
      asked.splice(0);
    },
  };
}
