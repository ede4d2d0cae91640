/**
 * Asynchronous tasks as an agent feature: `tasks:` in the manifest serves `/api/v1/tasks` and runs
 * workers (as `MANIFOLD_MODE` says). The extension is imported when an agent with tasks starts, so
 * reading the feature list (gen, the manifest layer) does not load the worker pool.
 */
import type { AgentFeature } from "../feature/index.js";
import { checkTasks, linkTasks, normaliseTasks, taskModuleNames, tasksSchema, taskWorkflows } from "./manifest.js";
import type { TaskHandler } from "./handler-context.js";
import type { TasksExtensionOptions } from "./extension.js";
import { addTaskPaths } from "./openapi.js";

// Its manifest part's types, re-exported so that every program that sees this descriptor also sees
// the module augmentations there (the agent spec and raw manifest assembled from the features).
export type * from "./manifest.js";

/** Task type key → input, result, and whether a workflow runs it (then it takes no handler). */
export type AgentTaskTypes = { [key: string]: { input: unknown; output: unknown; workflow: boolean } };

/** Handlers for the task types that do not run a workflow. */
export type AgentTaskHandlers<T extends AgentTaskTypes> = {
  readonly [K in keyof T as T[K]["workflow"] extends true ? never : K]: TaskHandler<T[K]["input"], T[K]["output"]>;
};

/** `tasks` is required exactly when some task type needs handler code. */
type TaskHandlersOption<T extends AgentTaskTypes> = keyof AgentTaskHandlers<T> extends never
  ? { readonly tasks?: AgentTaskHandlers<T> }
  : { readonly tasks: AgentTaskHandlers<T> };

/** The task feature's part of an agent's `serve()` options. */
export type TasksServeOptions<T extends AgentTaskTypes> = TaskHandlersOption<T> & {
  /** Task settings: backend, mode, worker count, lease, shutdown timeout. */
  readonly taskOptions?: Omit<TasksExtensionOptions, "handlers" | "runWorkflow">;
};

export const tasksFeature: AgentFeature<TasksServeOptions<AgentTaskTypes>> = {
  key: "tasks",
  schema: tasksSchema,
  routePrefixes: ["/api/v1"],
  normalise: normaliseTasks,
  check: checkTasks,
  link: linkTasks,
  workflows: taskWorkflows,
  moduleNames: taskModuleNames,
  runsWorkers: (raw) => (raw.tasks ?? []).length > 0,
  optionKeys: ["tasks", "taskOptions"],
  enabled: (agent) => agent.tasks.length > 0,
  openapi: addTaskPaths,
  async build({ tasks, taskOptions = {} }, { spec, orchestration }) {
    const { createTasksExtension } = await import("./extension.js");
    const extension = createTasksExtension(spec, {
      ...taskOptions,
      handlers: (tasks ?? {}) as TasksExtensionOptions["handlers"] & object,
      runWorkflow: (name, input, { signal, progress }) => orchestration.runWorkflow(name, input, { signal, progress }),
    });
    return { extension, healthOnly: extension.healthOnly };
  },
};
