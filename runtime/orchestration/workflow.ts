/**
 * Predefined workflows: the checked `WorkflowSpec`s of workflow manifests (`${…}` expressions), and
 * the programmatic `defineWorkflow` whose steps use the seed's `{{…}}` templates. Both become a plan
 * for the one executor.
 */
import { compileValidator, type InputValidator } from "../component/index.js";
import { ManifoldError, type ErrorDetail } from "../errors/index.js";
import { objectSchema } from "../spec/index.js";
import { workflowInputFields, workflowRequestSchema } from "../spec/index.js";
import type { WorkflowSpec } from "../spec/index.js";
import type { ExecutionResult } from "./executor.js";
import { compileValue, type ExpressionScope } from "./expressions.js";
import { findCycle, newPlanId, type OnError, type Plan, type PlanStep } from "./plan.js";

const validators = { inputs: new WeakMap<WorkflowSpec, InputValidator>(), request: new WeakMap<WorkflowSpec, InputValidator>() };

function validatorOf(spec: WorkflowSpec, kind: "inputs" | "request"): InputValidator {
  let validate = validators[kind].get(spec);
  if (validate === undefined) {
    validate = compileValidator(kind === "inputs" ? objectSchema(workflowInputFields(spec), "draft-07") : workflowRequestSchema(spec, "draft-07"));
    validators[kind].set(spec, validate);
  }
  return validate;
}

/**
 * Checks a workflow's inputs (required ones present, types, no unknown field), compiled once per
 * workflow. `request`: the endpoint body, which may also carry `ai_synthesis`.
 */
export function checkWorkflowInputs(spec: WorkflowSpec, value: unknown, kind: "inputs" | "request" = "inputs"): Record<string, unknown> {
  const details = validatorOf(spec, kind)(value);
  if (details !== undefined) throw new ManifoldError("INVALID_INPUT", `inputs of workflow ${spec.name} are not valid`, { details });
  return value as Record<string, unknown>;
}

/** A scope over a finished run: completed steps' outputs by step id. */
export function resultScope(inputs: unknown, result: ExecutionResult): ExpressionScope {
  const outputs = new Map<string, unknown>();
  for (const step of result.steps) if (step.status === "completed") outputs.set(step.step_id, step.output);
  return { inputs, output: (id) => outputs.get(id) };
}

const compiledOutputs = new WeakMap<WorkflowSpec, readonly { readonly name: string; readonly evaluate: (scope: ExpressionScope) => unknown }[]>();

/** The workflow's `outputs`, resolved from what the run produced (compiled once per workflow); an absent value is left out. */
export function resolveOutputs(spec: WorkflowSpec, scope: ExpressionScope): Record<string, unknown> {
  let compiled = compiledOutputs.get(spec);
  if (compiled === undefined) {
    compiled = spec.outputs.map((output) => ({ name: output.name, evaluate: compileValue(output.value, "dollar", `/outputs/${output.name}`).evaluate }));
    compiledOutputs.set(spec, compiled);
  }
  const outputs: Record<string, unknown> = {};
  for (const { name, evaluate } of compiled) {
    const value = evaluate(scope);
    if (value !== undefined) outputs[name] = value;
  }
  return outputs;
}

/** One step of a programmatic workflow (the seed's shape). */
export interface WorkflowStepDefinition {
  /** Letters, digits, `_` and `-`, starting with a letter; not `input`. */
  readonly id: string;
  /** The component called. */
  readonly tool: string;
  readonly capability: string;
  readonly dependsOn?: readonly string[];
  /** The capability input; strings may hold `{{input…}}` and `{{<step>.response.data…}}` templates. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly timeoutMs?: number;
  /** @defaultValue 0 */
  readonly retry?: number;
  /** @defaultValue "fail" */
  readonly onError?: OnError;
}

export interface WorkflowDefinition {
  readonly name: string;
  readonly steps: readonly WorkflowStepDefinition[];
}

const STEP_ID = /^[A-Za-z][A-Za-z0-9_-]{0,127}$/;

/**
 * The plan steps of a programmatic workflow, checked once: ids, dependencies, templates (a step a
 * template reads becomes a dependency, as the YAML checker does), no cycle. Throws INVALID_WORKFLOW
 * with a pointer per problem.
 */
export function planStepsOf(definition: WorkflowDefinition): readonly PlanStep[] {
  const details: ErrorDetail[] = [];
  const problem = (pointer: string, message: string): void => void details.push({ pointer, message });
  if (typeof definition?.name !== "string" || definition.name === "") problem("/name", "must be a non-empty string");
  if (!Array.isArray(definition?.steps) || definition.steps.length === 0) {
    problem("/steps", "must be a non-empty array");
    throw new ManifoldError("INVALID_WORKFLOW", "workflow definition is not valid", { details });
  }
  const ids = new Set(definition.steps.map((s) => s.id));
  const seen = new Set<string>();
  const steps = definition.steps.map((step, i): PlanStep => {
    const at = `/steps/${i}`;
    if (typeof step.id !== "string" || !STEP_ID.test(step.id) || step.id === "input")
      problem(`${at}/id`, "must start with a letter, hold letters, digits, '_' or '-', and not be `input`");
    else if (seen.has(step.id)) problem(`${at}/id`, `duplicate step id ${step.id}`);
    seen.add(step.id);
    if (typeof step.tool !== "string" || step.tool === "") problem(`${at}/tool`, "must be a non-empty string");
    if (typeof step.capability !== "string" || step.capability === "") problem(`${at}/capability`, "must be a non-empty string");
    const deps = new Set<string>();
    (step.dependsOn ?? []).forEach((dep: string, j: number) =>
      ids.has(dep) && dep !== step.id ? deps.add(dep) : problem(`${at}/dependsOn/${j}`, `unknown step ${dep}`),
    );
    const parameters = step.parameters ?? {};
    try {
      for (const ref of compileValue(parameters, "braces", `${at}/parameters`).steps) {
        if (!ids.has(ref) || ref === step.id) problem(`${at}/parameters`, `a template reads step ${ref}, which is not another step of this workflow`);
        else deps.add(ref);
      }
    } catch (error) {
      if (!(error instanceof ManifoldError)) throw error;
      details.push(...(error.details ?? []));
    }
    if (step.retry !== undefined && !(Number.isSafeInteger(step.retry) && step.retry >= 0)) problem(`${at}/retry`, "must be a non-negative integer");
    if (step.timeoutMs !== undefined && !(Number.isFinite(step.timeoutMs) && step.timeoutMs > 0)) problem(`${at}/timeoutMs`, "must be a positive number");
    if (step.onError !== undefined && step.onError !== "fail" && step.onError !== "continue") problem(`${at}/onError`, "must be fail or continue");
    return {
      step_id: step.id,
      agent_name: step.tool,
      depends_on: [...deps].sort(),
      metadata: { capability: step.capability, parameters },
      ...(step.timeoutMs === undefined ? {} : { timeout_ms: step.timeoutMs }),
      ...(step.retry === undefined || step.retry === 0 ? {} : { retry: step.retry }),
      on_error: step.onError ?? "fail",
    };
  });
  if (details.length === 0) {
    const cycle = findCycle(steps);
    if (cycle !== undefined) problem("/steps", `dependency cycle: ${cycle.join(" → ")}`);
  }
  if (details.length > 0) throw new ManifoldError("INVALID_WORKFLOW", `workflow ${String(definition.name)} is not valid`, { details });
  return steps;
}

const checkedDefinitions = new WeakMap<WorkflowDefinition, readonly PlanStep[]>();

/** planStepsOf, once per definition object. */
export function stepsOfDefinition(definition: WorkflowDefinition): readonly PlanStep[] {
  let steps = checkedDefinitions.get(definition);
  if (steps === undefined) checkedDefinitions.set(definition, (steps = planStepsOf(definition)));
  return steps;
}

/** A fresh plan over checked steps: the steps (and their parameter objects) are shared, so templates stay compiled. */
export function planOfDefinition(steps: readonly PlanStep[], input: unknown): Plan {
  return { plan_id: newPlanId("workflow"), original_request: JSON.stringify(input ?? null), mode: "workflow", steps };
}
