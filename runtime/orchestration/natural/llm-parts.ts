/**
 * The parts of natural mode built over a language model that load with the first request that needs
 * one (configure.ts imports this module then): the planner, its binding and phase-loop interceptors,
 * the synthesiser and the distillate cache they share. An agent that serves no natural request and
 * asks for no synthesis loads none of it (start-up time).
 */
import type { LlmProvider } from "../../llm/index.js";
import type { Logger } from "../../telemetry/index.js";
import { withPlannerLimits, withoutLastingEffects, type CatalogComponent } from "../catalog.js";
import type { OrchestratorOptions } from "../orchestrator-types.js";
import type { Interceptor } from "../pipeline-interceptors.js";
import type { AdaptiveSettings } from "./adaptive.js";
import { createBindingInterceptor } from "./binding.js";
import { createDistiller } from "./distill.js";
import { createPhaseLoopInterceptor } from "./phase-loop.js";
import { createLlmPlanner, type LlmPlanner } from "./planner.js";
import { createLlmSynthesiser, type LlmSynthesiser } from "./synthesis.js";

export interface LlmPartsOptions {
  readonly llm: LlmProvider;
  readonly options: OrchestratorOptions;
  readonly settings: AdaptiveSettings;
  readonly log: Logger;
  readonly fullCatalog: () => Promise<CatalogComponent[]>;
  /** Build the planner and its interceptors (no planner was given in code). */
  readonly planning: boolean;
  /** Build the synthesiser (none was given in code). */
  readonly synthesis: boolean;
}

export interface LlmParts {
  readonly plan?: LlmPlanner;
  readonly binding?: Interceptor;
  readonly phaseLoop?: Interceptor;
  readonly synthesise?: LlmSynthesiser;
}

export function createLlmParts({ llm, options, settings, log, fullCatalog, planning, synthesis }: LlmPartsOptions): LlmParts {
  // One distillate cache per orchestrator, shared by the synthesis and the phase loop (distill.ts).
  const distiller = createDistiller({ provider: llm, ...(options.clock && { clock: options.clock }) });
  const parts: { -readonly [K in keyof LlmParts]: LlmParts[K] } = {};
  if (planning) {
    // Before each step: its resolved parameters against the input schema, micro-resolved or rejected (binding.ts).
    parts.binding = createBindingInterceptor({ provider: llm });
    const { allowLastingEffects, plannerCapabilities } = options;
    parts.plan = createLlmPlanner({
      provider: llm,
      catalog: async () => withPlannerLimits(withoutLastingEffects(await fullCatalog(), allowLastingEffects), plannerCapabilities),
      maxPhases: settings.maxPhases,
      settings,
    });
    // After execution: further phases (the continuation is settled by natural.plan_check like a first plan).
    parts.phaseLoop = createPhaseLoopInterceptor({ planner: parts.plan, settings, log, distiller });
  }
  if (synthesis) {
    parts.synthesise = createLlmSynthesiser({
      provider: llm,
      distiller,
      ...(options.synthesisBudgetBytes === undefined ? {} : { resultBudgetBytes: options.synthesisBudgetBytes }),
    });
  }
  return parts;
}
