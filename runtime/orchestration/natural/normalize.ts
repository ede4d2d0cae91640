/**
 * Plan normalisation: the slips a model makes that have one obvious repair are repaired before the
 * check, and every repair is reported (`orchestrator.plan.normalized` with `changes`), never silent:
 * - a step that calls the planning agent itself is dropped (it would plan again, recursively);
 * - a step listing itself in `depends_on` loses that entry;
 * - a step id used twice (in the plan, or by a step of an earlier phase) is renamed `<id>_<n>`;
 *   references keep naming the first step with that id, so the check reports any that meant the new one.
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

/** The repaired answer and what was repaired; an answer that is not an object with a steps array is the checker's. */
export function normalizePlan(value: unknown, { self, taken = new Set() }: NormalizeOptions = {}): Normalized {
  if (!isObject(value) || !Array.isArray(value["steps"])) return { value, changes: [] };
  const changes: string[] = [];
  const used = new Set(taken);
  const steps: unknown[] = [];
  for (const [i, step] of (value["steps"] as unknown[]).entries()) {
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
        remaining_steps: (value["steps"] as unknown[]).length - 1,
      });
      continue;
    }
    let repaired = step;
    const dependsOn = step["depends_on"];
    if (typeof id === "string" && Array.isArray(dependsOn) && dependsOn.includes(id)) {
      repaired = { ...repaired, depends_on: dependsOn.filter((d) => d !== id) };
      changes.push(`removed ${id} from its own depends_on`);
    }
    if (typeof id === "string" && used.has(id)) {
      let n = 2;
      while (used.has(`${id}_${n}`)) n += 1;
      const renamed = `${id}_${n}`;
      repaired = { ...repaired, step_id: renamed };
      changes.push(`renamed the step id ${id} used twice to ${renamed}`);
      used.add(renamed);
    } else if (typeof id === "string") used.add(id);
    steps.push(repaired);
  }
  if (changes.length === 0) return { value, changes };
  getTelemetry().event("orchestrator.plan.normalized", { ...llmEventScope(), changes: JSON.stringify(changes.slice(0, 20)), change_count: changes.length });
  return { value: { ...value, steps }, changes };
}
