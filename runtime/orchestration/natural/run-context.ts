/**
 * One natural-mode request as the adaptive loop sees it: its limits, its phase, its model-call budget
 * and token usage, its signal (the caller hanging up, or the orchestration timeout), and the catalog
 * its plan was checked against. It is reached through AsyncLocalStorage (`currentNaturalRun()`) by
 * the interceptors and planner stages that need it (recovery, micro-resolution, the phase loop), so
 * neither the executor nor the interceptor seam carries natural mode's business.
 *
 * Every model call of the request goes through `budgetedProvider`, which charges the budget before
 * the call and counts its tokens after it: a call the budget does not allow is never sent.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { currentScope } from "../../context/index.js";
import { ManifoldError } from "../../errors/index.js";
import { promptBytes, type EmbeddingRequest, type LlmCompletion, type LlmProvider, type LlmRequest, type LlmUsage } from "../../llm/index.js";
import { ATTR, METRIC, getTelemetry, type SpanAttributes } from "../../telemetry/index.js";
import type { CatalogComponent } from "../catalog.js";
import type { ContextSection } from "../context.js";
import { promptBudgetBytes, type AdaptiveSettings } from "./adaptive.js";
import type { RecordCall } from "./record.js";

/** What a chat stream shows of the loop while it works. */
export type NaturalProgress =
  | { readonly kind: "phase"; readonly phase: number; readonly reason: "continue" | "remediation" }
  | { readonly kind: "retry"; readonly step_id: string; readonly capability: string; readonly reason: "semantic_retry" | "micro_resolution" };

export interface NaturalRun {
  readonly requestId: string;
  readonly settings: AdaptiveSettings;
  /** Whether the request ends with a synthesis: one model call is kept back for it. */
  readonly synthesise: boolean;
  /** Aborted when the caller hangs up or the orchestration timeout passes (its reason says which). */
  readonly signal: AbortSignal;
  /** Told about every model call (the LLM debug record, the caller's observer). */
  readonly record: RecordCall | undefined;
  /** The phase being planned or run: 1 for the first plan. */
  phase: number;
  /** The catalog (internal capabilities included) the latest plan was checked against; set by the plan check. */
  catalog: readonly CatalogComponent[] | undefined;
  /** Model calls charged so far. */
  calls: number;
  /**
   * The capabilities tiered selection chose (`component.capability`), once it ran: continuation phases
   * plan from the same selection unless a problem asks for a new one.
   */
  selection: readonly string[] | undefined;
  /** Tokens by interaction type (`plan_generation`, `error_analysis`, …). */
  readonly usage: Map<string, LlmUsage>;
  /** Planning context gathered before the first plan (skills, memory): every plan and the synthesis read it. */
  context: readonly ContextSection[];
  /** Each context source's evidence, for the execution record. */
  evidence: Readonly<Record<string, unknown>>;
  /** Told about phases and retries as they start (chat streams them as `progress` events). */
  readonly progress: ((event: NaturalProgress) => void) | undefined;
  /** Whether an optional call (a continuation, an analysis, a micro-resolution) still fits, leaving the synthesis its call. */
  canAsk(): boolean;
  /** Adds an event to the request's span (captured when the run was created); `requestEvent()` is the way to call it. */
  readonly spanEvent: ((name: string, attributes?: SpanAttributes) => void) | undefined;
}

/** Calls that may use the call kept back for the synthesis. */
const RESERVED_FOR: ReadonlySet<string> = new Set(["synthesis", "synthesis_streaming"]);

/** One AsyncLocalStorage per process, shared by every copy of the runtime (like the request scope). */
const SLOT = Symbol.for("manifold.naturalRun");
const storage: AsyncLocalStorage<NaturalRun> = ((globalThis as Record<symbol, unknown>)[SLOT] ??=
  new AsyncLocalStorage<NaturalRun>()) as AsyncLocalStorage<NaturalRun>;

export function currentNaturalRun(): NaturalRun | undefined {
  return storage.getStore();
}

export function withNaturalRun<T>(run: NaturalRun, fn: () => T): T {
  return storage.run(run, fn);
}

export interface NaturalRunInit {
  readonly requestId: string;
  readonly settings: AdaptiveSettings;
  readonly synthesise: boolean;
  readonly signal: AbortSignal;
  readonly record: RecordCall | undefined;
  /** The phase a resumed plan had reached. @defaultValue 1 */
  readonly phase?: number;
  readonly progress?: (event: NaturalProgress) => void;
}

export function createNaturalRun({ requestId, settings, synthesise, signal, record, phase = 1, progress }: NaturalRunInit): NaturalRun {
  const run: NaturalRun = {
    requestId,
    progress,
    settings,
    synthesise,
    signal,
    record,
    phase,
    catalog: undefined,
    calls: 0,
    selection: undefined,
    usage: new Map(),
    context: [],
    evidence: {},
    canAsk: () => run.calls + 1 + (synthesise ? 1 : 0) <= settings.maxLlmCalls,
    spanEvent: getTelemetry().activeEvents(),
  };
  return run;
}

const add = (a: LlmUsage | undefined, b: LlmUsage): LlmUsage => ({
  prompt_tokens: (a?.prompt_tokens ?? 0) + b.prompt_tokens,
  completion_tokens: (a?.completion_tokens ?? 0) + b.completion_tokens,
  total_tokens: (a?.total_tokens ?? 0) + b.total_tokens,
});

/** Charges one call of `phase` to the run, or throws BUDGET_EXCEEDED (the call is then not made). */
function charge(run: NaturalRun, phase: string): void {
  const reserve = run.synthesise && !RESERVED_FOR.has(phase) ? 1 : 0;
  const max = run.settings.maxLlmCalls;
  if (run.calls + 1 + reserve > max) {
    getTelemetry().event("orchestrator.budget.exhausted", {
      request_id: run.requestId,
      budget: "llm_calls",
      limit: max,
      used: run.calls,
      phase_number: run.phase,
    });
    throw new ManifoldError(
      "BUDGET_EXCEEDED",
      `the request needs more than ${max} language-model calls (MANIFOLD_MAX_LLM_CALLS)${reserve === 1 ? ", one of them kept for the answer" : ""}`,
    );
  }
  run.calls += 1;
}

/**
 * Every prompt fits the model's context (`MANIFOLD_LLM_CONTEXT_TOKENS`): the stages that build them
 * reduce what they quote (selection, distillation, trimming), and one that still does not fit is
 * refused here, never sent. Its size is a metric either way.
 */
function checkPromptSize(run: NaturalRun, request: LlmRequest): void {
  const bytes = promptBytes(request.messages);
  const telemetry = getTelemetry();
  if (telemetry.enabled) telemetry.metrics.histogram(METRIC.LLM_PROMPT_BYTES, bytes, { [ATTR.LLM_PHASE]: request.phase });
  const budget = promptBudgetBytes(run.settings);
  if (bytes <= budget) return;
  telemetry.event("llm.prompt.over_budget", { request_id: run.requestId, phase: request.phase, prompt_bytes: bytes, budget_bytes: budget });
  throw new ManifoldError(
    "BUDGET_EXCEEDED",
    `a ${request.phase} prompt of ${bytes} bytes does not fit the model's context (${budget} bytes for MANIFOLD_LLM_CONTEXT_TOKENS=${run.settings.contextTokens})`,
  );
}

/**
 * The provider every natural-mode call goes through: inside a request it charges the call to the
 * request's budget, aborts it with the request's signal, and counts its tokens by interaction type;
 * outside one (a test calling the planner directly) it is the provider itself.
 */
export function budgetedProvider(provider: LlmProvider): LlmProvider {
  return {
    get model() {
      return provider.model;
    },
    get baseUrl() {
      return provider.baseUrl;
    },
    toJSON: () => provider.toJSON(),
    // Embeddings are not a completion: they are not charged to the call budget (retrieval asks for them).
    ...(provider.embed === undefined ? {} : { embed: (request: EmbeddingRequest) => provider.embed!(request) }),
    complete: async (request: LlmRequest): Promise<LlmCompletion> => {
      const run = currentNaturalRun();
      if (run === undefined) return provider.complete(request);
      checkPromptSize(run, request);
      charge(run, request.phase);
      const signal = request.signal === undefined || request.signal === run.signal ? run.signal : AbortSignal.any([request.signal, run.signal]);
      const completion = await provider.complete({ ...request, signal });
      run.usage.set(request.phase, add(run.usage.get(request.phase), completion.usage));
      return completion;
    },
  };
}

/** What every `llm.*` and plan-handling event of a request carries: its id (when it has one) and the phase being planned or run. */
export function llmEventScope(): { request_id?: string; phase_number: number } {
  const run = currentNaturalRun();
  const requestId = currentScope()?.requestId ?? run?.requestId;
  return { ...(requestId === undefined ? {} : { request_id: requestId }), phase_number: run?.phase ?? 1 };
}

/**
 * An orchestration event on the request's span, where the spec attaches them, also from code that
 * runs inside a run's or a step's span (a step interceptor); outside a natural run, on the active span.
 */
export function requestEvent(name: string, attributes: SpanAttributes): void {
  const emit = currentNaturalRun()?.spanEvent;
  if (emit === undefined) getTelemetry().event(name, attributes);
  else emit(name, attributes);
}
