/** Natural mode: a language model's plan checked against the live catalog, run, and synthesised. */
export { createPlanChecker, MAX_PLAN_STEPS, parsePlanText, type PlanCheck, type PlanChecker, type PlanProblem } from "./check-plan.js";
export { trimResults, type TrimResult } from "./trim.js";
