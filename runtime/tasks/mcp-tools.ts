/**
 * An agent's task types as MCP tools (issue 34): `start_task` `{type, input, timeout?}` →
 * `{task_id, status, status_url}` and `task_status` `{task_id}` → the task's view, the same checks
 * and answers as `POST /api/v1/tasks` and `GET /api/v1/tasks/<id>`.
 *
 * MCP's own long-running operations (task-augmented `tools/call`, `tasks/get`) exist in SDK 1.x only
 * under `experimental` ("may change without notice") and few hosts speak them, so a start/status pair
 * that any host can call is what an agent serves; the task record stays the one in the task backend.
 */
import type { McpTool } from "../component/index.js";
import { ManifoldError } from "../errors/index.js";
import { taskInputSchema, type ComponentSpec, type JsonSchema } from "../spec/index.js";
import { getTelemetry, type Logger, type TraceContext } from "../telemetry/index.js";
import { enqueueTask, isTaskId } from "./api.js";
import { createSubmitParser } from "./submit.js";
import type { TaskBackend } from "./types.js";
import { toTaskView } from "./view.js";

export const START_TASK_TOOL = "start_task";
export const TASK_STATUS_TOOL = "task_status";

export interface TaskMcpToolsOptions {
  /** The backend, resolved on first use (the extension creates it lazily). */
  readonly backend: () => Promise<TaskBackend>;
  readonly log: Logger;
  /** @defaultValue 24 h */
  readonly maxTimeoutMs?: number;
  /** @defaultValue 256 KiB */
  readonly maxInputBytes?: number;
}

/** `start_task`'s arguments: `type` one of the agent's task types, `input` typed by that type's schema. */
function startInput(spec: ComponentSpec): JsonSchema {
  const agent = spec.agent;
  const types = agent?.tasks ?? [];
  return {
    type: "object",
    properties: {
      type: { type: "string", enum: types.map((t) => t.type), description: "The task type" },
      input: { type: "object", description: "The task type's input (default {})" },
      timeout: { type: "string", description: 'How long the task may run: a duration such as "90s", "10m" or "2h" (default: the task type\'s)' },
    },
    required: ["type"],
    additionalProperties: false,
    // Each type's own input schema, so a host sees (and the call is checked against) the fields it takes.
    ...(agent === undefined
      ? {}
      : {
          allOf: types.map((t) => ({
            if: { properties: { type: { const: t.type } }, required: ["type"] },
            // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
            then: { properties: { input: taskInputSchema(agent, t, "draft-07") } },
          })),
        }),
  };
}

const START_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    task_id: { type: "string" },
    status: { type: "string", enum: ["queued"] },
    status_url: { type: "string", description: "GET it on the agent (relative to its URL), or call task_status" },
  },
  required: ["task_id", "status", "status_url"],
};

const STATUS_INPUT: JsonSchema = {
  type: "object",
  properties: { task_id: { type: "string", minLength: 1, maxLength: 200, description: "The id start_task answered" } },
  required: ["task_id"],
  additionalProperties: false,
};

const STATUS_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    task_id: { type: "string" },
    type: { type: "string" },
    status: { type: "string", enum: ["queued", "running", "completed", "failed", "cancelled"] },
    progress: { type: "object" },
    result: { description: "Present once completed" },
    error: { type: "object", description: "Present once failed or cancelled: code and message" },
    created_at: { type: "string" },
    started_at: { type: "string" },
    completed_at: { type: "string" },
  },
  required: ["task_id", "type", "status", "created_at"],
};

/** The caller's trace, kept with the task so the worker's span links to it: the MCP request's span. */
function currentTrace(): TraceContext | undefined {
  const ids = getTelemetry().currentIds();
  return ids === undefined ? undefined : { traceparent: `00-${ids.traceId}-${ids.spanId}-01` };
}

/** The pair, without a tool whose name a capability of the agent already serves (the author's name wins; warned). */
export function createTaskMcpTools(spec: ComponentSpec, { backend, log, maxTimeoutMs, maxInputBytes }: TaskMcpToolsOptions): McpTool[] {
  const parser = createSubmitParser(spec, {
    ...(maxTimeoutMs === undefined ? {} : { maxTimeoutMs }),
    ...(maxInputBytes === undefined ? {} : { maxInputBytes }),
  });
  const tools: McpTool[] = [
    {
      name: START_TASK_TOOL,
      description: `Start one of ${spec.name}'s asynchronous tasks; it answers at once with the task id to pass to ${TASK_STATUS_TOOL}.`,
      inputSchema: startInput(spec),
      outputSchema: START_OUTPUT,
      async call(args) {
        const submitted = await enqueueTask(await backend(), parser.parse(args), currentTrace());
        return {
          structured: { ...submitted },
          text: `Task ${submitted.task_id} is queued; call ${TASK_STATUS_TOOL} with {"task_id": "${submitted.task_id}"} for its status and result.`,
        };
      },
    },
    {
      name: TASK_STATUS_TOOL,
      description: `The status of a task of ${spec.name} started with ${START_TASK_TOOL}: queued, running (with progress), completed (with its result), failed or cancelled.`,
      inputSchema: STATUS_INPUT,
      outputSchema: STATUS_OUTPUT,
      async call({ task_id: taskId }) {
        const task = isTaskId(taskId) ? await (await backend()).get(taskId) : undefined;
        if (task === undefined) throw new ManifoldError("NOT_FOUND", `no task ${JSON.stringify(String(taskId).slice(0, 80))}`);
        return { structured: { ...toTaskView(task) } };
      },
    },
  ];
  const capabilities = new Set(spec.capabilities.filter((c) => !c.internal).map((c) => c.name));
  return tools.filter((tool) => {
    if (!capabilities.has(tool.name)) return true;
    log.warn(`MCP: ${spec.name} serves ${tool.name} (its task types) as no tool: a capability of ${spec.name} already has the name ${tool.name}`);
    return false;
  });
}
