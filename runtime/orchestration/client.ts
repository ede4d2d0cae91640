/**
 * The typed client of the workflows an agent serves: one method per workflow, POSTing its inputs to
 * `/orchestrate/<name>`. Generated agent modules supply the types.
 */
import { createClientSend, type CallOptions, type ClientOptions } from "../component/index.js";
import { AI_SYNTHESIS_FIELD, servedWorkflows } from "../spec/index.js";
import { toCamelCase } from "../spec/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { StepResult } from "./executor.js";

/** Workflow key (camelCase of its name) → its inputs and typed outputs. */
export type WorkflowTypes = { [key: string]: { input: unknown; output: unknown } };
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
