/**
 * The language-model planner: ask for a plan over the live catalog and parse it (one correction when
 * the answer is not a JSON plan). What it returns is a proposal (`PlanProposal`), not a plan: the
 * `natural.plan_check` interceptor (plan-check.ts) checks it against the catalog and, while it has
 * problems, sends them back with `revise`, which asks again in the same conversation. Nothing is
 * dispatched until a plan checks.
 */
import { ManifoldError } from "../../errors/index.js";
import {
  continuationMessages,
  cutUtf8,
  PLAN_JSON_SCHEMA,
  parseCorrectionMessages,
  planningMessages,
  regenerationMessages,
  type LlmCompletion,
  type LlmMessage,
  type LlmProvider,
  type PhaseResults,
} from "../../llm/index.js";
import { getTelemetry } from "../../telemetry/index.js";
import type { CatalogComponent } from "../catalog.js";
import { phaseOf, type Plan } from "../plan.js";
import type { PlanProposal } from "../pipeline-interceptors.js";
import { MAX_PLAN_BYTES, parsePlanText, unparsedPlan } from "./check-plan.js";
import { promptBudgetBytes, readAdaptiveSettings, type AdaptiveSettings } from "./adaptive.js";
import type { RecordCall } from "./record.js";
import { currentNaturalRun, llmEventScope } from "./run-context.js";
import { contextPrompt } from "../context.js";
import { outsideSelection } from "./selection.js";
import { createSelectionStage, visibleCatalog, type SelectionStage, type Staged } from "./selection-stage.js";

// In adaptive.ts: an orchestrator reads it at start, before this module loads (with the first natural request).
export { MAX_VALIDATION_ROUNDS_ENV, maxValidationRounds } from "./adaptive.js";

/** A plan request's `max_tokens`: room for a 50-step plan, not for a runaway answer. */
export const PLAN_MAX_TOKENS = 8192;
/** Most bytes of an unparsable answer quoted back in the parse correction (the model needs its start, not all of it). */
export const QUOTED_ANSWER_BYTES = 2048;
/** Most bytes of a plan quoted back with its problems: room for a 20-step plan, not for a runaway answer. */
export const QUOTED_PLAN_BYTES = 8192;

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
  /** Phases a request may plan: with 1, the model is not told it may ask to continue. @defaultValue 1 */
  readonly maxPhases?: number;
  /** The tiered-selection threshold and the prompt budget (contextTokens). @defaultValue readAdaptiveSettings({}) */
  readonly settings?: AdaptiveSettings;
}

export interface PlanOptions {
  readonly signal?: AbortSignal;
  /** Told about every model call (the LLM debug record of this request). */
  readonly record?: RecordCall;
}

/** What a continuation request is given: the plan so far and what its steps did, shown to the model. */
export interface ContinuationRequest {
  readonly request: string;
  /** The plan so far: its completed steps and its phases (the new phase is `phaseOf(base) + 1`). */
  readonly base: Plan;
  readonly results: PhaseResults;
  readonly reason: "continue" | "remediation";
  readonly maxPhases: number;
}

export interface LlmPlanner {
  (request: string, options?: PlanOptions): Promise<PlanProposal>;
  /** A continuation plan (the phase loop): a proposal that adds a phase to `base`. */
  continuation(next: ContinuationRequest, options?: PlanOptions): Promise<PlanProposal>;
  /** The selection stage (tiered selection) and its catalog index. */
  readonly selection: SelectionStage;
}

export function createLlmPlanner({ provider, catalog, temperature = 0, maxPhases = 1, settings = readAdaptiveSettings({}) }: LlmPlannerOptions): LlmPlanner {
  const stage = createSelectionStage({
    provider,
    temperature,
    threshold: settings.tieredSelectionThreshold,
    budgetBytes: promptBudgetBytes(settings),
  });
  const converse = (messages: LlmMessage[], kind: PlanKind, { signal, record }: PlanOptions): Conversation => ({
    provider,
    temperature,
    kind,
    options: { ...(signal && { signal }), ...(record && { record }) },
    messages,
    attempt: 0,
    text: "",
    corrected: false,
  });
  const plan = async (request: string, options: PlanOptions = {}): Promise<PlanProposal> => {
    const components = await catalog();
    const context = contextPrompt(currentNaturalRun()?.context);
    const build = (shown: readonly CatalogComponent[]) => planningMessages(request, shown, { maxPhases, context });
    const staged = await stage({ request, visible: visibleCatalog(components), build, ...options });
    return proposalOf(converse(staged.messages, "plan_generation", options), components, staged);
  };
  const continuation = async (next: ContinuationRequest, options: PlanOptions = {}): Promise<PlanProposal> => {
    const components = await catalog();
    const phase = phaseOf(next.base) + 1;
    const context = contextPrompt(currentNaturalRun()?.context);
    const build = (shown: readonly CatalogComponent[]) =>
      continuationMessages(next.request, shown, next.results, { phase, maxPhases: next.maxPhases, reason: next.reason, context });
    const staged = await stage({ request: next.request, visible: visibleCatalog(components), build, base: next.base, reuse: true, ...options });
    getTelemetry().event("llm.continuation_plan_regeneration.request", {
      ...llmEventScope(),
      prompt_length: staged.messages.reduce((n, m) => n + m.content.length, 0),
      phase_number: phase,
      selection_reused: staged.reused,
    });
    return proposalOf(converse(staged.messages, "continuation_plan", options), components, staged, { base: next.base, reason: next.reason });
  };
  return Object.assign(plan, { continuation, selection: stage });
}

/** The conversation's first answer as a proposal the plan check settles (`revise` asks again in the same conversation). */
async function proposalOf(
  conversation: Conversation,
  components: readonly CatalogComponent[],
  staged: Staged,
  continuation: Pick<PlanProposal, "base" | "reason"> = {},
): Promise<PlanProposal> {
  let value = await answer(conversation);
  let revisions = 0;
  let shown = staged.shown;
  let again = staged.again;
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
    get selection() {
      return shown;
    },
    revise: async (problems, { reselect = false } = {}) => {
      revisions += 1;
      if (reselect && again !== undefined && shown !== undefined) {
        // Once per conversation: the plan's first messages are over the new selection, the exchange so far follows.
        const next = await again(outsideSelection(value, shown, components).map((p) => p.key));
        again = undefined;
        shown = next.shown;
        conversation.messages = [...next.messages, ...conversation.messages.slice(next.messages.length)];
      }
      conversation.messages = regenerationMessages(conversation.messages, conversation.text, problems);
      value = await answer(conversation, { regenerating: true });
    },
    ...continuation,
  };
}

/** A first plan, or a continuation plan of the phase loop: the debug record's interaction type and the call's phase. */
type PlanKind = "plan_generation" | "continuation_plan";

/** One planning conversation with the model. */
interface Conversation {
  readonly provider: LlmProvider;
  readonly temperature: number;
  readonly kind: PlanKind;
  readonly options: PlanOptions;
  messages: LlmMessage[];
  /** Model calls so far. */
  attempt: number;
  /** The model's last answer, as it wrote it (a regeneration quotes it). */
  text: string;
  /** The one parse correction has been spent. */
  corrected: boolean;
}

/**
 * Asks until the answer parses as a plan (one correction per conversation); the parsed plan,
 * unchecked. A regenerated answer that still does not parse once the correction is spent is not a
 * failed request: it is an invalid plan, sent back by the next validation round (or PLAN_INVALID).
 */
async function answer(conversation: Conversation, { regenerating = false } = {}): Promise<Record<string, unknown>> {
  for (;;) {
    conversation.attempt += 1;
    const { attempt } = conversation;
    const completion = await askForPlan(conversation, attempt, conversation.options);
    // What a regeneration quotes back: the plan, bounded (a prompt fitted near the budget must still take the exchange).
    conversation.text = quoted(completion.text, QUOTED_PLAN_BYTES);
    const parsed =
      completion.truncated === true
        ? { problem: `it is longer than ${MAX_PLAN_BYTES} bytes; write a shorter plan`, reason: "too_large" as const }
        : parsePlanText(completion.text);
    if (parsed.value !== undefined) return parsed.value;
    const { problem = "it is not a plan", reason = "not_json" } = parsed;
    if (regenerating && conversation.corrected) {
      getTelemetry().event("orchestrator.plan_validation.regeneration_parse_error", { ...llmEventScope(), reason, attempt });
      conversation.text = quoted(completion.text);
      return unparsedPlan(problem);
    }
    correctParse(conversation, completion.text, { problem, reason }, attempt);
  }
}

/** The start of an answer, for quoting it back: never more than `maxBytes` of it. */
function quoted(text: string, maxBytes = QUOTED_ANSWER_BYTES): string {
  const cut = cutUtf8(text, maxBytes);
  return cut.cut ? `${cut.text}\n[… the rest of the answer, ${Buffer.byteLength(text)} bytes in all, is left out]` : text;
}

async function askForPlan({ provider, temperature, messages, kind }: Conversation, attempt: number, { signal, record }: PlanOptions): Promise<LlmCompletion> {
  const prompt_length = messages.reduce((n, m) => n + m.content.length, 0);
  if (kind === "plan_generation")
    getTelemetry().event("llm.plan_generation.request", {
      ...llmEventScope(),
      prompt_length,
      temperature,
      max_tokens: PLAN_MAX_TOKENS,
      model: provider.model,
      attempt,
    });
  const call = {
    phase: kind,
    messages,
    json: { name: "routing_plan", schema: PLAN_JSON_SCHEMA },
    temperature,
    maxTokens: PLAN_MAX_TOKENS,
    maxOutputBytes: MAX_PLAN_BYTES,
    ...(signal && { signal }),
  };
  const started = Date.now();
  let completion: LlmCompletion;
  try {
    completion = await provider.complete(call);
  } catch (error) {
    record?.({ type: kind, messages, attempt, started, model: provider.model, error });
    throw error;
  }
  record?.({ type: kind, messages, attempt, started, model: provider.model, completion });
  getTelemetry().event("llm.plan_generation.response", { ...llmEventScope(), ...completion.usage, duration_ms: completion.duration_ms, attempt });
  return completion;
}

/**
 * An answer that is not a JSON plan: one correction message quoting at most the answer's start,
 * then LLM_ERROR. The event's reason is a fixed word, never the model's text.
 */
function correctParse(conversation: Conversation, text: string, { problem, reason }: { problem: string; reason: string }, attempt: number): void {
  const telemetry = getTelemetry();
  telemetry.event(conversation.kind === "continuation_plan" ? "llm.continuation_plan_generation.parse_error" : "llm.plan_generation.parse_error", {
    ...llmEventScope(),
    error: "invalid_plan_json",
    reason,
    attempt,
    will_retry: !conversation.corrected,
  });
  if (conversation.corrected) {
    telemetry.event("llm.plan_generation.retry_parse_exhausted", { ...llmEventScope(), attempt });
    throw new ManifoldError("LLM_ERROR", `the language model did not answer with a JSON plan, even after a correction: ${problem}`);
  }
  conversation.corrected = true;
  telemetry.event("llm.plan_generation.retry_parse_correction", { ...llmEventScope(), attempt });
  conversation.text = quoted(text);
  conversation.messages = parseCorrectionMessages(conversation.messages, conversation.text, problem);
}
