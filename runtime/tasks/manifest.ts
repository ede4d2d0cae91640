/**
 * The tasks feature's part of the manifest format: the `tasks:` list (task types run by a workflow or
 * by handler code), its schema fragment, its types, its normaliser and its checks.
 */
import type {
  FeatureCheckContext,
  FeatureLinkContext,
  ManifestFeature,
  ModuleName,
  NormaliseContext,
  RawAgent,
  RawFields,
  WorkflowReference,
} from "../manifest/index.js";
import { normaliseFields, workflowOutputFields } from "../manifest/served.js";
import { parseDuration, taskTypeStem, toCamelCase, workflowInputFields, type FieldsSpec, type TaskTypeSpec, type WorkflowSpec } from "../spec/index.js";

/** One entry of `tasks:` as written. */
export interface RawTask {
  readonly type: string;
  readonly workflow?: string;
  readonly timeout?: string;
  readonly description?: string;
  readonly input?: RawFields;
  readonly output?: RawFields;
}

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly tasks?: readonly RawTask[];
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** Task types accepted at POST /api/v1/tasks; empty when the agent has none. */
    readonly tasks: readonly TaskTypeSpec[];
  }
}

export const tasksSchema: ManifestFeature["schema"] = {
  property: { description: "Task types accepted at POST /api/v1/tasks.", type: "array", items: { $ref: "#/definitions/task" } },
  definitions: {
    task: {
      title: "task",
      description: "A task type: run by a workflow, or by handler code with its own input and output.",
      type: "object",
      additionalProperties: false,
      required: ["type"],
      properties: {
        type: { $ref: "#/definitions/identifier" },
        workflow: { description: "The workflow that runs the task; its inputs and outputs are the task's.", $ref: "#/definitions/componentName" },
        timeout: { $ref: "#/definitions/duration" },
        description: { description: "What the task does.", type: "string" },
        input: { $ref: "#/definitions/fields" },
        output: { $ref: "#/definitions/fields" },
      },
      if: { required: ["workflow"] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
      then: {
        properties: {
          input: { not: {}, errorMessage: "a task with `workflow` takes its input from the workflow; remove `input` or `workflow`" },
          output: { not: {}, errorMessage: "a task with `workflow` takes its output from the workflow; remove `output` or `workflow`" },
        },
      },
    },
  },
};

/**
 * A workflow task takes the workflow's inputs and returns its outputs. Its `output` is left out (any
 * object) when some output's type cannot be inferred: a FieldSpec needs a type, and claiming one the
 * checker does not know would make a typed client lie.
 */
function normaliseTask(raw: RawTask, workflow: WorkflowSpec | undefined): TaskTypeSpec {
  const timeoutMs = raw.timeout === undefined ? undefined : parseDuration(raw.timeout);
  const input: FieldsSpec | undefined = workflow === undefined ? raw.input && normaliseFields(raw.input) : workflowInputFields(workflow);
  const output: FieldsSpec | undefined = workflow === undefined ? raw.output && normaliseFields(raw.output) : workflowOutputFields(workflow);
  return {
    type: raw.type,
    key: toCamelCase(raw.type),
    ...(raw.description !== undefined && { description: raw.description }),
    ...(raw.workflow !== undefined && { workflow: raw.workflow }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(input !== undefined && { input }),
    ...(output !== undefined && { output }),
  };
}

export function normaliseTasks(raw: RawAgent, { workflows }: NormaliseContext): { tasks: TaskTypeSpec[] } {
  return { tasks: (raw.tasks ?? []).map((task) => normaliseTask(task, task.workflow === undefined ? undefined : workflows.get(task.workflow))) };
}

export function taskWorkflows(raw: RawAgent): WorkflowReference[] {
  return (raw.tasks ?? []).flatMap((task, i) => (task.workflow === undefined ? [] : [{ name: task.workflow, path: ["tasks", i, "workflow"], served: false }]));
}

/** Task types are unique, also after camelCase (they become client keys); timeouts fit in milliseconds. */
export function checkTasks(raw: RawAgent, { report, lineOf, checkFields }: FeatureCheckContext): void {
  const byType = new Map<string, readonly (string | number)[]>();
  const byKey = new Map<string, { readonly type: string; readonly path: readonly (string | number)[] }>();
  (raw.tasks ?? []).forEach((task, i) => {
    const path = ["tasks", i];
    const typePath = [...path, "type"];
    const first = byType.get(task.type);
    const key = toCamelCase(task.type);
    const clash = byKey.get(key);
    if (first !== undefined) {
      report("MF1313", typePath, `task type \`${task.type}\` is declared twice (first on line ${lineOf(first)})`);
    } else if (clash !== undefined) {
      report(
        "MF1316",
        typePath,
        `task types \`${clash.type}\` (line ${lineOf(clash.path)}) and \`${task.type}\` both become \`${key}\` in TypeScript; rename one`,
      );
    } else {
      byType.set(task.type, typePath);
      byKey.set(key, { type: task.type, path: typePath });
    }
    if (task.timeout !== undefined && parseDuration(task.timeout) === undefined) {
      report("MF1418", [...path, "timeout"], `timeout \`${task.timeout}\` of task \`${task.type}\` is not a duration that fits in milliseconds`);
    }
    checkFields(task.input, [...path, "input"]);
    checkFields(task.output, [...path, "output"]);
  });
}

export function linkTasks(raw: RawAgent, { report, knowsWorkflow, didYouMean, workflowNames }: FeatureLinkContext): void {
  (raw.tasks ?? []).forEach((task, i) => {
    if (task.workflow !== undefined && !knowsWorkflow(task.workflow)) {
      report(
        "MF1312",
        ["tasks", i, "workflow"],
        `task \`${task.type}\` runs workflow \`${task.workflow}\`, which has no workflow manifest${didYouMean(task.workflow, workflowNames)}`,
      );
    }
  });
}

export function taskModuleNames(raw: RawAgent): ModuleName[] {
  return (raw.tasks ?? []).flatMap((task, i) =>
    ["TaskInput", "TaskResult"].map((side) => ({
      name: `${taskTypeStem(task)}${side}`,
      path: ["tasks", i, "type"],
      from: `task type \`${task.type}\``,
      kind: "task" as const,
    })),
  );
}
