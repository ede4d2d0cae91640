/**
 * Schemas of the endpoints an agent gets from the framework: `/orchestrate/<workflow>` (inputs as
 * top-level fields, typed outputs), `/orchestrate/custom`, and `/api/v1/tasks`. One builder serves the
 * emitted JSON Schemas, the OpenAPI document and run-time validation, so they cannot disagree.
 */
import { objectSchema, valueSchema, type JsonSchema, type SchemaDialect } from "./json-schema.js";
import { toPascalCase } from "./names.js";
import type { AgentSpec, FieldSpec, FieldsSpec, TaskTypeSpec, WorkflowSpec } from "./types.js";

/**
 * One step of a routing plan, as a language model writes it and as `/orchestrate/natural` answers
 * it (the `RoutingPlan` of the OpenAPI document); the model's `response_format` schema is built on it.
 */
export const PLAN_STEP_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    step_id: { type: "string" },
    agent_name: { type: "string" },
    depends_on: { type: "array", items: { type: "string" } },
    metadata: {
      type: "object",
      properties: { capability: { type: "string" }, parameters: { type: "object", additionalProperties: true } },
      required: ["capability", "parameters"],
    },
  },
  required: ["step_id", "agent_name", "depends_on", "metadata"],
};

/** The framework's own body field on workflow endpoints; a workflow input may not take its name. */
export const AI_SYNTHESIS_FIELD = "ai_synthesis";

/**
 * A workflow's inputs as the fields of its request body, with their whole shape (`enum`, `items`,
 * `fields`, `maxLength`): the endpoint's validation, the task schema and the generated types all come
 * from here, so a body that does not fit is a 400 before any step runs.
 */
export function workflowInputFields(workflow: WorkflowSpec): FieldsSpec {
  const field = ({ required: _required, ...shape }: WorkflowSpec["inputs"][number]): FieldSpec => shape;
  return {
    required: workflow.inputs.filter((i) => i.required).map(field),
    optional: workflow.inputs.filter((i) => !i.required).map(field),
  };
}

/** The body of `POST /orchestrate/<workflow>`: its inputs plus the optional `ai_synthesis` flag. */
export function workflowRequestSchema(workflow: WorkflowSpec, dialect: SchemaDialect): JsonSchema {
  const schema = objectSchema(workflowInputFields(workflow), dialect);
  schema["properties"] = {
    ...(schema["properties"] as JsonSchema),
    [AI_SYNTHESIS_FIELD]: { type: "boolean", description: "Also return a language-model synthesis of the outputs (needs orchestration.natural)" },
  };
  return schema;
}

/** The typed `outputs` of a workflow run; an output whose type cannot be known statically is `{}` (any JSON). */
export function workflowOutputSchema(workflow: WorkflowSpec, dialect: SchemaDialect): JsonSchema {
  const properties: JsonSchema = Object.fromEntries(workflow.outputs.map((o) => [o.name, o.type === undefined ? {} : valueSchema(o.type, dialect)]));
  const required = workflow.outputs.filter((o) => o.required).map((o) => o.name);
  const schema: JsonSchema = { type: "object", properties };
  if (required.length > 0) schema["required"] = required;
  schema["additionalProperties"] = false;
  return schema;
}

/** The workflow a task type runs, looked up in the agent's workflows. */
export function taskWorkflow(agent: AgentSpec, task: TaskTypeSpec): WorkflowSpec | undefined {
  return task.workflow === undefined ? undefined : agent.orchestration.workflows.find((w) => w.name === task.workflow);
}

/** A task type's `input` schema: its declared fields, its workflow's inputs, or any object. */
export function taskInputSchema(agent: AgentSpec, task: TaskTypeSpec, dialect: SchemaDialect): JsonSchema {
  const workflow = taskWorkflow(agent, task);
  if (workflow !== undefined) return objectSchema(workflowInputFields(workflow), dialect);
  return task.input === undefined ? { type: "object" } : objectSchema(task.input, dialect);
}

/** A task type's `result` schema: its declared fields, its workflow's outputs, or any object. */
export function taskOutputSchema(agent: AgentSpec, task: TaskTypeSpec, dialect: SchemaDialect): JsonSchema {
  const workflow = taskWorkflow(agent, task);
  if (workflow !== undefined) return workflowOutputSchema(workflow, dialect);
  return task.output === undefined ? { type: "object" } : objectSchema(task.output, dialect);
}

/** `TravelResearch` for `travel-research`: the stem of a workflow's schema and type names. */
export function workflowTypeStem(workflow: Pick<WorkflowSpec, "name">): string {
  return toPascalCase(workflow.name);
}

/** `Research` for task type `research`. */
export function taskTypeStem(task: Pick<TaskTypeSpec, "type">): string {
  return toPascalCase(task.type);
}

/** Workflows served under `/orchestrate/<name>`, in name order. */
export function servedWorkflows(agent: AgentSpec): WorkflowSpec[] {
  return agent.orchestration.endpoints.flatMap((name) => agent.orchestration.workflows.filter((w) => w.name === name));
}
