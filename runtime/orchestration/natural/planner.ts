/**
 * The language-model planner: ask for a plan over the live catalog and parse it (one correction when
 * the answer is not a JSON plan). What it returns is a proposal (`PlanProposal`), not a plan: the
 * `natural.plan_check` interceptor (plan-check.ts) checks it against the catalog and, while it has
 * problems, sends them back with `revise`, which asks again in the same conversation. Nothing is
 * dispatched until a plan checks.
 */
import { ManifoldError } from "../../errors/index.js";
import {
  PLAN_JSON_SCHEMA,
  parseCorrectionMessages,
  planningMessages,
  regenerationMessages,
  type LlmCompletion,
  type LlmMessage,
  type LlmProvider,
} from "../../llm/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { Plan } from "../plan.js";
import type { PlanProposal } from "../pipeline-interceptors.js";
import { parsePlanText } from "./check-plan.js";
import type { RecordCall } from "./record.js";

export const MAX_VALIDATION_ROUNDS_ENV = "MANIFOLD_MAX_VALIDATION_ROUNDS";

/** `MANIFOLD_MAX_VALIDATION_ROUNDS`: regenerations after the first plan, 0–10. @defaultValue 2 */
export function maxValidationRounds(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[MAX_VALIDATION_ROUNDS_ENV];
  if (text === undefined || text === "") return 2;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0 || value > 10) throw new RangeError(`${MAX_VALIDATION_ROUNDS_ENV} must be an integer from 0 to 10`);
  return value;
}

export interface Planned {
  readonly plan: Plan;
  /** Plans sent back before this one checked. */
  readonly regenerations: number;
}

export interface LlmPlannerOptions {
  readonly provider: LlmProvider;
  /** The catalog with internal capabilities (the proposal carries it, to be checked against it). */
  readonly catalog: () => Promise<readonly CatalogComponent[]>;
  /** @defaultValue 0: plans should not vary between identical requests */
  readonly temperature?: number;
}

export interface PlanOptions {
  readonly signal?: AbortSignal;
  /** Told about every model call (the LLM debug record of this request). */
  readonly record?: RecordCall;
}

export type LlmPlanner = (request: string, options?: PlanOptions) => Promise<PlanProposal>;

export function createLlmPlanner({ provider, catalog, temperature = 0 }: LlmPlannerOptions): LlmPlanner {
  return async (request, { signal, record } = {}) => {
    const components = await catalog();
    const visible = components.map((c) => ({ ...c, capabilities: c.capabilities.filter((wire) => !wire.internal) }));
    const conversation: Conversation = {
      provider,
      temperature,
      options: { ...(signal && { signal }), ...(record && { record }) },
      messages: planningMessages(request, visible),
      attempt: 0,
      text: "",
      corrected: false,
    };
    let value = await answer(conversation);
    let revisions = 0;
    return {
      get value() {
        return value;
      },
      catalog: components,
      get revisions() {
        return revisions;
      },
      get attempt() {
        return conversation.attempt;
      },
      revise: async (problems) => {
        revisions += 1;
        conversation.messages = regenerationMessages(conversation.messages, conversation.text, problems);
        value = await answer(conversation);
      },
    };
  };
}

/** One planning conversation with the model. */
interface Conversation {
  readonly provider: LlmProvider;
  readonly temperature: number;
  readonly options: PlanOptions;
  messages: LlmMessage[];
  /** Model calls so far. */
  attempt: number;
  /** The model's last answer, as it wrote it (a regeneration quotes it). */
  text: string;
  /** The one parse correction has been spent. */
  corrected: boolean;
}

/** Asks until the answer parses as a plan (one correction per conversation); the parsed plan, unchecked. */
async function answer(conversation: Conversation): Promise<Record<string, unknown>> {
  for (;;) {
    conversation.attempt += 1;
    const { attempt } = conversation;
    const completion = await askForPlan(conversation, attempt, conversation.options);
    conversation.text = completion.text;
    const parsed = parsePlanText(completion.text);
    if (parsed.value !== undefined) return parsed.value;
    correctParse(conversation, completion.text, parsed.problem ?? "it is not a plan", attempt);
  }
}

async function askForPlan({ provider, temperature, messages }: Conversation, attempt: number, { signal, record }: PlanOptions): Promise<LlmCompletion> {
  const prompt_length = messages.reduce((n, m) => n + m.content.length, 0);
  getTelemetry().event("llm.plan_generation.request", { prompt_length, temperature, model: provider.model, attempt });
  const call = {
    phase: "plan_generation" as const,
    messages,
    json: { name: "routing_plan", schema: PLAN_JSON_SCHEMA },
    temperature,
    ...(signal && { signal }),
  };
  const started = Date.now();
  let completion: LlmCompletion;
  try {
    completion = await provider.complete(call);
  } catch (error) {
    record?.({ type: "plan_generation", messages, attempt, started, model: provider.model, error });
    throw error;
  }
  record?.({ type: "plan_generation", messages, attempt, started, model: provider.model, completion });
  getTelemetry().event("llm.plan_generation.response", { ...completion.usage, duration_ms: completion.duration_ms, attempt });
  return completion;
}

/** An answer that is not a JSON plan: one correction message, then LLM_ERROR. */
function correctParse(conversation: Conversation, text: string, problem: string, attempt: number): void {
  const telemetry = getTelemetry();
  telemetry.event("llm.plan_generation.parse_error", {
    error: "invalid_plan_json",
    reason: problem.slice(0, 200),
    attempt,
    will_retry: !conversation.corrected,
  });
  if (conversation.corrected) {
    telemetry.event("llm.plan_generation.retry_parse_exhausted", { attempt });
    throw new ManifoldError("LLM_ERROR", `the language model did not answer with a JSON plan, even after a correction: ${problem}`);
  }
  conversation.corrected = true;
  telemetry.event("llm.plan_generation.retry_parse_correction", { attempt });
  conversation.messages = parseCorrectionMessages(conversation.messages, text, problem);
}
