/**
 * The agent's framework endpoints in its OpenAPI document: one POST per served workflow, custom
 * orchestration, and the task API. Tagged `orchestration` and `tasks` so generators and readers can
 * tell them from the agent's own capabilities.
 */
import {
  servedWorkflows,
  taskInputSchema,
  taskOutputSchema,
  taskTypeStem,
  workflowOutputSchema,
  workflowRequestSchema,
  workflowTypeStem,
} from "./agent-schemas.js";
import type { JsonSchema } from "./json-schema.js";
import type { AgentSpec } from "./types.js";

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema): JsonSchema => ({ "application/json": { schema } });
const ERROR = { description: "Error envelope", content: json(ref("ErrorEnvelope")) };

const ERROR_ENVELOPE: JsonSchema = {
  type: "object",
  properties: {
    success: { type: "boolean", enum: [false] },
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        category: { type: "string" },
        retryable: { type: "boolean" },
        details: {},
      },
      required: ["code", "message", "category", "retryable"],
    },
  },
  required: ["success", "error"],
};

const STEP_RESULT: JsonSchema = {
  type: "object",
  properties: {
    step_id: { type: "string" },
    component: { type: "string" },
    capability: { type: "string" },
    status: { type: "string", enum: ["completed", "failed", "skipped"] },
    output: {},
    error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
    attempts: { type: "integer" },
    duration_ms: { type: "number" },
  },
  required: ["step_id", "status"],
};

const CUSTOM_REQUEST: JsonSchema = {
  type: "object",
  properties: {
    steps: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { tool: { type: "string" }, capability: { type: "string" }, params: { type: "object" } },
        required: ["tool", "capability"],
        additionalProperties: false,
      },
    },
  },
  required: ["steps"],
  additionalProperties: false,
};

const CUSTOM_RESULT: JsonSchema = {
  type: "object",
  properties: {
    success: { type: "boolean" },
    plan_id: { type: "string" },
    mode: { type: "string", enum: ["custom"] },
    steps: {
      type: "array",
      items: {
        type: "object",
        properties: {
          step_id: { type: "string" },
          tool: { type: "string" },
          capability: { type: "string" },
          success: { type: "boolean" },
          error: { type: "object", nullable: true },
          output: {},
          duration_ms: { type: "number" },
        },
        required: ["step_id", "success", "error"],
      },
    },
    duration_ms: { type: "number" },
  },
  required: ["success", "plan_id", "steps"],
};

function taskView(result: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: {
      task_id: { type: "string", format: "uuid" },
      type: { type: "string" },
      status: { type: "string", enum: ["queued", "running", "completed", "failed", "cancelled"] },
      progress: {
        type: "object",
        properties: {
          current_step: { type: "integer" },
          total_steps: { type: "integer" },
          step_name: { type: "string" },
          percentage: { type: "number" },
          message: { type: "string" },
        },
      },
      result,
      error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
      created_at: { type: "string", format: "date-time" },
      started_at: { type: "string", format: "date-time" },
      completed_at: { type: "string", format: "date-time" },
    },
    required: ["task_id", "type", "status", "created_at"],
  };
}

const TASK_ID_PARAMETER: JsonSchema = { name: "task_id", in: "path", required: true, schema: { type: "string", format: "uuid" } };

/** Adds the agent's framework paths and schemas, in a fixed order so the emitted file is byte-stable. */
export function addAgentPaths(agent: AgentSpec, paths: JsonSchema, schemas: JsonSchema): void {
  const workflows = servedWorkflows(agent);
  const custom = agent.orchestration.custom;
  const tasks = agent.tasks;
  if (workflows.length === 0 && !custom && tasks.length === 0) return;
  schemas["ErrorEnvelope"] = ERROR_ENVELOPE;
  if (workflows.length > 0) schemas["WorkflowStepResult"] = STEP_RESULT;

  for (const workflow of workflows) {
    const stem = workflowTypeStem(workflow);
    schemas[`${stem}WorkflowInput`] = workflowRequestSchema(workflow, "openapi-3.0");
    schemas[`${stem}WorkflowOutput`] = workflowOutputSchema(workflow, "openapi-3.0");
    schemas[`${stem}WorkflowResult`] = {
      type: "object",
      properties: {
        success: { type: "boolean", enum: [true] },
        plan_id: { type: "string" },
        workflow: { type: "string", enum: [workflow.name] },
        outputs: ref(`${stem}WorkflowOutput`),
        synthesis: { description: "The language-model synthesis, when ai_synthesis was asked for" },
        steps: { type: "array", items: ref("WorkflowStepResult") },
        duration_ms: { type: "number" },
      },
      required: ["success", "plan_id", "workflow", "outputs", "steps", "duration_ms"],
    };
    paths[`/orchestrate/${workflow.name}`] = {
      post: {
        operationId: `orchestrate${stem}`,
        summary: workflow.description ?? `Run workflow ${workflow.name}`,
        tags: ["orchestration"],
        requestBody: { required: true, content: json(ref(`${stem}WorkflowInput`)) },
        responses: {
          "200": { description: "The workflow's outputs and every step's result", content: json(ref(`${stem}WorkflowResult`)) },
          "400": ERROR,
          "502": { description: "A step failed; `details` lists every step", content: json(ref("ErrorEnvelope")) },
        },
      },
    };
  }

  if (custom) {
    schemas["CustomOrchestrationRequest"] = CUSTOM_REQUEST;
    schemas["CustomOrchestrationResult"] = CUSTOM_RESULT;
    paths["/orchestrate/custom"] = {
      post: {
        operationId: "orchestrateCustom",
        summary: "Run an inline list of capability calls, strictly in order",
        tags: ["orchestration"],
        requestBody: { required: true, content: json(ref("CustomOrchestrationRequest")) },
        responses: { "200": { description: "One entry per step, failed steps reported in place", content: json(ref("CustomOrchestrationResult")) }, "400": ERROR },
      },
    };
  }

  if (tasks.length === 0) return;
  const submissions: JsonSchema[] = [];
  const views: JsonSchema[] = [];
  for (const task of tasks) {
    const stem = taskTypeStem(task);
    schemas[`${stem}TaskInput`] = taskInputSchema(agent, task, "openapi-3.0");
    schemas[`${stem}TaskResult`] = taskOutputSchema(agent, task, "openapi-3.0");
    schemas[`${stem}TaskSubmission`] = {
      type: "object",
      properties: {
        type: { type: "string", enum: [task.type] },
        input: ref(`${stem}TaskInput`),
        timeout: { type: "string", pattern: "^[1-9][0-9]*(ms|s|m|h|d)$", description: "Per-task timeout such as 90s or 10m" },
      },
      required: ["type"],
      additionalProperties: false,
    };
    submissions.push(ref(`${stem}TaskSubmission`));
    views.push(taskView(ref(`${stem}TaskResult`)));
  }
  schemas["TaskSubmission"] = { oneOf: submissions };
  schemas["TaskAccepted"] = {
    type: "object",
    properties: { task_id: { type: "string", format: "uuid" }, status: { type: "string", enum: ["queued"] }, status_url: { type: "string" } },
    required: ["task_id", "status", "status_url"],
  };
  schemas["Task"] = views.length === 1 ? views[0] : { oneOf: views };
  paths["/api/v1/tasks"] = {
    post: {
      operationId: "submitTask",
      summary: "Submit an asynchronous task",
      tags: ["tasks"],
      requestBody: { required: true, content: json(ref("TaskSubmission")) },
      responses: { "202": { description: "Accepted; poll status_url", content: json(ref("TaskAccepted")) }, "400": ERROR },
    },
  };
  paths["/api/v1/tasks/{task_id}"] = {
    get: {
      operationId: "getTask",
      summary: "A task's status, progress, result or error",
      tags: ["tasks"],
      parameters: [TASK_ID_PARAMETER],
      responses: { "200": { description: "The task", content: json(ref("Task")) }, "404": ERROR },
    },
  };
  paths["/api/v1/tasks/{task_id}/cancel"] = {
    post: {
      operationId: "cancelTask",
      summary: "Cancel a queued or running task",
      tags: ["tasks"],
      parameters: [TASK_ID_PARAMETER],
      responses: { "200": { description: "The cancelled task", content: json(ref("Task")) }, "404": ERROR, "409": ERROR },
    },
  };
}
