/**
 * How an orchestrator gets its natural mode: the language-model planner, its plan check (the
 * `natural.plan_check` interceptor) and synthesiser when it has a provider (`llm`), else the planner
 * and synthesiser given in code, plus the LLM debug store. The planner, binding, phase loop and
 * synthesiser over a provider load with the first request that needs them (llm-parts.ts); the plan check
 * (plan-check.ts, check-plan.ts) with the first plan it checks.
 */
import { ManifoldError } from "../../errors/index.js";
import { createLlmDebugStore, llmDebugEnabled, type LlmDebugStore, type LlmProvider } from "../../llm/index.js";
import { createLogger } from "../../telemetry/index.js";
import { checkInteger, loadOnce } from "../../util/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { OrchestratorOptions, Synthesiser } from "../orchestrator-types.js";
import type { Interceptor, PlanProposal } from "../pipeline-interceptors.js";
import { checkPlan, type Plan } from "../plan.js";
import { createRecoveryInterceptor } from "./recovery.js";
import { maxValidationRounds, PLAN_CHECK, readAdaptiveSettings, type AdaptiveSettings } from "./adaptive.js";
import type { Planned } from "./planner.js";
import { budgetedProvider } from "./run-context.js";
import { createCallRecorder, createFinisher, type FinishRecord, type RecordCall } from "./record.js";

export type { LlmDebugOption } from "../orchestrator-types.js";

export interface NaturalPlanOptions {
  /** The catalog the planner sees (internal capabilities left out). */
  readonly catalog: () => Promise<CatalogComponent[]>;
  readonly signal?: AbortSignal;
  readonly record?: RecordCall;
}

/** A code-given planner's plan, or the language model's proposal (checked by `natural.plan_check`). */
export type NaturalPlanner = (request: string, options: NaturalPlanOptions) => Promise<Planned | PlanProposal>;

export interface NaturalSetup {
  readonly planner: NaturalPlanner | undefined;
  /** The adaptive loop's limits and the request's budgets (adaptive.ts). */
  readonly settings: AdaptiveSettings;
  /** Natural mode's interceptors, asked before any other: `natural.plan_check` with the language-model planner. */
  readonly interceptors: readonly Interceptor[];
  readonly synthesiser: Synthesiser | undefined;
  /** Loads the parts built over the language model (llm-parts.ts), once; a failed load is tried again by the next call. */
  ready(): Promise<void>;
  /** The budgeted language model (every call charged to its request), for context sources; undefined without one. */
  readonly provider: LlmProvider | undefined;
  /** A recorder of one request's model calls, when LLM debug records are on. */
  recorder(requestId: string, originalRequestId: string | undefined): RecordCall | undefined;
  /** Marks how a request ended on its LLM debug record (a 422/502 answer, a question for the user), when records are on. */
  readonly finish: FinishRecord | undefined;
  close(): Promise<void>;
}

const isPlanned = (value: Plan | Planned): value is Planned => "plan" in value && "regenerations" in value;

export function configureNatural(
  options: OrchestratorOptions,
  fullCatalog: () => Promise<CatalogComponent[]>,
  env: Readonly<Record<string, string | undefined>>,
): NaturalSetup {
  const { planner: given, synthesiser: givenSynthesiser, componentName = "orchestrator" } = options;
  const settings = readAdaptiveSettings(env, options.adaptive);
  // Every model call of a request is charged to its budget and aborted with it (run-context.ts).
  const llm = options.llm === undefined ? undefined : budgetedProvider(options.llm);
  const log = options.log ?? createLogger({ component: "orchestration" });
  const planning = given === undefined && llm !== undefined;
  const synthesis = givenSynthesiser === undefined && llm !== undefined;
  // Checked at start, as building the synthesiser did before it loaded on first use.
  if (synthesis && options.synthesisBudgetBytes !== undefined) checkInteger("resultBudgetBytes", options.synthesisBudgetBytes, { min: 256 });
  // The planner and the synthesiser wait for `get()`; the interceptors standing in for binding and the
  // phase loop read `current()`: they are asked only in natural mode, whose request waited for the load
  // first (in any other mode they answer nothing, as the parts themselves would).
  const parts = loadOnce(async () => {
    const { createLlmParts } = await import("./llm-parts.js");
    return createLlmParts({ llm: llm!, options, settings, log, fullCatalog, planning, synthesis });
  });
  let planner: NaturalPlanner | undefined;
  const interceptors: Interceptor[] = [];
  if (given !== undefined) {
    // Code-given planners are trusted code: their plan's shape is checked, the catalog is theirs to read.
    planner = async (request, { catalog, signal }) => {
      const out = await given(request, await catalog(), signal);
      return isPlanned(out)
        ? { plan: checkPlan(out.plan, "the planner's plan"), regenerations: out.regenerations }
        : { plan: checkPlan(out, "the planner's plan"), regenerations: 0 };
    };
  } else if (llm !== undefined) {
    interceptors.push(planCheckOnFirstPlan(options.maxValidationRounds ?? maxValidationRounds(env), componentName));
    // After each step: a refused input analysed by the model and retried with checked parameters (recovery.ts).
    if (settings.maxSemanticRetries > 0) interceptors.push(createRecoveryInterceptor({ provider: llm, catalog: fullCatalog }));
    // Before each step: binding.ts's check; after execution: the phase loop (both in llm-parts.ts, under their
    // BINDING and PHASE_LOOP names, which are checked against the others' here at start).
    interceptors.push(
      { name: "natural.binding", beforeStep: (context) => parts.current()?.binding?.beforeStep?.(context) },
      { name: "natural.phase_loop", afterExecution: (context) => parts.current()?.phaseLoop?.afterExecution?.(context) },
    );
    planner = async (request, { signal, record }) => (await parts.get()).plan!(request, { ...(signal && { signal }), ...(record && { record }) });
  }
  let synthesiser = givenSynthesiser;
  if (synthesis) synthesiser = async (input, synthesisOptions) => (await parts.get()).synthesise!(input, synthesisOptions);

  const option = options.llmDebug;
  const owned = option === true || (option === undefined && llm !== undefined && llmDebugEnabled(env));
  const store: LlmDebugStore | undefined = typeof option === "object" ? option : owned ? createLlmDebugStore({ env }) : undefined;
  return {
    planner,
    settings,
    interceptors,
    synthesiser,
    ready: async () => {
      if (planning) await parts.get();
    },
    provider: llm,
    recorder: (requestId, originalRequestId) =>
      store === undefined
        ? undefined
        : createCallRecorder(store, { requestId, ...(originalRequestId === undefined ? {} : { originalRequestId }), component: componentName }, log),
    finish: store === undefined ? undefined : createFinisher(store, log),
    close: async () => {
      if (owned) await store?.close();
    },
  };
}

/**
 * `natural.plan_check` as a stand-in: the check (its normalisation, selection and catalog index) is built with
 * the first plan it checks; a load that fails fails that request and the next one tries again. Its round limit
 * is checked now, as building it did.
 */
function planCheckOnFirstPlan(rounds: number, self: string): Interceptor {
  checkInteger("maxValidationRounds", rounds, { min: 0, max: 10 });
  const check = loadOnce(async () => (await import("./plan-check.js")).createPlanCheckInterceptor({ rounds, self }));
  return { name: PLAN_CHECK, enforce: "pre", afterPlan: async (context) => (await check.get()).afterPlan!(context) };
}

/** An after_planning hook's replacement of a natural plan, checked against the catalog like the model's own. */
export async function checkReplacement(plan: Plan, catalog: readonly CatalogComponent[]): Promise<Plan> {
  const { createPlanChecker } = await import("./check-plan.js");
  const { problems } = createPlanChecker(catalog)({ steps: plan.steps }, plan.original_request);
  if (problems.length === 0) return plan;
  throw new ManifoldError("PLAN_INVALID", `the plan returned by an after_planning hook does not fit the catalog: ${problems[0]!.message}`, {
    details: problems.map((p) => ({ pointer: p.pointer, message: p.message })),
  });
}
