/**
 * The steps of a request across natural mode's phases: a further phase's plan keeps only the
 * completed steps of earlier phases, so the ones that failed or were skipped are added back from the
 * plan's phase history wherever a whole answer or record is made.
 */
import type { ExecutionResult, StepResult } from "./executor-types.js";
import type { Plan } from "./plan.js";

/**
 * Every step of a request by phase: the plan holds the completed steps of earlier phases and the
 * newest phase's; the steps of earlier phases that failed or were skipped are in its phase history.
 */
export function withEarlierPhases<R extends Pick<ExecutionResult, "steps">>(plan: Plan, result: R): R {
  const present = new Set(result.steps.map((step) => step.step_id));
  // Each step once, whether or not the result was merged already.
  const unfinished = ((plan.phases ?? []).flatMap((phase) => phase.unfinished ?? []) as StepResult[]).filter((step) => !present.has(step.step_id));
  if (unfinished.length === 0) return result;
  const order = new Map<string, number>();
  for (const phase of plan.phases ?? []) for (const id of phase.step_ids) order.set(id, order.size);
  const rank = (step: StepResult): number => order.get(step.step_id) ?? Number.MAX_SAFE_INTEGER;
  return { ...result, steps: [...result.steps, ...unfinished].sort((a, b) => rank(a) - rank(b)) };
}
