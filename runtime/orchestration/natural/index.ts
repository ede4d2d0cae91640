/** Natural mode: a language model's plan checked against the live catalog, run, and synthesised. */
export { createPlanChecker, MAX_PLAN_STEPS, parsePlanText, type PlanCheck, type PlanChecker, type PlanProblem } from "./check-plan.js";
export { checkProposal, createPlanCheckInterceptor, PLAN_CHECK, type PlanCheckOptions } from "./plan-check.js";
export { trimResults, type TrimResult } from "./trim.js";
export { FAILURE_EVIDENCE_LIMIT_BYTES, projectFailure, type ProjectedFailure } from "./failure-evidence.js";
export { RECOVERY, recoveryAnalysis, type RecoveryAnalysis } from "./recovery.js";
