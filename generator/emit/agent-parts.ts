/**
 * The agent-only part of an agent's index.ts: types of its served workflows (inputs and typed
 * outputs) and of its task types. The handle (`defineAgent`) turns them into `workflows()`,
 * `tasks()` and the `tasks` handlers of `serve()`; nothing here runs.
 */
import { servedWorkflows, taskTypeStem, taskWorkflow, workflowInputFields, workflowTypeStem } from "../../runtime/spec/agent-schemas.js";
import { toCamelCase } from "../../runtime/spec/names.js";
import type { AgentSpec, TaskTypeSpec, WorkflowSpec } from "../../runtime/spec/types.js";
import { docComment, propertyKey } from "./ts-text.js";
import { objectType, valueType } from "./types.js";

const UNDECLARED = "Record<string, unknown>";

function workflowOutputType(workflow: WorkflowSpec): string {
  if (workflow.outputs.length === 0) return "Record<string, never>";
  const members = workflow.outputs.map((o) => {
    const type = o.type === undefined ? "unknown" : valueType(o.type, "  ");
    return `${docComment(o.type?.description, "  ")}  ${propertyKey(o.name)}${o.required ? "" : "?"}: ${type};\n`;
  });
  return `{\n${members.join("")}}`;
}

function declaration(name: string, body: string, doc: string): string {
  return body.startsWith("{") ? `${docComment(doc)}export interface ${name} ${body}\n` : `${docComment(doc)}export type ${name} = ${body};\n`;
}

function workflowParts(workflow: WorkflowSpec): string[] {
  const stem = workflowTypeStem(workflow);
  const what = workflow.description === undefined ? "" : `: ${workflow.description}`;
  return [
    declaration(`${stem}WorkflowInput`, objectType(workflowInputFields(workflow), ""), `Inputs of workflow \`${workflow.name}\`${what}`),
    declaration(`${stem}WorkflowOutput`, workflowOutputType(workflow), `Outputs of workflow \`${workflow.name}\``),
  ];
}

function taskParts(agent: AgentSpec, task: TaskTypeSpec): string[] {
  const stem = taskTypeStem(task);
  const workflow = taskWorkflow(agent, task);
  const what = task.description === undefined ? "" : `: ${task.description}`;
  if (workflow !== undefined) {
    const wf = workflowTypeStem(workflow);
    return [
      `${docComment(`Input of task type \`${task.type}\` (workflow \`${workflow.name}\`)${what}`)}export type ${stem}TaskInput = ${wf}WorkflowInput;\n`,
      `${docComment(`Result of task type \`${task.type}\``)}export type ${stem}TaskResult = ${wf}WorkflowOutput;\n`,
    ];
  }
  return [
    declaration(`${stem}TaskInput`, task.input === undefined ? UNDECLARED : objectType(task.input, ""), `Input of task type \`${task.type}\`${what}`),
    declaration(`${stem}TaskResult`, task.output === undefined ? UNDECLARED : objectType(task.output, ""), `Result of task type \`${task.type}\``),
  ];
}

/** The scheduled handler's input (the manifest's `scheduled.input`, else any object) and its type, by the agent's name. */
function scheduledParts(handle: string, agent: AgentSpec): string[] {
  const input = agent.scheduledInput === undefined ? "Readonly<Record<string, unknown>>" : objectType(agent.scheduledInput, "");
  return [
    // A type alias, not an interface: an object type alias is assignable to the runtime's default
    // (`Readonly<Record<string, unknown>>`), so \`serve({ scheduled })\` takes the typed handler.
    `${docComment("The `input` of a scheduled run (`scheduled.input`), checked before the handler runs")}export type ${handle}ScheduledInput = ${input};\n`,
    `${docComment(`The \`scheduled\` handler of \`${handle}.serve()\`, typed by \`${handle}ScheduledInput\`.`)}export type ${handle}ScheduledHandler = ScheduledHandler<${handle}ScheduledInput>;\n`,
  ];
}

export interface AgentTypeNames {
  readonly workflows: string;
  readonly tasks: string;
}

/** Type declarations, then the two maps `defineAgent` takes as type arguments. */
export function emitAgentTypes(handle: string, agent: AgentSpec): { parts: string[]; names: AgentTypeNames } {
  const workflows = servedWorkflows(agent);
  // Every workflow the agent serves or a task runs gets its types (a task's types refer to them).
  const parts = [...agent.orchestration.workflows.flatMap(workflowParts), ...agent.tasks.flatMap((t) => taskParts(agent, t))];
  const names: AgentTypeNames = { workflows: `${handle}Workflows`, tasks: `${handle}Tasks` };
  const workflowMembers = workflows.map((w) => {
    const stem = workflowTypeStem(w);
    return `${docComment(w.description, "  ")}  ${toCamelCase(w.name)}: { input: ${stem}WorkflowInput; output: ${stem}WorkflowOutput };\n`;
  });
  const taskMembers = agent.tasks.map((t) => {
    const stem = taskTypeStem(t);
    const runs = t.workflow === undefined ? "false" : "true";
    return `${docComment(t.description, "  ")}  ${t.key}: { input: ${stem}TaskInput; output: ${stem}TaskResult; workflow: ${runs} };\n`;
  });
  if (agent.scheduled === true) parts.push(...scheduledParts(handle, agent));
  parts.push(
    `${docComment(`Workflow key → inputs and outputs of the workflows ${handle} serves under /orchestrate.`)}export type ${names.workflows} = ${workflowMembers.length === 0 ? "{}" : `{\n${workflowMembers.join("")}}`};\n`,
    `${docComment(`Task type key → input and result; \`workflow: true\` types need no handler.`)}export type ${names.tasks} = ${taskMembers.length === 0 ? "{}" : `{\n${taskMembers.join("")}}`};\n`,
  );
  return { parts, names };
}
