/**
 * One scenario, one mode: a fresh orchestrator over the scenario's tools (the planner sees only
 * those), the runtime's real provider (the `openai` client) against the scripted model, `runNatural`
 * with a synthesis, and the verdict from what the tools answered and what the user was told.
 */
import { isDeepStrictEqual } from "node:util";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { LlmProvider } from "../../runtime/llm/index.js";
import { createOrchestrator, type NaturalRunResult } from "../../runtime/orchestration/index.js";
import { ONE_SHOT } from "../../runtime/orchestration/natural/adaptive.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import type { ScriptedLlm } from "../../test/support/scripted-llm.js";
import type { Dispatch, ObservedTools } from "./observed.js";
import type { ExpectedCall, Scenario } from "./scenario.js";
import type { ScriptedModel } from "./scripted-model.js";

export const MODES = ["one-shot", "adaptive"] as const;
export type Mode = (typeof MODES)[number];

export interface Outcome {
  readonly scenario: string;
  readonly mode: Mode;
  readonly success: boolean;
  /** Why it is not a success, one sentence each. */
  readonly failures: readonly string[];
  readonly modelCalls: number;
  readonly toolCalls: number;
  /** Dispatches whose body the capability's schema refuses. */
  readonly invalid: number;
  /** The request kinds the model was asked, in order. */
  readonly asked: readonly string[];
  /** The body of the run's first model request (the first plan), to compare the two modes' prompts. */
  readonly firstRequest: unknown;
}

export interface Bench {
  readonly llm: ScriptedLlm;
  readonly model: ScriptedModel;
  readonly provider: LlmProvider;
  readonly tools: ObservedTools;
}

const quiet = createLogger({ component: "agent-eval", write: () => undefined });

/** Whether every key of `want` is deep-equal in `got`. */
const fits = (got: Record<string, unknown>, want: Record<string, unknown> = {}): boolean =>
  Object.entries(want).every(([key, value]) => isDeepStrictEqual(got?.[key], value));

const ok = (d: Dispatch): boolean => d.status >= 200 && d.status < 300;

function callFailure(call: ExpectedCall, dispatches: readonly Dispatch[]): string | undefined {
  const same = dispatches.filter((d) => d.tool === call.tool && d.capability === call.capability);
  const want = `${call.tool}.${call.capability}${call.params === undefined ? "" : ` ${JSON.stringify(call.params)}`}`;
  const done = same.filter(ok).length;
  // Counted over every 2xx call of the capability, whatever its parameters: a second refund is a duplicate effect.
  if (call.times !== undefined && done !== call.times) return `${call.tool}.${call.capability} succeeded ${done} times, expected ${call.times}`;
  if (call.at_most !== undefined && done > call.at_most) return `${call.tool}.${call.capability} succeeded ${done} times, at most ${call.at_most} allowed`;
  if (same.some((d) => ok(d) && fits(d.params, call.params))) return undefined;
  if (same.length === 0) return `${want} was never called`;
  return `${want} never succeeded (got ${same.map((d) => `${d.status} ${JSON.stringify(d.params)}`).join("; ")})`;
}

/** The verdict on a finished run (or on the error it ended with). */
export function judge(scenario: Scenario, result: NaturalRunResult | undefined, error: unknown, dispatches: readonly Dispatch[]): string[] {
  const { expect } = scenario;
  if (result === undefined) {
    const code = error instanceof ManifoldError ? error.code : "ERROR";
    return [`the run failed: ${code} ${(error as Error)?.message ?? String(error)}`.slice(0, 300)];
  }
  const failures: string[] = [];
  const asked = result.clarification !== undefined;
  if ((expect.status ?? "completed") === "needs_input" && !asked) failures.push("expected a clarification, the run answered without asking");
  if ((expect.status ?? "completed") === "completed" && asked) failures.push(`asked the user instead of answering: ${result.clarification?.question}`);
  for (const call of expect.calls ?? []) {
    const failure = callFailure(call, dispatches);
    if (failure !== undefined) failures.push(failure);
  }
  for (const name of expect.never ?? []) if (dispatches.some((d) => ok(d) && `${d.tool}.${d.capability}` === name)) failures.push(`${name} was called`);
  const answer = typeof result.synthesis === "string" ? result.synthesis : JSON.stringify(result.synthesis ?? "");
  for (const fact of expect.answer_contains ?? []) if (!answer.includes(fact)) failures.push(`the answer lacks "${fact}" (it said: ${answer.slice(0, 120)})`);
  return failures;
}

export async function runScenario(bench: Bench, scenario: Scenario, mode: Mode): Promise<Outcome> {
  const { llm, model, provider, tools } = bench;
  tools.reset();
  model.use(scenario);
  const before = llm.requests.length;
  const orchestrator = createOrchestrator({
    components: tools.specs.filter((s) => scenario.tools.includes(s.name)),
    baseUrls: Object.fromEntries(scenario.tools.map((name) => [name, tools.baseUrls[name]!])),
    registry: false,
    llm: provider,
    env: {},
    log: quiet,
    executionStore: false,
    ...(mode === "one-shot" ? { adaptive: ONE_SHOT } : {}),
  });
  let result: NaturalRunResult | undefined;
  let error: unknown;
  try {
    result = await orchestrator.runNatural(scenario.request, { synthesise: true });
  } catch (caught) {
    error = caught;
  } finally {
    await orchestrator.close();
  }
  const dispatches = [...tools.dispatches];
  const failures = judge(scenario, result, error, dispatches);
  return {
    scenario: scenario.name,
    mode,
    success: failures.length === 0,
    failures,
    modelCalls: llm.requests.length - before,
    toolCalls: dispatches.length,
    invalid: dispatches.filter((d) => !d.valid).length,
    asked: [...model.asked],
    firstRequest: llm.requests[before]?.body,
  };
}
