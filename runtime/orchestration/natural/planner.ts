/**
 * The language-model planner: ask for a plan over the live catalog, parse it (one correction when
 * the answer is not a JSON plan), check it against the catalog, and send the problems back for a
 * regeneration, up to `maxValidationRounds` times. Nothing is dispatched until a plan checks; a plan
 * that never does is 422 PLAN_INVALID with the last round's problems.
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
import { checkInteger } from "../../util/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { Plan } from "../plan.js";
import { createPlanChecker, parsePlanText, type PlanCheck, type PlanChecker } from "./check-plan.js";
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
  /** The catalog with internal capabilities (they are named as internal, not as unknown). */
  readonly catalog: () => Promise<readonly CatalogComponent[]>;
  readonly maxValidationRounds?: number;
  /** @defaultValue 0: plans should not vary between identical requests */
  readonly temperature?: number;
}

export interface PlanOptions {
  readonly signal?: AbortSignal;
  /** Told about every model call (the LLM debug record of this request). */
  readonly record?: RecordCall;
}

export type LlmPlanner = (request: string, options?: PlanOptions) => Promise<Planned>;

export function createLlmPlanner({ provider, catalog, maxValidationRounds: rounds = 2, temperature = 0 }: LlmPlannerOptions): LlmPlanner {
  checkInteger("maxValidationRounds", rounds, { min: 0, max: 10 });
  // One checker per catalog content: its views and ajv validators are reused while the network is unchanged.
  let cached: { key: string; checker: PlanChecker } | undefined;
  const checkerOf = (components: readonly CatalogComponent[]): PlanChecker => {
    const key = JSON.stringify(components);
    if (cached?.key !== key) cached = { key, checker: createPlanChecker(components) };
    return cached.checker;
  };
  return async (request, { signal, record } = {}) => {
    const components = await catalog();
    const visible = components.map((c) => ({ ...c, capabilities: c.capabilities.filter((wire) => !wire.internal) }));
    const conversation: Conversation = {
      provider,
      temperature,
      rounds,
      visible,
      messages: planningMessages(request, visible),
      regenerations: 0,
      corrected: false,
    };
    return converse(conversation, checkerOf(components), request, { ...(signal && { signal }), ...(record && { record }) });
  };
}

/** One planning conversation with the model. */
interface Conversation {
  readonly provider: LlmProvider;
  readonly temperature: number;
  /** Most regenerations. */
  readonly rounds: number;
  /** The catalog the model sees. */
  readonly visible: readonly CatalogComponent[];
  messages: LlmMessage[];
  regenerations: number;
  /** The one parse correction has been spent. */
  corrected: boolean;
}

/** Asks, parses, checks and sends problems back until a plan checks or the budgets are spent. */
async function converse(conversation: Conversation, check: PlanChecker, request: string, options: PlanOptions): Promise<Planned> {
  for (let attempt = 1; ; attempt += 1) {
    const completion = await askForPlan(conversation, attempt, options);
    const parsed = parsePlanText(completion.text);
    if (parsed.value === undefined) {
      correctParse(conversation, completion.text, parsed.problem ?? "it is not a plan", attempt);
      continue;
    }
    const result = check(parsed.value, request);
    if (result.plan !== undefined) return { plan: result.plan, regenerations: conversation.regenerations };
    sendBack(conversation, completion.text, result, attempt);
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

/** A plan with problems: they go back to the model for a regeneration, until `rounds` are spent (PLAN_INVALID). */
function sendBack(conversation: Conversation, text: string, result: PlanCheck, attempt: number): void {
  const { rounds, regenerations, visible } = conversation;
  const telemetry = getTelemetry();
  for (const agent of result.hallucinated) {
    telemetry.event("llm.hallucination_detected", {
      hallucinated_agent: agent.slice(0, 100),
      allowed_agent_count: visible.filter((c) => c.capabilities.length > 0).length,
      hall_retry: regenerations,
      max_hall_retries: rounds,
      attempt,
    });
  }
  if (regenerations >= rounds) {
    telemetry.event("orchestrator.plan_validation.exhausted", { rounds });
    throw new ManifoldError(
      "PLAN_INVALID",
      `the language model's plan is still invalid after ${rounds} regeneration${rounds === 1 ? "" : "s"}: ${result.problems[0]?.message ?? ""}`,
      { details: result.problems.map((p) => ({ pointer: p.pointer, message: p.message })) },
    );
  }
  conversation.regenerations += 1;
  conversation.messages = regenerationMessages(
    conversation.messages,
    text,
    result.problems.map((p) => `${p.pointer}: ${p.message}`),
  );
}
