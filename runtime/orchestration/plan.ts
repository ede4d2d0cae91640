/**
 * The one plan model every front end produces and the executor runs. It is snake_case because it is
 * a wire shape: hooks receive it (and may return a replacement), execution records store it, and a
 * planner (a language model) writes it.
 */
import { findCycles } from "../manifest/dataflow/index.js";
import { ManifoldError, type ErrorDetail } from "../errors/index.js";
import type { WorkflowSpec } from "../spec/index.js";

export type PlanMode = "natural" | "workflow" | "custom" | "yaml";
export type OnError = "fail" | "continue";

export interface PlanStep {
  readonly step_id: string;
  /** The component called (a tool or an agent), by name. */
  readonly agent_name: string;
  /** Steps that must finish before this one starts. */
  readonly depends_on: readonly string[];
  readonly metadata: {
    readonly capability: string;
    /** The capability input; may hold expressions, resolved when the step starts. */
    readonly parameters: Readonly<Record<string, unknown>>;
  };
  /** Per-attempt timeout. @defaultValue the executor's defaultTimeoutMs (30 s) */
  readonly timeout_ms?: number;
  /** Extra attempts after a retryable failure. @defaultValue 0 */
  readonly retry?: number;
  readonly on_error: OnError;
  /** Natural mode: the phase that planned this step (1 for the first plan). */
  readonly phase?: number;
}

/** A step of an earlier phase that did not complete: kept for the answer and the record, never run again. */
export interface UnfinishedStep {
  readonly step_id: string;
  readonly component: string;
  readonly capability: string;
  readonly status: "failed" | "skipped";
  readonly error?: { readonly code: string; readonly message: string };
  readonly reason?: string;
  readonly skipped_because?: string;
  readonly attempts: number;
  readonly duration_ms: number;
  readonly started_at?: string;
}

/** One phase of natural mode's loop: what it planned, and whether it asked for another. */
export interface PlanPhase {
  /** 1-based. */
  readonly phase: number;
  /** The steps this phase added to the plan. */
  readonly step_ids: readonly string[];
  /** The phase's plan said `"continue": true`: a continuation plan is asked for after its steps. */
  readonly continue: boolean;
  /** Why the phase was planned: the first request, a continuation the model asked for, or remediation after failures. */
  readonly reason: "request" | "continue" | "remediation";
  /** Once the phase ran: its steps that failed or were skipped (later phases do not carry them as steps). */
  readonly unfinished?: readonly UnfinishedStep[];
}

/** The model asked the user instead of planning: the request ends with this question, nothing new dispatched. */
export interface Clarification {
  readonly question: string;
  readonly missing_fields: readonly string[];
}

export interface Plan {
  readonly plan_id: string;
  /** What was asked: the natural-language request, or the JSON text of the inputs or body. */
  readonly original_request: string;
  readonly mode: PlanMode;
  /**
   * Natural mode: the steps of every phase so far that completed, then the newest phase's. A resumed
   * run carries them, so it continues the phase loop where it paused.
   */
  readonly steps: readonly PlanStep[];
  /** Natural mode's phase history, oldest first; absent means one phase that asks for no other. */
  readonly phases?: readonly PlanPhase[];
  /** Set when the model answered with a question for the user instead of (further) steps. */
  readonly clarification?: Clarification;
}

/** The phase a plan is in: 1 unless the phase loop added phases. */
export function phaseOf(plan: Plan): number {
  return plan.phases?.length ?? 1;
}

// Unix time in nanoseconds from the monotonic clock, anchored once to the wall clock: ids sort by
// creation, never repeat in a process, and do not jump when the wall clock is adjusted.
const anchor = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
let lastNano = 0n;

/** `<mode>-<unix_nano>`: unique and increasing within a process (`custom-1718000000123456789`). */
export function newPlanId(mode: PlanMode): string {
  let nano = anchor + process.hrtime.bigint();
  if (nano <= lastNano) nano = lastNano + 1n;
  lastNano = nano;
  return `${mode}-${nano}`;
}

/** A checked workflow as a plan: one step per workflow step, parameters still holding `${…}`. */
export function planFromWorkflow(spec: WorkflowSpec, inputs: unknown, mode: "workflow" | "yaml" = "workflow"): Plan {
  return {
    plan_id: newPlanId(mode),
    original_request: JSON.stringify(inputs ?? {}),
    mode,
    steps: spec.steps.map((step) => ({
      step_id: step.name,
      agent_name: step.component,
      depends_on: step.dependsOn,
      metadata: { capability: step.capability, parameters: step.inputs },
      ...(step.timeoutMs === undefined ? {} : { timeout_ms: step.timeoutMs }),
      ...(step.retry === 0 ? {} : { retry: step.retry }),
      on_error: step.onError,
    })),
  };
}

/** One entry of a custom request after validation. */
export interface CustomStep {
  readonly tool: string;
  readonly capability: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * Custom mode: steps `step-1…` in the order given, each continuing past a failure. They carry no
 * `depends_on` (a failed step must not skip the next one); the executor runs them one at a time in
 * plan order instead. The plan's mode is `workflow`, as the spec's routing plan has it for custom
 * plans; its id (`custom-<unix_nano>`), the response and the metrics still say custom.
 */
export function planFromCustom(steps: readonly CustomStep[], body: unknown): Plan {
  return {
    plan_id: newPlanId("custom"),
    original_request: JSON.stringify(body),
    mode: "workflow",
    steps: steps.map((step, index) => ({
      step_id: `step-${index + 1}`,
      agent_name: step.tool,
      depends_on: [],
      metadata: { capability: step.capability, parameters: step.params ?? {} },
      on_error: "continue",
    })),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/**
 * A plan that came from outside the runtime's own converters (a hook's replacement, a planner) is
 * checked before anything runs: shape, unique step ids, known dependencies, no cycle. Problems are
 * INVALID_WORKFLOW with a pointer into the plan.
 */
export function checkPlan(value: unknown, what = "plan"): Plan {
  const details: ErrorDetail[] = [];
  const problem = (pointer: string, message: string): void => void details.push({ pointer, message });
  if (!isObject(value)) throw new ManifoldError("INVALID_WORKFLOW", `${what} is not an object`);
  if (!isText(value["plan_id"])) problem("/plan_id", "must be a non-empty string");
  if (typeof value["original_request"] !== "string") problem("/original_request", "must be a string");
  if (!["natural", "workflow", "custom", "yaml"].includes(value["mode"] as string)) problem("/mode", "must be natural, workflow, custom or yaml");
  const steps = value["steps"];
  if (!Array.isArray(steps)) {
    problem("/steps", "must be an array");
    throw invalidPlan(what, details);
  }
  const ids = new Set<string>();
  steps.forEach((step: unknown, i) => {
    const at = `/steps/${i}`;
    if (!isObject(step)) return problem(at, "must be an object");
    const id = step["step_id"];
    if (!isText(id)) problem(`${at}/step_id`, "must be a non-empty string");
    else if (ids.has(id)) problem(`${at}/step_id`, `duplicate step id ${id}`);
    else ids.add(id);
    if (!isText(step["agent_name"])) problem(`${at}/agent_name`, "must be a non-empty string");
    const metadata = step["metadata"];
    if (!isObject(metadata) || !isText(metadata["capability"])) problem(`${at}/metadata/capability`, "must be a non-empty string");
    else if (!isObject(metadata["parameters"])) problem(`${at}/metadata/parameters`, "must be an object");
    if (!Array.isArray(step["depends_on"]) || !step["depends_on"].every(isText)) problem(`${at}/depends_on`, "must be an array of step ids");
    const timeout = step["timeout_ms"];
    if (timeout !== undefined && !(typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0))
      problem(`${at}/timeout_ms`, "must be a positive number");
    const retry = step["retry"];
    if (retry !== undefined && !(Number.isSafeInteger(retry) && (retry as number) >= 0)) problem(`${at}/retry`, "must be a non-negative integer");
    if (step["on_error"] !== "fail" && step["on_error"] !== "continue") problem(`${at}/on_error`, "must be fail or continue");
  });
  if (details.length === 0) {
    (steps as PlanStep[]).forEach((step, i) =>
      step.depends_on.forEach((dep, j) => {
        if (!ids.has(dep)) problem(`/steps/${i}/depends_on/${j}`, `unknown step ${dep}`);
        else if (dep === step.step_id) problem(`/steps/${i}/depends_on/${j}`, "a step cannot depend on itself");
      }),
    );
  }
  if (details.length === 0) {
    const cycle = findCycle(steps as PlanStep[]);
    if (cycle !== undefined) problem("/steps", `dependency cycle: ${cycle.join(" → ")}`);
  }
  if (details.length > 0) throw invalidPlan(what, details);
  return value as unknown as Plan;
}

function invalidPlan(what: string, details: readonly ErrorDetail[]): ManifoldError {
  const [first] = details;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : "";
  return new ManifoldError("INVALID_WORKFLOW", `${what} is not a valid plan: ${first?.pointer} ${first?.message}${more}`, { details });
}

/**
 * A cycle as the step ids along it, each needing the next, the first repeated at the end; or
 * undefined. The data-flow checker's cycle finder (iterative Tarjan), so a plan and a workflow
 * manifest name the same cycle the same way and a long chain cannot overflow the stack.
 */
export function findCycle(steps: readonly PlanStep[]): string[] | undefined {
  const graph = new Map(steps.map((step) => [step.step_id, step.depends_on.map((to) => ({ to, where: undefined }))]));
  const [first] = findCycles(
    steps.map((step) => step.step_id),
    graph,
  );
  return first === undefined ? undefined : [...first.steps];
}
