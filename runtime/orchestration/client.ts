/**
 * The typed client of the workflows an agent serves: one method per workflow, POSTing its inputs to
 * `/orchestrate/<name>`. Generated agent modules supply the types.
 */
import { createClientSend, type CallOptions, type ClientOptions } from "../component/index.js";
import { AI_SYNTHESIS_FIELD, servedWorkflows } from "../spec/index.js";
import { toCamelCase } from "../spec/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { LlmUsage } from "../llm/index.js";
import type { StepResult } from "./executor.js";
import type { Plan } from "./plan.js";

/** Workflow key (camelCase of its name) → its inputs and typed outputs. */
export type WorkflowTypes = { [key: string]: { input: unknown; output: unknown } };
/** What `POST /orchestrate/<workflow>` answers. */
export interface WorkflowResponse<O> {
  readonly success: true;
  readonly plan_id: string;
  readonly workflow: string;
  readonly outputs: O;
  /** The language-model synthesis: present when `aiSynthesis` was asked for. */
  readonly response?: string;
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

/** What every `POST /orchestrate/natural` answer carries. */
interface NaturalAnswer {
  readonly success: true;
  readonly request_id: string;
  /** Phases planned (at most `MANIFOLD_MAX_PHASES`). */
  readonly phases: number;
  readonly plan_id: string;
  readonly mode: "natural";
  readonly steps: readonly StepResult[];
  readonly duration_ms: number;
  /** What the request cost. */
  readonly metadata: {
    /** Tokens by interaction type (`plan_generation`, `continuation_plan`, `error_analysis`, `micro_resolution`, `synthesis`). */
    readonly usage_by_phase: Readonly<Record<string, LlmUsage>>;
    /** Model calls the request made (at most `MANIFOLD_MAX_LLM_CALLS`). */
    readonly llm_calls: number;
  };
}

/** A natural request that was answered. */
export interface NaturalCompleted extends NaturalAnswer {
  readonly status: "completed";
  /** The synthesised answer; absent when `aiSynthesis: false`. */
  readonly response?: string;
  /** Components whose steps completed, in plan order. */
  readonly tools_used: readonly string[];
  /** Share of planned steps that completed (1 for none planned), times 0.9 per regenerated plan. */
  readonly confidence: number;
  readonly plan: Plan;
}

/** The model asked instead of guessing: answer `question` in the next request (or chat turn). Nothing new was dispatched. */
export interface NaturalNeedsInput extends NaturalAnswer {
  readonly status: "needs_input";
  readonly question: string;
  readonly missing_fields: readonly string[];
}

/** What `POST /orchestrate/natural` answers: narrow on `status` before reading `response`. */
export type NaturalResponse = NaturalCompleted | NaturalNeedsInput;

/** The natural-mode method of an agent whose manifest sets `orchestration.natural`. */
export interface NaturalClient {
  /** Plans `request` with the agent's language model, runs the checked plan and answers (`aiSynthesis` default true). */
  natural(request: string, options?: WorkflowCallOptions): Promise<NaturalResponse>;
}

/** The orchestration client of an agent: its workflows, plus `natural()` when `N` is true. */
export type OrchestrationClient<W extends WorkflowTypes, N extends boolean = false> = WorkflowClient<W> & (N extends true ? NaturalClient : {});

/** A typed client of the workflows an agent serves: one method per workflow, POSTing its inputs. */
export function createWorkflowClient<W extends WorkflowTypes, N extends boolean = false>(
  spec: ComponentSpec,
  options: ClientOptions,
): OrchestrationClient<W, N> {
  const send = createClientSend(spec, options);
  const client = Object.create(null) as Record<string, (input: unknown, options?: WorkflowCallOptions) => Promise<unknown>>;
  for (const workflow of spec.agent === undefined ? [] : servedWorkflows(spec.agent)) {
    const path = `/orchestrate/${workflow.name}`;
    client[toCamelCase(workflow.name)] = (input, { aiSynthesis, ...call } = {}) => {
      const body = aiSynthesis === undefined ? input : { ...(input as object), [AI_SYNTHESIS_FIELD]: aiSynthesis };
      return send({ path, body, name: `orchestrate ${workflow.name}` }, call);
    };
  }
  if (spec.agent?.orchestration.natural !== undefined) {
    // Workflow names cannot be `natural` (reserved, MF1417), so the key is free.
    client["natural"] = (request, { aiSynthesis, ...call } = {}) =>
      send(
        {
          path: "/orchestrate/natural",
          body: { request, ...(aiSynthesis === undefined ? {} : { [AI_SYNTHESIS_FIELD]: aiSynthesis }) },
          name: "orchestrate natural",
        },
        call,
      );
  }
  return client as OrchestrationClient<W, N>;
}
