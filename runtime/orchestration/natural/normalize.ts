/**
 * Plan normalisation: the slips a model makes that have one obvious repair are repaired before the
 * check, and every repair is reported (`orchestrator.plan.normalized` with `changes`), never silent:
 * - a step that calls the planning agent itself is dropped (it would plan again, recursively);
 * - a step listing itself in `depends_on` loses that entry;
 * - a step id used twice (in the plan, or by a step of an earlier phase) that no step reads is
 *   renamed `<id>_<n>`; one that a step reads is ambiguous (which step was meant?) and is left for
 *   the check, which sends it back to the model as a duplicate.
 * Anything else is the checker's: a problem sent back to the model.
 */
import { getTelemetry } from "../../telemetry/index.js";
import { llmEventScope } from "./run-context.js";

export interface NormalizeOptions {
  /** The agent that plans: a step naming it is dropped. */
  readonly self?: string;
  /** Step ids taken by earlier phases. */
  readonly taken?: ReadonlySet<string>;
}

export interface Normalized {
  readonly value: unknown;
  /** One sentence per repair, in plan order. */
  readonly changes: readonly string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Ids the answer's steps read: in `depends_on`, or through a `{{<id>.response…}}` template. */
function referencedIds(steps: readonly unknown[]): Set<string> {
  const found = new Set<string>();
  for (const step of steps) {
    if (!isObject(step)) continue;
    const dependsOn = step["depends_on"];
    if (Array.isArray(dependsOn)) for (const id of dependsOn) if (typeof id === "string") found.add(id);
    const text = JSON.stringify(isObject(step["metadata"]) ? (step["metadata"]["parameters"] ?? null) : null) ?? "";
    for (const match of text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\.response\b/g)) found.add(match[1]!);
  }
  return found;
}

/** The repaired answer and what was repaired; an answer that is not an object with a steps array is the checker's. */
export function normalizePlan(value: unknown, { self, taken = new Set() }: NormalizeOptions = {}): Normalized {
  if (!isObject(value) || !Array.isArray(value["steps"])) return { value, changes: [] };
  const changes: string[] = [];
  const used = new Set(taken);
  const answered = value["steps"] as unknown[];
  // A duplicate id some step reads is ambiguous (the earlier step, or the new one?): the check sends it back.
  const referenced = referencedIds(answered);
  const steps: unknown[] = [];
  for (const [i, step] of answered.entries()) {
    if (!isObject(step)) {
      steps.push(step);
      continue;
    }
    const id = step["step_id"];
    if (self !== undefined && step["agent_name"] === self) {
      changes.push(`dropped step ${typeof id === "string" ? id : `#${i}`}: it calls ${self}, the agent that plans`);
      const capability = isObject(step["metadata"]) ? step["metadata"]["capability"] : undefined;
      getTelemetry().event("orchestrator.terminal_synthesis.normalized", {
        ...llmEventScope(),
        dropped_agent: self,
        dropped_capability: typeof capability === "string" ? capability.slice(0, 100) : "",
        remaining_steps: answered.length - 1,
      });
      continue;
    }
    if (typeof id !== "string") {
      steps.push(step);
      continue;
    }
    if (used.has(id)) {
      if (referenced.has(id)) steps.push(step);
      else steps.push(renamed(step, id, used, changes));
      continue;
    }
    used.add(id);
    const dependsOn = step["depends_on"];
    if (Array.isArray(dependsOn) && dependsOn.includes(id)) {
      steps.push({ ...step, depends_on: dependsOn.filter((d) => d !== id) });
      changes.push(`removed ${id} from its own depends_on`);
    } else steps.push(step);
  }
  if (changes.length === 0) return { value, changes };
  getTelemetry().event("orchestrator.plan.normalized", { ...llmEventScope(), changes: JSON.stringify(changes.slice(0, 20)), change_count: changes.length });
  return { value: { ...value, steps }, changes };
}

/** A step whose id is taken and that no step reads: given the next free `<id>_<n>`. */
function renamed(step: Record<string, unknown>, id: string, used: Set<string>, changes: string[]): Record<string, unknown> {
  let n = 2;
  while (used.has(`${id}_${n}`)) n += 1;
  const fresh = `${id}_${n}`;
  used.add(fresh);
  changes.push(`renamed the step id ${id} used twice to ${fresh}`);
  return { ...step, step_id: fresh };
}
