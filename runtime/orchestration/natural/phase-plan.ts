/**
 * A model's answer read as one phase of a plan: a first plan, or a continuation that adds steps to
 * the plan so far (its completed steps, which the new ones may reference with the same templates).
 * The answer may ask for a further phase (`"continue": true`) or, instead of steps, ask the user
 * (`{"clarification": {"question", "missing_fields"}}`). Either way the steps are checked by the one
 * plan checker, with the earlier phases' steps in view, before anything is dispatched.
 */
import { phaseOf, type Clarification, type Plan, type PlanPhase, type PlanStep } from "../plan.js";
import type { PlanCheck, PlanChecker, PlanProblem } from "./check-plan.js";

/** Most characters of a clarification's question, and most missing fields (each at most 100 characters). */
export const MAX_QUESTION_CHARS = 2000;
export const MAX_MISSING_FIELDS = 20;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The clarification an answer carries, or the problem with it. */
function clarificationOf(value: Record<string, unknown>): { readonly clarification?: Clarification; readonly problems: PlanProblem[] } {
  const raw = value["clarification"];
  if (raw === undefined || raw === null) return { problems: [] };
  const problems: PlanProblem[] = [];
  if (!isObject(raw)) return { problems: [{ pointer: "/clarification", message: 'must be an object {"question": "…", "missing_fields": ["…"]}' }] };
  const { question, missing_fields: fields = [] } = raw;
  if (typeof question !== "string" || question.trim() === "" || question.length > MAX_QUESTION_CHARS)
    problems.push({
      pointer: "/clarification/question",
      message: `must be the question for the user: a non-empty string of at most ${MAX_QUESTION_CHARS} characters`,
    });
  const goodFields = Array.isArray(fields) && fields.length <= MAX_MISSING_FIELDS && fields.every((f) => typeof f === "string" && f !== "" && f.length <= 100);
  if (!goodFields) problems.push({ pointer: "/clarification/missing_fields", message: `must be at most ${MAX_MISSING_FIELDS} names of the missing values` });
  const steps = value["steps"];
  if (Array.isArray(steps) && steps.length > 0) problems.push({ pointer: "/steps", message: "answer either steps or a clarification, not both" });
  if (problems.length > 0) return { problems };
  return { clarification: { question: (question as string).trim(), missing_fields: fields as string[] }, problems };
}

/** The phases of a plan made before the phase loop knew of it: one phase holding every step. */
function phasesOf(base: Plan): readonly PlanPhase[] {
  return base.phases ?? [{ phase: 1, step_ids: base.steps.map((s) => s.step_id), continue: false, reason: "request" }];
}

/** A problem found in the combined steps, pointed into the model's own answer (its steps follow the `offset` earlier ones). */
function inAnswer(problem: PlanProblem, earlier: readonly PlanStep[]): PlanProblem {
  const match = /^\/steps\/(\d+)(.*)$/.exec(problem.pointer);
  if (match === null || earlier.length === 0) return problem;
  const index = Number(match[1]);
  if (index >= earlier.length) return { ...problem, pointer: `/steps/${index - earlier.length}${match[2]}` };
  return { pointer: "", message: `step ${earlier[index]!.step_id} of an earlier phase: ${problem.message}` };
}

export interface PhaseCheckOptions {
  /** The plan so far, for a continuation. */
  readonly base?: Plan;
  readonly reason?: "continue" | "remediation";
}

/** Checks `value` as the next phase of `base` (or as a first plan); a plan carries its phases, each new step its phase. */
export function checkPhase(check: PlanChecker, value: unknown, request: string, { base, reason = "continue" }: PhaseCheckOptions = {}): PlanCheck {
  if (!isObject(value)) return check(value, request);
  const { clarification, problems } = clarificationOf(value);
  if (problems.length > 0) return { problems, hallucinated: [] };
  const answered = Array.isArray(value["steps"]) ? (value["steps"] as unknown[]) : clarification !== undefined ? [] : undefined;
  // Not a plan at all (the unparsed marker, no steps): the checker says so.
  if (answered === undefined) return check(value, request);
  const earlier = base?.steps ?? [];
  const checked = check({ steps: [...earlier, ...answered] }, request);
  if (checked.plan === undefined) return { ...checked, problems: checked.problems.map((p) => inAnswer(p, earlier)) };
  const phase = base === undefined ? 1 : phaseOf(base) + 1;
  const added = checked.plan.steps.slice(earlier.length).map((step) => ({ ...step, phase }));
  const current: PlanPhase = {
    phase,
    step_ids: added.map((s) => s.step_id),
    // A phase that adds no step has nothing new to continue from: the loop ends, whatever it says.
    continue: clarification === undefined && added.length > 0 && value["continue"] === true,
    reason: base === undefined ? "request" : reason,
  };
  const plan: Plan = {
    ...checked.plan,
    ...(base === undefined ? {} : { plan_id: base.plan_id }),
    steps: [...earlier, ...added],
    phases: [...(base === undefined ? [] : phasesOf(base)), current],
    ...(clarification === undefined ? {} : { clarification }),
  };
  return { ...checked, plan };
}
