/**
 * Custom mode: `POST /orchestrate/custom` with `{steps: [{tool, capability, params?}]}`. The body is
 * validated strictly (400 INVALID_INPUT with JSON pointers); what the steps name is not: an unknown
 * tool or capability is that step's failure (NOT_FOUND), reported in its entry like any other, since
 * whether a name exists is a fact of the live network, not of the request's shape.
 */
import { compileValidator, type InputValidator } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import type { ExecutionResult, StepError } from "./executor.js";
import type { CustomStep } from "./plan.js";

/** Longest step list a custom request may carry. */
export const MAX_CUSTOM_STEPS = 100;

const CUSTOM_BODY_SCHEMA = {
  type: "object",
  required: ["steps"],
  additionalProperties: false,
  properties: {
    steps: {
      type: "array",
      minItems: 1,
      maxItems: MAX_CUSTOM_STEPS,
      items: {
        type: "object",
        required: ["tool", "capability"],
        additionalProperties: false,
        properties: {
          tool: { type: "string", minLength: 1, maxLength: 128 },
          capability: { type: "string", minLength: 1, maxLength: 128 },
          params: { type: "object" },
        },
      },
    },
  },
} as const;

let validate: InputValidator | undefined;

/** The body's steps, or INVALID_INPUT listing every violation with its pointer. */
export function parseCustomBody(body: unknown): readonly CustomStep[] {
  validate ??= compileValidator(CUSTOM_BODY_SCHEMA);
  const details = validate(body);
  if (details !== undefined) throw new ManifoldError("INVALID_INPUT", "custom request body is not valid", { details });
  return (body as { steps: CustomStep[] }).steps;
}

export interface CustomStepEntry {
  readonly step_id: string;
  readonly tool: string;
  readonly capability: string;
  readonly success: boolean;
  readonly error: StepError | null;
  readonly output?: unknown;
  readonly duration_ms: number;
}

export interface CustomResponse {
  /** True when every step succeeded. */
  readonly success: boolean;
  readonly plan_id: string;
  readonly mode: "custom";
  readonly steps: readonly CustomStepEntry[];
  readonly duration_ms: number;
}

/** The wire answer: one entry per step in request order, a failure in its own entry. */
export function customResponse(result: ExecutionResult): CustomResponse {
  const steps = result.steps.map((step): CustomStepEntry => {
    const error = step.status === "completed" ? null : (step.error ?? { code: "ABORTED", message: step.reason ?? "the step did not run" });
    return {
      step_id: step.step_id,
      tool: step.component,
      capability: step.capability,
      success: step.status === "completed",
      error,
      ...(step.status === "completed" ? { output: step.output } : {}),
      duration_ms: step.duration_ms,
    };
  });
  return { success: steps.every((s) => s.success), plan_id: result.plan_id, mode: "custom", steps, duration_ms: result.duration_ms };
}
