/**
 * A plan as the executor schedules it: step indexes, who waits for whom (declared dependencies plus
 * the ones a template reference implies), and each step's compiled parameters.
 */
import { ManifoldError } from "../errors/index.js";
import { compileCached, type CompiledValue, type ExpressionSyntax } from "./expressions.js";
import type { Plan } from "./plan.js";

/** Step index lists: who each step waits for, and who waits for it. */
export interface Graph {
  readonly index: Map<string, number>;
  readonly waitsFor: number[][];
  readonly dependents: number[][];
  readonly compiled: CompiledValue[];
  /** Dependencies a template reference added that `depends_on` did not list (a planner's plan). */
  readonly included: readonly { readonly step_id: string; readonly referenced_step: string }[];
}

function indexSteps(plan: Plan): Map<string, number> {
  const index = new Map<string, number>();
  plan.steps.forEach((step, i) => {
    if (index.has(step.step_id)) throw new ManifoldError("INVALID_WORKFLOW", `plan ${plan.plan_id} has two steps ${step.step_id}`);
    index.set(step.step_id, i);
  });
  return index;
}

export function buildGraph(plan: Plan, syntax: ExpressionSyntax): Graph {
  const { steps } = plan;
  const index = indexSteps(plan);
  const compiled = steps.map((step, i) => compileCached(step.metadata.parameters, syntax, `/steps/${i}/metadata/parameters`));
  const waitsFor: number[][] = [];
  const dependents: number[][] = steps.map(() => []);
  const included: { step_id: string; referenced_step: string }[] = [];
  steps.forEach((step, i) => {
    const deps = new Set<number>();
    for (const id of step.depends_on) {
      const dep = index.get(id);
      if (dep === undefined) throw new ManifoldError("INVALID_WORKFLOW", `step ${step.step_id} depends on unknown step ${id}`);
      deps.add(dep);
    }
    // A reference to a step is a dependency even when depends_on forgot it (a planner's plan).
    for (const id of compiled[i]!.steps) {
      const dep = index.get(id);
      if (dep === undefined || dep === i || deps.has(dep)) continue;
      deps.add(dep);
      included.push({ step_id: step.step_id, referenced_step: id });
    }
    waitsFor.push([...deps]);
    for (const dep of deps) dependents[dep]!.push(i);
  });
  return { index, waitsFor, dependents, compiled, included };
}
