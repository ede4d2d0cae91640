// The feature list alone: the agent index would load the whole serving runtime into gen.
import { agentOpenApi } from "../../runtime/agent/features.js";
// The OpenAPI part alone: the MCP index is light, but gen needs no more than this.
import { mcpOpenApi } from "../../runtime/mcp/openapi.js";
import { buildOpenApi, schemaName } from "../../runtime/spec/openapi.js";
import {
  servedWorkflows,
  taskInputSchema,
  taskOutputSchema,
  taskTypeStem,
  workflowOutputSchema,
  workflowRequestSchema,
  workflowTypeStem,
} from "../../runtime/spec/agent-schemas.js";
import { DRAFT_07, capabilitySchema, type JsonSchema } from "../../runtime/spec/json-schema.js";
import type { ComponentSpec } from "../../runtime/spec/types.js";

/** Stable JSON text: two-space indent, trailing newline; key order is the builders' insertion order. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The emitted document lists `/mcp` when the manifest says `mcp: true` (MANIFOLD_MCP_ENABLED alone serves it undocumented here). */
export function emitOpenApi(spec: ComponentSpec): string {
  return jsonText(buildOpenApi(spec, { additions: [...agentOpenApi(spec.agent), ...(spec.mcp === true ? [mcpOpenApi] : [])] }));
}

/** `schemas/<capability>Input.json` and `…Output.json`, one per declared summary. */
export function emitSchemas(spec: ComponentSpec): Map<string, string> {
  const files = new Map<string, string>();
  for (const capability of spec.capabilities) {
    for (const side of ["input", "output"] as const) {
      const schema = capabilitySchema(capability, side, schemaName(capability, side));
      if (schema === undefined) continue;
      files.set(`schemas/${capability.name}${side === "input" ? "Input" : "Output"}.json`, jsonText(schema));
    }
  }
  const agent = spec.agent;
  if (agent === undefined) return files;
  const document = (title: string, description: string, schema: JsonSchema): string => jsonText({ $schema: DRAFT_07, title, description, ...schema });
  // Under their own folders: a capability may share a workflow's or a task type's name.
  for (const workflow of servedWorkflows(agent)) {
    const stem = workflowTypeStem(workflow);
    files.set(
      `schemas/workflows/${workflow.name}Input.json`,
      document(`${stem}WorkflowInput`, `Body of POST /orchestrate/${workflow.name}`, workflowRequestSchema(workflow, "draft-07")),
    );
    files.set(
      `schemas/workflows/${workflow.name}Output.json`,
      document(`${stem}WorkflowOutput`, `Outputs of workflow ${workflow.name}`, workflowOutputSchema(workflow, "draft-07")),
    );
  }
  for (const task of agent.tasks) {
    const stem = taskTypeStem(task);
    files.set(
      `schemas/tasks/${task.type}Input.json`,
      document(`${stem}TaskInput`, `Input of task type ${task.type}`, taskInputSchema(agent, task, "draft-07")),
    );
    files.set(
      `schemas/tasks/${task.type}Result.json`,
      document(`${stem}TaskResult`, `Result of task type ${task.type}`, taskOutputSchema(agent, task, "draft-07")),
    );
  }
  return files;
}
