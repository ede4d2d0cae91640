/**
 * The agent half of the codegen entry: `defineAgent` composes a component with the framework
 * features its manifest enables (workflow and custom orchestration, tasks) and adds typed clients
 * for them. Generated agent modules pass the types; everything that runs lives in the runtime folders.
 */
import type { ComponentExtension } from "../../component/extension.js";
import type { CallOptions, CapabilityTypes, ClientOptions, ComponentOptions, RunningComponent } from "../../component/types.js";
import { createClientSend } from "../../component/client.js";
import { serveComponent } from "../../component/serve.js";
import { createOrchestrationExtension, type OrchestrationOptions } from "../../orchestration/index.js";
import { AI_SYNTHESIS_FIELD, servedWorkflows } from "../../spec/agent-schemas.js";
import { toCamelCase } from "../../spec/names.js";
import type { ComponentSpec } from "../../spec/types.js";
import { createTasksExtension, type TaskClient, type TaskHandler, type TasksExtensionOptions } from "../../tasks/index.js";
import type { StepResult } from "../../orchestration/index.js";

/** Workflow key (camelCase of its name) → its inputs and typed outputs. */
export type WorkflowTypes = { [key: string]: { input: unknown; output: unknown } };
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

export type AgentServeOptions<C extends CapabilityTypes, T extends AgentTaskTypes> = ComponentOptions<C> & TaskHandlersOption<T> & {
  /** Orchestration settings: base URLs or registry for the used components, hooks, concurrency, execution records. */
  readonly orchestration?: Omit<OrchestrationOptions, "components">;
  /** Task settings: backend, mode, worker count, lease, shutdown timeout. */
  readonly taskOptions?: Omit<TasksExtensionOptions, "handlers" | "runWorkflow">;
};

/** What `POST /orchestrate/<workflow>` answers. */
export interface WorkflowResponse<O> {
  readonly success: true;
  readonly plan_id: string;
  readonly workflow: string;
  readonly outputs: O;
  /** Present when `aiSynthesis` was asked for and the agent has a synthesiser. */
  readonly synthesis?: unknown;
  readonly steps: readonly StepResult[];
  readonly duration_ms: number;
}

export interface WorkflowCallOptions extends CallOptions {
  /** Ask for a language-model synthesis of the outputs (`ai_synthesis`). */
  readonly aiSynthesis?: boolean;
}

export type WorkflowClient<W extends WorkflowTypes> = {
  readonly [K in keyof W]: (input: W[K]["input"], options?: WorkflowCallOptions) => Promise<WorkflowResponse<W[K]["output"]>>;
};

export type AgentTaskClient<T extends AgentTaskTypes> = TaskClient<{ [K in keyof T]: { input: T[K]["input"]; output: T[K]["output"] } }>;

/** A typed client of the workflows an agent serves: one method per workflow, POSTing its inputs. */
export function createWorkflowClient<W extends WorkflowTypes>(spec: ComponentSpec, options: ClientOptions): WorkflowClient<W> {
  const send = createClientSend(spec, options);
  const client = Object.create(null) as Record<string, (input: unknown, options?: WorkflowCallOptions) => Promise<unknown>>;
  for (const workflow of spec.agent === undefined ? [] : servedWorkflows(spec.agent)) {
    const path = `/orchestrate/${workflow.name}`;
    client[toCamelCase(workflow.name)] = (input, { aiSynthesis, ...call } = {}) => {
      const body = aiSynthesis === undefined ? input : { ...(input as object), [AI_SYNTHESIS_FIELD]: aiSynthesis };
      return send({ path, body, name: `orchestrate ${workflow.name}` }, call);
    };
  }
  return client as WorkflowClient<W>;
}

export async function serveAgent<C extends CapabilityTypes, T extends AgentTaskTypes>(
  spec: ComponentSpec,
  usedSpecs: readonly ComponentSpec[],
  serveOptions: AgentServeOptions<C, T>,
): Promise<RunningComponent> {
  const { orchestration = {}, taskOptions = {}, tasks, ...rest } = serveOptions;
  // What is left is exactly ComponentOptions<C>; TypeScript cannot see that through a rest of a
  // generic intersection, hence the one cast.
  const options = rest as unknown as ComponentOptions<C>;
  const extensions = options.extensions ?? [];
  const agent = spec.agent;
  if (agent === undefined) return serveComponent<C>(spec, { ...options, extensions });
  const orchestrator = createOrchestrationExtension(spec, { ...orchestration, components: usedSpecs });
  const added: ComponentExtension[] = [orchestrator];
  let healthOnly = false;
  if (agent.tasks.length > 0) {
    const tasksExtension = createTasksExtension(spec, {
      ...taskOptions,
      handlers: (tasks ?? {}) as TasksExtensionOptions["handlers"] & object,
      runWorkflow: (name, input, { signal, progress }) => orchestrator.runWorkflow(name, input, { signal, progress }),
    });
    healthOnly = tasksExtension.healthOnly;
    added.push(tasksExtension);
  }
  return serveComponent<C>(spec, { ...options, healthOnly, extensions: [...added, ...extensions] });
}
