/**
 * The task feature's part of an agent's OpenAPI document: submit, get and cancel, tagged `tasks`.
 */
import { addErrorEnvelope, ERROR_RESPONSE as ERROR, jsonContent as json, schemaRef as ref, type OpenApiParts } from "../spec/index.js";
import { taskInputSchema, taskOutputSchema, taskTypeStem } from "../spec/index.js";
import type { JsonSchema } from "../spec/index.js";
import type { AgentSpec } from "../spec/index.js";

function taskView(type: string, result: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: {
      task_id: { type: "string", format: "uuid" },
      type: { type: "string", enum: [type] },
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

/**
 * One schema per task type joined on `type`: a discriminator lets readers and generators pick the
 * branch by the field instead of trying each (and the branches are provably exclusive).
 */
function unionOnType(branches: readonly (readonly [type: string, schema: string])[]): JsonSchema {
  if (branches.length === 1) return ref(branches[0]![1]);
  return {
    oneOf: branches.map(([, schema]) => ref(schema)),
    discriminator: { propertyName: "type", mapping: Object.fromEntries(branches.map(([type, schema]) => [type, `#/components/schemas/${schema}`])) },
  };
}

const TASK_ID_PARAMETER: JsonSchema = { name: "task_id", in: "path", required: true, schema: { type: "string", format: "uuid" } };

/** Adds the task API's paths and schemas, in a fixed order so the emitted file is byte-stable. */
export function addTaskPaths(agent: AgentSpec, { paths, schemas }: OpenApiParts): void {
  const tasks = agent.tasks;
  if (tasks.length === 0) return;
  addErrorEnvelope(schemas);
  const submissions: [string, string][] = [];
  const views: [string, string][] = [];
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
    schemas[`${stem}Task`] = taskView(task.type, ref(`${stem}TaskResult`));
    submissions.push([task.type, `${stem}TaskSubmission`]);
    views.push([task.type, `${stem}Task`]);
  }
  schemas["TaskSubmission"] = unionOnType(submissions);
  schemas["TaskAccepted"] = {
    type: "object",
    properties: { task_id: { type: "string", format: "uuid" }, status: { type: "string", enum: ["queued"] }, status_url: { type: "string" } },
    required: ["task_id", "status", "status_url"],
  };
  schemas["Task"] = unionOnType(views);
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
