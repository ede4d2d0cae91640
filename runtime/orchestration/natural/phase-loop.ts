/**
 * `natural.phase_loop`: the after-execution interceptor that continues a natural-mode request in
 * further phases. After a phase's steps ran, it asks the model for a continuation plan when the phase
 * said `"continue": true`, or when a step the tool refused (4xx, recovery could not mend it) failed or
 * steps were skipped because others failed (remediation), with the
 * results so far; the pipeline settles the proposal with the same plan check as a first plan and runs
 * the new steps with the completed ones kept. A failed step with lasting effects (`effects: lasting`)
 * ends the loop: it is never re-planned on a model's word. The loop ends at `MANIFOLD_MAX_PHASES`, when the call
 * budget has no room, when a continuation has no steps, and when the same capability fails in two
 * phases (`orchestrator.forced_terminal`): the request then answers with what exists.
 */
import type { PhaseResults } from "../../llm/index.js";
import { capabilityIn, type CatalogComponent } from "../catalog.js";
import { isClientFailure, projectFailure } from "./failure-evidence.js";
import { getTelemetry, type Logger } from "../../telemetry/index.js";
import { isManifoldError } from "../../errors/index.js";
import type { StepResult } from "../executor-types.js";
import type { ExecutionContext, Interceptor } from "../pipeline-interceptors.js";
import type { Plan, PlanPhase, UnfinishedStep } from "../plan.js";
import { promptBudgetBytes, type AdaptiveSettings } from "./adaptive.js";
import type { Distiller } from "./distill.js";
import { showResults } from "./distill-results.js";
import type { LlmPlanner } from "./planner.js";
import { currentNaturalRun, llmEventScope, type NaturalRun } from "./run-context.js";
import { trimResults } from "./trim.js";

export const PHASE_LOOP = "natural.phase_loop";

/** Most bytes of one failed step's line in a continuation prompt. */
export const FAILURE_LINE_BYTES = 1024;
/** Most bytes of all earlier results in a continuation prompt, whatever the per-step budget. */
const MAX_RESULTS_BYTES = 128 * 1024;

export interface PhaseLoopOptions {
  readonly planner: LlmPlanner;
  readonly settings: AdaptiveSettings;
  readonly log: Logger;
  /** Given: earlier results too big for the continuation prompt are distilled, not cut. */
  readonly distiller?: Distiller;
}

const capabilityOf = (step: { readonly component: string; readonly capability: string }): string => `${step.component}.${step.capability}`;

function unfinishedOf(step: StepResult): UnfinishedStep {
  const { output: _output, ...rest } = step;
  return rest as UnfinishedStep;
}

/** A capability with lasting effects (`effects: lasting`) is never re-planned on a model's word, and its failure is not shown to it. */
function hasLastingEffects(catalog: readonly CatalogComponent[] | undefined, step: StepResult): boolean {
  const wire = catalog === undefined ? undefined : capabilityIn(catalog, step.component, step.capability);
  // Unknown (a resumed run before any plan check): treated as lasting, the safe side.
  return wire === undefined || wire.effects === "lasting";
}

/**
 * What the continuation prompt shows: completed outputs within the budget (distilled where they do
 * not fit, when there is a distiller), the projected evidence of each failure. The results get at
 * most half the prompt budget: the catalog (or the selection) and the rules take the rest.
 */
async function phaseResults(
  plan: Plan,
  steps: readonly StepResult[],
  settings: AdaptiveSettings,
  distiller: Distiller | undefined,
  request: string,
): Promise<PhaseResults> {
  const done = steps.filter((s) => s.status === "completed");
  let text: string;
  if (distiller === undefined) {
    const count = Math.max(1, done.length);
    text = trimResults(Object.fromEntries(done.map((s) => [s.step_id, s.output])), Math.min(settings.resultBudgetBytes * count, MAX_RESULTS_BYTES)).text;
  } else {
    const budget = Math.min(settings.requestResultBudgetBytes, MAX_RESULTS_BYTES);
    const room = Math.floor(promptBudgetBytes(settings) / 2);
    const totalBudget = Math.min(budget, room);
    const shown = done.map((s) => ({ step_id: s.step_id, capability: capabilityOf(s), output: s.output ?? null }));
    // One call is left for the continuation plan itself.
    const options = { request, stepBudget: settings.resultBudgetBytes, totalBudget, contextBound: room < budget, nest: false };
    text = await showResults(distiller, shown, { ...options, reserveCalls: 1, purpose: "continuation" });
  }
  const earlier = (plan.phases ?? []).flatMap((phase) => phase.unfinished ?? []);
  const failed = [...earlier, ...steps.filter((s) => s.status !== "completed")].map((s) => {
    const why = s.error === undefined ? (s.reason ?? s.status) : projectFailure(s.error, FAILURE_LINE_BYTES).text;
    return `${s.step_id} (${capabilityOf(s)}) ${s.status}: ${why}`;
  });
  return { completed: text, failed };
}

/** Capabilities that failed in this phase and in an earlier one: the loop would only repeat them. */
function repeatedFailures(phases: readonly PlanPhase[], now: readonly StepResult[]): string[] {
  const before = new Set(
    phases
      .slice(0, -1)
      .flatMap((phase) => phase.unfinished ?? [])
      .filter((s) => s.status === "failed")
      .map(capabilityOf),
  );
  return [...new Set(now.filter((s) => s.status === "failed").map(capabilityOf))].filter((name) => before.has(name)).sort();
}

/**
 * Why another phase is wanted, if it is: the plan asked for it, or a step failed (after recovery, if
 * any, could not mend it) or was skipped because one did: the model may reach the goal another way,
 * typically with the lookup it skipped.
 */
function wanted(current: PlanPhase, now: readonly StepResult[], run: NaturalRun): "continue" | "remediation" | undefined {
  const failed = now.filter((s) => s.status === "failed");
  // What a step with lasting effects did when it failed is for the caller or a human to judge, not
  // another plan (recovery reports the policy, `failure_evidence.policy_omitted`, when it sees the step).
  if (failed.some((s) => hasLastingEffects(run.catalog, s))) return undefined;
  if (current.continue) return "continue";
  const skipped = now.some((s) => s.status === "skipped" && s.skipped_because !== undefined);
  return skipped || failed.some((s) => s.error !== undefined && isClientFailure(s.error)) ? "remediation" : undefined;
}

/** `orchestrator.remediation.triggered`, once the remediation phase is really asked for. */
function reportRemediation(plan: Plan, now: readonly StepResult[]): void {
  const skipped = now.filter((s) => s.status === "skipped" && s.skipped_because !== undefined);
  getTelemetry().event("orchestrator.remediation.triggered", {
    ...llmEventScope(),
    plan_id: plan.plan_id,
    skipped_count: skipped.length,
    skipped_step_ids: JSON.stringify(skipped.map((s) => s.step_id).slice(0, 50)),
    has_failure_pattern: now.some((s) => s.status === "failed"),
  });
}

export function createPhaseLoopInterceptor({ planner, settings, log, distiller }: PhaseLoopOptions): Interceptor {
  return {
    name: PHASE_LOOP,
    async afterExecution(context) {
      const run = currentNaturalRun();
      const { plan, result } = context;
      const phases = plan.phases;
      if (context.mode !== "natural" || run === undefined || phases === undefined || plan.clarification !== undefined) return undefined;
      // A paused or aborted run is not the loop's: HITL's checkpoint (or the abort) answers it.
      if (result.interrupt !== undefined || result.status === "interrupted") return undefined;
      const current = phases.at(-1)!;
      const ids = new Set(current.step_ids);
      const now = result.steps.filter((s) => ids.has(s.step_id));
      const reason = wanted(current, now, run);
      if (reason === undefined) return undefined;
      const repeated = repeatedFailures(phases, now);
      if (repeated.length > 0) {
        getTelemetry().event("orchestrator.forced_terminal", {
          ...llmEventScope(),
          reason: "repeated_failed_dependencies",
          failed_dependencies: JSON.stringify(repeated.slice(0, 20)),
        });
        return undefined;
      }
      if (phases.length >= settings.maxPhases || !run.canAsk()) {
        // Said, not silent: the answer is built from what the phases so far produced.
        getTelemetry().event("orchestrator.phase_loop.stopped", {
          ...llmEventScope(),
          cause: phases.length >= settings.maxPhases ? "max_phases" : "llm_budget",
          max_phases: settings.maxPhases,
          wanted: reason,
        });
        return undefined;
      }
      return await continuation(planner, settings, run, context, { reason, now, current, log, distiller });
    },
  };
}

interface Next {
  readonly reason: "continue" | "remediation";
  readonly now: readonly StepResult[];
  readonly current: PlanPhase;
  readonly log: Logger;
  readonly distiller: Distiller | undefined;
}

/** Asks for the next phase; a model that fails (or a budget spent meanwhile) ends the loop with what exists. */
async function continuation(
  planner: LlmPlanner,
  settings: AdaptiveSettings,
  run: NaturalRun,
  { plan, result, request }: ExecutionContext,
  { reason, now, current, log, distiller }: Next,
): Promise<{ action: "extend"; proposal: Awaited<ReturnType<LlmPlanner["continuation"]>> } | undefined> {
  const completed = new Set(result.steps.filter((s) => s.status === "completed").map((s) => s.step_id));
  const base: Plan = {
    ...plan,
    steps: plan.steps.filter((s) => completed.has(s.step_id)),
    phases: [...plan.phases!.slice(0, -1), { ...current, unfinished: now.filter((s) => s.status !== "completed").map(unfinishedOf) }],
  };
  const results = await phaseResults(plan, result.steps, settings, distiller, String(request));
  const phase = plan.phases!.length + 1;
  // Reported in the phase whose steps failed, before the next one is planned.
  if (reason === "remediation") reportRemediation(plan, now);
  const previous = run.phase;
  run.phase = phase;
  run.progress?.({ kind: "phase", phase, reason });
  try {
    const proposal = await planner.continuation(
      { request: String(request), base, results, reason, maxPhases: settings.maxPhases },
      { signal: run.signal, ...(run.record && { record: run.record }) },
    );
    return { action: "extend", proposal };
  } catch (error) {
    if (run.signal.aborted || !isManifoldError(error) || !["LLM_ERROR", "BUDGET_EXCEEDED"].includes(error.code)) throw error;
    log.warn(`phase ${phase} was not planned: ${error.code}`, { code: error.code });
    run.phase = previous;
    return undefined;
  }
}
