/**
 * One size of bench:natural-scale, shared by the bench (natural-scale.ts) and its CI test: the
 * network registered, the orchestrator with the runtime's provider (the `openai` client) against the
 * timed scripted model, one natural request measured (wall time, each model call's kind, prompt bytes
 * and time at the model), the whole-catalog prompt today's planner would send, and a timer around
 * `natural.plan_check` on the plan the model answers (the proposal as the planner hands it over: the
 * whole catalog it is checked against, and above the threshold the selection).
 */
import type { Registry } from "../../runtime/discovery/index.js";
import { createLlmProvider, planningMessages, promptBytes, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createOrchestrator, createPlanCheckInterceptor, readAdaptiveSettings, readCatalog, type Orchestrator } from "../../runtime/orchestration/index.js";
import type { PlanProposal } from "../../runtime/orchestration/index.js";
import type { Logger } from "../../runtime/telemetry/index.js";
import { withoutLastingEffects } from "../../runtime/orchestration/catalog.js";
import { createNaturalRun, withNaturalRun } from "../../runtime/orchestration/natural/run-context.js";
import { ANSWER, PLAN, REQUEST, SELECTION, scaleNetwork } from "./natural-scale-catalog.js";
import { startTimedModel, type ModelCall, type TimedModel } from "./natural-scale-model.js";

const quiet = (): void => undefined;
const SILENT: Logger = Object.assign(quiet, { debug: quiet, info: quiet, warn: quiet, error: quiet });

export const ANSWERS = { capability_selection: JSON.stringify(SELECTION), routing_plan: JSON.stringify(PLAN), synthesis: ANSWER };

/** Registers the network of `size` capabilities (100 records at a time); its records outlive the bench. */
export async function registerNetwork(registry: Registry, size: number, realPorts: Readonly<Record<string, number>>): Promise<number> {
  const records = scaleNetwork(size, realPorts);
  for (let i = 0; i < records.length; i += 100) await Promise.all(records.slice(i, i + 100).map((r) => registry.register(r, { ttlMs: 3_600_000 })));
  return records.length;
}

export interface RequestFigures {
  readonly wallMs: number;
  readonly calls: readonly ModelCall[];
  /**
   * The request's own time: the wall time less each model call as the client timed it (the `openai`
   * client's work and the round trip included) and each tool step's duration (its HTTP call).
   */
  readonly ownMs: number;
}

export interface ScaleRun {
  readonly model: TimedModel;
  readonly orchestrator: Orchestrator;
  /** One natural request with a synthesis; throws unless it answered the scripted answer. */
  request(): Promise<RequestFigures>;
  close(): Promise<void>;
}

export async function startScaleRun(registry: Registry, env: Readonly<Record<string, string | undefined>> = {}): Promise<ScaleRun> {
  const model = await startTimedModel(ANSWERS);
  const llm = createLlmProvider(resolveLlmConfig({ option: { baseUrl: model.baseUrl, apiKey: "bench", model: "bench-model", maxRetries: 0 }, env: {} })!);
  const orchestrator = createOrchestrator({ registry, llm, env, componentName: "scale-agent", log: SILENT });
  return {
    model,
    orchestrator,
    request: async () => {
      model.calls.length = 0;
      let modelMs = 0;
      const started = performance.now();
      const result = await orchestrator.runNatural(REQUEST, {
        synthesise: true,
        onModelCall: ({ completion }) => void (modelMs += completion?.duration_ms ?? 0),
      });
      const wallMs = performance.now() - started;
      if (result.status !== "completed" || result.synthesis !== ANSWER)
        throw new Error(`the request did not answer: ${JSON.stringify(result).slice(0, 2_000)}`);
      // The plan's steps run one after the other (the weather reads the geocode's output).
      const toolMs = result.steps.reduce((ms, step) => ms + step.duration_ms, 0);
      return { wallMs, calls: [...model.calls], ownMs: wallMs - modelMs - toolMs };
    },
    close: async () => {
      await orchestrator.close();
      await model.close();
    },
  };
}

/** Bytes of the planning prompt today's planner builds over the whole visible catalog (describeCatalog). */
export async function wholeCatalogPromptBytes(registry: Registry, env: Readonly<Record<string, string | undefined>> = {}): Promise<number> {
  const catalog = (await readCatalog(registry)).map((c) => ({ ...c, capabilities: c.capabilities.filter((w) => !w.internal) }));
  return promptBytes(planningMessages(REQUEST, catalog, { maxPhases: readAdaptiveSettings(env).maxPhases }));
}

/**
 * Median time `natural.plan_check` takes to settle the scripted plan proposed over the live catalog
 * (what the planner hands it), inside a natural run that selected the plan's capabilities; warmed
 * first, like bench:plan-check, so its per-catalog checker is built once.
 */
export async function planCheckMs(
  registry: Registry,
  { runs = 1_000, warmup = 100, env = {} as Readonly<Record<string, string | undefined>> } = {},
): Promise<number> {
  const settings = readAdaptiveSettings(env);
  const interceptor = createPlanCheckInterceptor({ rounds: 2, self: "scale-agent" });
  const selection = SELECTION.capabilities.map((c) => `${c.agent_name}.${c.capability}`);
  const times: number[] = [];
  for (let i = 0; i < warmup + runs; i += 1) {
    // Read per request, as the planner does: the same registry answer the run would see.
    const catalog = withoutLastingEffects(await readCatalog(registry), undefined);
    const proposal: PlanProposal = {
      value: structuredClone(PLAN),
      catalog,
      // Above the threshold the planner's proposal carries the selection its plan must stay inside.
      ...(catalog.reduce((n, c) => n + c.capabilities.length, 0) > settings.tieredSelectionThreshold && { selection }),
      revisions: 0,
      attempt: 1,
      revise: async () => {
        throw new Error("the bench plan must check");
      },
    };
    const run = createNaturalRun({ requestId: `check-${i}`, settings, synthesise: true, signal: new AbortController().signal, record: undefined });
    run.selection = selection;
    const context = { mode: "natural", request: REQUEST, synthesise: true, proposal } as unknown as Parameters<NonNullable<typeof interceptor.afterPlan>>[0];
    const started = performance.now();
    const decision = await withNaturalRun(run, () => interceptor.afterPlan!(context));
    const ms = performance.now() - started;
    if (decision?.action !== "replace") throw new Error(`natural.plan_check did not accept the bench plan: ${JSON.stringify(decision).slice(0, 1_000)}`);
    if (i >= warmup) times.push(ms);
  }
  return median(times);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Prompt bytes by call kind (the largest, when a kind is asked more than once). */
export function promptBytesByKind(calls: readonly ModelCall[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const call of calls) out[call.kind] = Math.max(out[call.kind] ?? 0, call.promptBytes);
  return out;
}
