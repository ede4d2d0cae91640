/**
 * Orchestration: one plan model and one DAG executor behind four front ends (predefined workflows,
 * custom step lists, YAML workflows loaded at run time, and a seam for natural-language planning),
 * with pipeline hooks, interceptors and execution records. See README.md beside this file.
 *
 * The package's entry: served.ts (what the runtime's own modules import) and natural mode's plan check.
 */
export * from "./served.js";
export {
  createPlanChecker,
  MAX_PLAN_STEPS,
  checkProposal,
  createPlanCheckInterceptor,
  parsePlanText,
  type PlanCheck,
  type PlanChecker,
  type PlanCheckOptions,
  type PlanProblem,
} from "./natural/index.js";
