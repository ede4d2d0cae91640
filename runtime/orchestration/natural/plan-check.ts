/**
 * `natural.plan_check`: the `enforce: "pre"` after-plan interceptor that turns the language model's
 * proposal into a plan. It checks the proposal against the catalog it was planned over
 * (check-plan.ts) and, while there are problems, sends them back to the planner's conversation
 * (`revise`), up to `rounds` times; it answers `replace` with the plan that checks, or `fail` with 422
 * PLAN_INVALID carrying the last problems. It runs before the `after_planning` hooks and every other
 * interceptor, so nothing sees (or dispatches) a plan that has not checked.
 *
 * `checkProposal` is the loop on its own, for any proposal in a conversation that can be asked again.
 */
import { ManifoldError } from "../../errors/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import { checkInteger } from "../../util/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { Interceptor, PlanProposal } from "../pipeline-interceptors.js";
import type { Plan } from "../plan.js";
import { createPlanChecker, type PlanCheck, type PlanChecker } from "./check-plan.js";
import { normalizePlan } from "./normalize.js";
import { checkPhase } from "./phase-plan.js";
import { currentNaturalRun, llmEventScope } from "./run-context.js";
import { outsideSelection } from "./selection.js";
import { PLAN_CHECK } from "./adaptive.js";

export { PLAN_CHECK } from "./adaptive.js";

export interface PlanCheckOptions {
  /** Most regenerations after the first proposal, 0–10 (`MANIFOLD_MAX_VALIDATION_ROUNDS`). */
  readonly rounds: number;
  /** The agent that plans: a step calling it is dropped by normalisation. */
  readonly self?: string;
}

/**
 * Whether two catalog reads describe the same catalog: the same components with the same capability
 * objects (readCatalog hands out one wire object per spec capability and per registry entry while the
 * registry's cache is fresh). Identity, not content: serialising a 10,000-capability catalog on every
 * request to compare it cost more than the check itself.
 */
export function sameCatalog(a: readonly CatalogComponent[], b: readonly CatalogComponent[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) {
    const [x, y] = [a[i]!, b[i]!];
    if (x.name !== y.name || x.kind !== y.kind || x.capabilities.length !== y.capabilities.length) return false;
    for (let j = 0; j < x.capabilities.length; j += 1) if (x.capabilities[j] !== y.capabilities[j]) return false;
  }
  return true;
}

export function createPlanCheckInterceptor({ rounds, self }: PlanCheckOptions): Interceptor {
  checkInteger("maxValidationRounds", rounds, { min: 0, max: 10 });
  // One checker per catalog content: its views and ajv validators are reused while the network is unchanged.
  let cached: { components: readonly CatalogComponent[]; checker: PlanChecker } | undefined;
  const checkerOf = (components: readonly CatalogComponent[]): PlanChecker => {
    if (cached === undefined || !sameCatalog(cached.components, components)) cached = { components, checker: createPlanChecker(components) };
    return cached.checker;
  };
  return {
    name: PLAN_CHECK,
    enforce: "pre",
    afterPlan: async ({ proposal, request }) => {
      if (proposal === undefined) return undefined;
      // Recovery and micro-resolution read the capabilities' schemas from the catalog the plan was checked against.
      const run = currentNaturalRun();
      if (run !== undefined) run.catalog = proposal.catalog;
      const checked = await checkProposal(proposal, checkerOf(proposal.catalog), { request: String(request), rounds, ...(self === undefined ? {} : { self }) });
      return checked instanceof ManifoldError ? { action: "fail", error: checked } : { action: "replace", plan: checked };
    },
  };
}

/**
 * Checks the proposal (normalised first, every repair reported), sending problems back until it
 * checks (the plan: a first plan, or the proposal's `base` with a further phase) or `rounds` are spent
 * (the PLAN_INVALID error).
 */
export async function checkProposal(
  proposal: PlanProposal,
  check: PlanChecker,
  { request, rounds, self }: { readonly request: string; readonly rounds: number; readonly self?: string },
): Promise<Plan | ManifoldError> {
  const { base, reason } = proposal;
  // Earlier phases' ids are taken, the steps that did not complete included (a remediation plan often copies one).
  const taken = new Set([...(base?.steps ?? []).map((step) => step.step_id), ...(base?.phases ?? []).flatMap((phase) => phase.step_ids)]);
  let reselected = false;
  for (;;) {
    const { value } = normalizePlan(proposal.value, { ...(self === undefined ? {} : { self }), taken });
    const checked = checkPhase(check, value, request, { ...(base && { base }), ...(reason && { reason }) });
    // Tiered selection: a capability the catalog has but the planner was not shown is a problem like any other.
    const outside = proposal.selection === undefined ? [] : outsideSelection(value, proposal.selection, proposal.catalog);
    if (checked.plan !== undefined && outside.length === 0) {
      if (base !== undefined) reportPriorDependencies(checked.plan, taken);
      return checked.plan;
    }
    const result: PlanCheck = { ...checked, problems: [...outside.map(({ pointer, message }) => ({ pointer, message })), ...checked.problems] };
    reportHallucinations(proposal, result, rounds);
    if (proposal.revisions >= rounds) {
      getTelemetry().event("orchestrator.plan_validation.exhausted", { ...llmEventScope(), rounds });
      return new ManifoldError(
        "PLAN_INVALID",
        `the language model's plan is still invalid after ${rounds} regeneration${rounds === 1 ? "" : "s"}: ${result.problems[0]?.message ?? ""}`,
        { details: result.problems.map((p) => ({ pointer: p.pointer, message: p.message })) },
      );
    }
    // A regeneration keeps the proposal's selection, unless a continuation needs capabilities outside it: then it selects again, once.
    const reselect: boolean = base !== undefined && outside.length > 0 && !reselected;
    reselected ||= reselect;
    getTelemetry().event("orchestrator.plan_regeneration.selection", {
      ...llmEventScope(),
      selection_reused: proposal.selection !== undefined && !reselect,
    });
    const problems = result.problems.map((p) => `${p.pointer}: ${p.message}`);
    await (reselect ? proposal.revise(problems, { reselect: true }) : proposal.revise(problems));
  }
}

/** `orchestration.template.dependency_inclusion` (`declared_prior_phase`): a new step waits for a step of an earlier phase. */
function reportPriorDependencies(plan: Plan, earlier: ReadonlySet<string>): void {
  for (const step of plan.steps) {
    if (earlier.has(step.step_id)) continue;
    for (const referenced of step.depends_on)
      if (earlier.has(referenced))
        getTelemetry().event("orchestration.template.dependency_inclusion", {
          ...llmEventScope(),
          reason: "declared_prior_phase",
          step_id: step.step_id,
          referenced_step: referenced,
        });
  }
}

/** `llm.hallucination_detected` for each component the plan named that the catalog has not. */
function reportHallucinations({ catalog, revisions, attempt }: PlanProposal, result: PlanCheck, rounds: number): void {
  if (result.hallucinated.length === 0) return;
  // The components the model was shown with something to call: internal capabilities are not shown.
  const allowed = catalog.filter((c) => c.capabilities.some((wire) => !wire.internal)).length;
  for (const agent of result.hallucinated) {
    getTelemetry().event("llm.hallucination_detected", {
      ...llmEventScope(),
      hallucinated_agent: agent.slice(0, 100),
      allowed_agent_count: allowed,
      hall_retry: revisions,
      max_hall_retries: rounds,
      attempt,
    });
  }
}
