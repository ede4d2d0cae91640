/**
 * How an orchestrator gets its natural mode: the language-model planner, its plan check (the
 * `natural.plan_check` interceptor) and synthesiser when it has a provider (`llm`), else the planner
 * and synthesiser given in code, plus the LLM debug store.
 */
import { ManifoldError } from "../../errors/index.js";
import { createLlmDebugStore, llmDebugEnabled, type LlmDebugStore, type LlmProvider } from "../../llm/index.js";
import { createLogger } from "../../telemetry/index.js";
import { withPlannerLimits, withoutLastingEffects, type CatalogComponent } from "../catalog.js";
import type { OrchestratorOptions, Synthesiser } from "../orchestrator-types.js";
import type { Interceptor, PlanProposal } from "../pipeline-interceptors.js";
import { checkPlan, type Plan } from "../plan.js";
import { createPlanChecker } from "./check-plan.js";
import { createBindingInterceptor } from "./binding.js";
import { createPlanCheckInterceptor } from "./plan-check.js";
import { createPhaseLoopInterceptor } from "./phase-loop.js";
import { createRecoveryInterceptor } from "./recovery.js";
import { readAdaptiveSettings, type AdaptiveSettings } from "./adaptive.js";
import { createLlmPlanner, maxValidationRounds, type Planned } from "./planner.js";
import { budgetedProvider } from "./run-context.js";
import { createDistiller } from "./distill.js";
import { createCallRecorder, createFinisher, type FinishRecord, type RecordCall } from "./record.js";
import { createLlmSynthesiser } from "./synthesis.js";

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
  // One distillate cache per orchestrator, shared by the synthesis and the phase loop (distill.ts).
  const distiller = llm === undefined ? undefined : createDistiller({ provider: llm, ...(options.clock && { clock: options.clock }) });
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
    interceptors.push(createPlanCheckInterceptor({ rounds: options.maxValidationRounds ?? maxValidationRounds(env), self: componentName }));
    // After each step: a refused input analysed by the model and retried with checked parameters (recovery.ts).
    if (settings.maxSemanticRetries > 0) interceptors.push(createRecoveryInterceptor({ provider: llm, catalog: fullCatalog }));
    // Before each step: its resolved parameters against the input schema, micro-resolved or rejected (binding.ts).
    interceptors.push(createBindingInterceptor({ provider: llm }));
    const { allowLastingEffects, plannerCapabilities } = options;
    const plan = createLlmPlanner({
      provider: llm,
      catalog: async () => withPlannerLimits(withoutLastingEffects(await fullCatalog(), allowLastingEffects), plannerCapabilities),
      maxPhases: settings.maxPhases,
      settings,
    });
    planner = (request, { signal, record }) => plan(request, { ...(signal && { signal }), ...(record && { record }) });
    // After execution: further phases (the continuation is settled by natural.plan_check like a first plan).
    interceptors.push(createPhaseLoopInterceptor({ planner: plan, settings, log, ...(distiller && { distiller }) }));
  }
  let synthesiser = givenSynthesiser;
  if (synthesiser === undefined && llm !== undefined) {
    const synthesise = createLlmSynthesiser({
      provider: llm,
      ...(distiller && { distiller }),
      ...(options.synthesisBudgetBytes === undefined ? {} : { resultBudgetBytes: options.synthesisBudgetBytes }),
    });
    synthesiser = (input, synthesisOptions) => synthesise(input, synthesisOptions);
  }

  const option = options.llmDebug;
  const owned = option === true || (option === undefined && llm !== undefined && llmDebugEnabled(env));
  const store: LlmDebugStore | undefined = typeof option === "object" ? option : owned ? createLlmDebugStore({ env }) : undefined;
  return {
    planner,
    settings,
    interceptors,
    synthesiser,
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

/** An after_planning hook's replacement of a natural plan, checked against the catalog like the model's own. */
export function checkReplacement(plan: Plan, catalog: readonly CatalogComponent[]): Plan {
  const { problems } = createPlanChecker(catalog)({ steps: plan.steps }, plan.original_request);
  if (problems.length === 0) return plan;
  throw new ManifoldError("PLAN_INVALID", `the plan returned by an after_planning hook does not fit the catalog: ${problems[0]!.message}`, {
    details: problems.map((p) => ({ pointer: p.pointer, message: p.message })),
  });
}
