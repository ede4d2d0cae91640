/**
 * `natural.recovery`: the after-step interceptor that recovers a natural-mode step the called tool
 * refused (a 4xx answer: INVALID_INPUT, HANDLER_ERROR, …). One model call (`error_analysis`) is shown
 * the projected failure, the capability's input schema, the parameters sent and, when the step's
 * input came from earlier steps, their data (contextual re-resolution); it answers whether the call
 * is recoverable and with which parameters. Those are checked against the input schema before
 * anything is sent: parameters that fit make the step run again (`retry`, the before-step
 * interceptors asked first, so an approval gate still applies); parameters that do not fit are
 * never sent and the step stays failed, for the next interceptors (HITL's error checkpoint) to see.
 *
 * Server errors, timeouts, network failures, aborts and approvals keep the executor's own policy:
 * they are not analysed. A step is analysed at most `maxSemanticRetries` times, only while the
 * request's model-call budget allows an optional call (`canAsk`).
 */
import type { ValidateFunction } from "ajv";
import { parametersHash } from "../../context/index.js";
import type { ManifoldError } from "../../errors/index.js";
import { toManifoldError } from "../../errors/index.js";
import type { LlmCompletion, LlmProvider } from "../../llm/index.js";
import { fieldsFromSummary, objectSchema, type CapabilityWire } from "../../spec/index.js";
import { capabilityIn, type CatalogComponent } from "../catalog.js";
import { wasNeverSent } from "../executor.js";
import type { AfterStepDecision, StepOutcomeContext } from "../interceptors.js";
import type { Interceptor } from "../pipeline-interceptors.js";
import { isClientFailure, projectFailure, reportPolicyOmitted } from "./failure-evidence.js";
import { ERROR_ANALYSIS, ERROR_ANALYSIS_SCHEMA, errorAnalysisMessages, parseErrorAnalysis, type ErrorAnalysis } from "./recovery-prompts.js";
import { quoteBudgetBytes } from "./adaptive.js";
import { currentNaturalRun, llmEventScope, requestEvent, type NaturalRun } from "./run-context.js";
import { trimmedText } from "./trim.js";
import { lazyAjv } from "../../util/index.js";

export const RECOVERY = "natural.recovery";

/** How a step's analysis ended; HITL's error checkpoint shows it to the human. */
export interface RecoveryAnalysis {
  readonly step_id: string;
  readonly recoverable: boolean;
  /** The model's reason, or why no analysis could be made. */
  readonly reason: string;
  readonly outcome: "retried" | "not_recoverable" | "schema_mismatch" | "unchanged" | "unusable_answer" | "llm_failed";
  /** The step's round it was made in (0 for the first pass). */
  readonly round: number;
}

/** The latest analysis of each step, by the run's signal (one per executor run, gone with it). */
const analyses = new WeakMap<AbortSignal, Map<string, RecoveryAnalysis>>();

/** The latest recovery analysis of a step of the run `signal` belongs to (StepContext.signal). */
export function recoveryAnalysis(signal: AbortSignal, stepId: string): RecoveryAnalysis | undefined {
  return analyses.get(signal)?.get(stepId);
}

function keep(signal: AbortSignal, analysis: RecoveryAnalysis): void {
  let byStep = analyses.get(signal);
  if (byStep === undefined) analyses.set(signal, (byStep = new Map()));
  byStep.set(analysis.step_id, analysis);
}

const ATTRIBUTE_BYTES = 512;
/** A bounded attribute value: text as is (cut), anything else as JSON (cut). */
const attr = (value: unknown): string => {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length > ATTRIBUTE_BYTES ? `${text.slice(0, ATTRIBUTE_BYTES)}…` : text;
};
const emit = (name: string, attributes: Record<string, string | number | boolean>): void => requestEvent(name, { ...llmEventScope(), ...attributes });

// ajv made (and loaded) when a plan or step is first checked: an agent that starts loads none of it.
const ajv = lazyAjv({ allErrors: true, strict: false });
const validators = new WeakMap<CapabilityWire, ValidateFunction | null>();

/** The capability's input check, or null for a capability that describes no input (any object fits). */
function validatorOf(wire: CapabilityWire): ValidateFunction | null {
  let validate = validators.get(wire);
  if (validate === undefined) {
    validate = wire.input_summary === undefined ? null : ajv().compile(objectSchema(fieldsFromSummary(wire.input_summary), "draft-07"));
    validators.set(wire, validate);
  }
  return validate;
}

function wireIn(catalog: readonly CatalogComponent[], { step }: StepOutcomeContext): CapabilityWire | undefined {
  return capabilityIn(catalog, step.agent_name, step.metadata.capability);
}

/**
 * The failure policy: a capability with lasting effects (`effects: lasting`) is never re-sent on a
 * model's word, and its failure is not shown to the model; the caller or a human decides.
 */
const hidesFailures = (wire: CapabilityWire): boolean => wire.effects === "lasting";

interface Candidate {
  readonly run: NaturalRun;
  readonly error: ManifoldError;
}

interface Target extends Candidate {
  readonly wire: CapabilityWire;
}

/**
 * Whether this outcome is one recovery may analyse (synchronous, so other steps pay nothing). A step
 * no call of which reached the tool is not: rejected before dispatch (attempts 0), or its target not
 * found or refusing connections (the executor marks that error `wasNeverSent`; a resolver's 404 is
 * one attempt): no input the model could correct was ever refused.
 */
function candidateOf(context: StepOutcomeContext): Candidate | undefined {
  const { error, mode, round, attempts } = context;
  if (mode !== "natural" || error === undefined || attempts === 0 || wasNeverSent(error) || !isClientFailure(error)) return undefined;
  const run = currentNaturalRun();
  if (run === undefined || round >= run.settings.maxSemanticRetries) return undefined;
  return { run, error };
}

/** The capability's catalog entry, unless the policy hides its failures or the budget has no call left. */
function targetIn(catalog: readonly CatalogComponent[], context: StepOutcomeContext, { run, error }: Candidate): Target | undefined {
  const wire = wireIn(catalog, context);
  if (wire === undefined) return undefined;
  if (hidesFailures(wire)) {
    reportPolicyOmitted(context.step.step_id, context.round + 1);
    return undefined;
  }
  return run.canAsk() ? { run, wire, error } : undefined;
}

const TEMPLATE_SOURCE = /\{\{\s*([A-Za-z0-9_-]+)\.response\b/g;

/** The ids of the earlier steps the step's plan parameters read through templates. */
function sourceStepIds(parameters: unknown, found = new Set<string>(), depth = 0): Set<string> {
  if (depth > 32) return found;
  if (typeof parameters === "string") for (const match of parameters.matchAll(TEMPLATE_SOURCE)) found.add(match[1]!);
  else if (Array.isArray(parameters)) for (const item of parameters) sourceStepIds(item, found, depth + 1);
  else if (typeof parameters === "object" && parameters !== null) for (const item of Object.values(parameters)) sourceStepIds(item, found, depth + 1);
  return found;
}

interface Sources {
  readonly ids: readonly string[];
  readonly text: string;
}

/** The source steps' outputs, trimmed to the result budget (`result_trim.semantic_retry` when cut). */
function sourcesOf(context: StepOutcomeContext, budgetBytes: number): Sources | undefined {
  const ids = [...sourceStepIds(context.step.metadata.parameters)].filter((id) => id !== context.step.step_id);
  if (ids.length === 0 || context.outputOf === undefined) return undefined;
  const data = Object.fromEntries(ids.map((id) => [id, context.outputOf!(id) ?? null]));
  return { ids, text: trimmedText("result_trim.semantic_retry", data, budgetBytes, { step_id: context.step.step_id, part: "sources" }) };
}

/**
 * The parameters sent, as JSON for the prompt: as is when they fit the result budget, else trimmed
 * (`result_trim.semantic_retry`, part `parameters`): a template can carry a whole lookup result.
 */
function parametersText(context: StepOutcomeContext, budgetBytes: number): string {
  const compact = JSON.stringify(context.parameters ?? null);
  if (Buffer.byteLength(compact, "utf8") <= budgetBytes) return compact;
  return trimmedText("result_trim.semantic_retry", context.parameters ?? null, budgetBytes, { step_id: context.step.step_id, part: "parameters" });
}

/** The one model call; its answer parsed, or the failure (budget, endpoint, abort). */
async function askModel(provider: LlmProvider, run: NaturalRun, context: StepOutcomeContext, target: Target, sources: Sources | undefined) {
  const { step } = context;
  const { wire } = target;
  const inputSchema = wire.input_summary === undefined ? undefined : objectSchema(fieldsFromSummary(wire.input_summary), "draft-07");
  const messages = errorAnalysisMessages({
    component: step.agent_name,
    capability: step.metadata.capability,
    inputSchema,
    parameters: parametersText(context, quoteBudgetBytes(run.settings)),
    failure: projectFailure(target.error).text,
    ...(sources === undefined ? {} : { sources: sources.text }),
    request: context.plan.original_request,
  });
  const started = Date.now();
  let completion: LlmCompletion;
  try {
    completion = await provider.complete({
      phase: "error_analysis",
      messages,
      json: { name: ERROR_ANALYSIS, schema: ERROR_ANALYSIS_SCHEMA },
      temperature: 0,
      maxTokens: 1024,
      maxOutputBytes: 64 * 1024,
      signal: context.signal,
    });
  } catch (error) {
    run.record?.({ type: ERROR_ANALYSIS, messages, attempt: context.round + 1, started, model: provider.model, error });
    return { error: toManifoldError(error) };
  }
  run.record?.({ type: ERROR_ANALYSIS, messages, attempt: context.round + 1, started, model: provider.model, completion });
  return { analysis: parseErrorAnalysis(completion.text) };
}

/** What the model's answer leads to: corrected parameters that fit, or why there is no retry. */
function settle(context: StepOutcomeContext, target: Target, analysis: ErrorAnalysis): { parameters: unknown } | { outcome: RecoveryAnalysis["outcome"] } {
  if (!analysis.recoverable || analysis.parameters === undefined) return { outcome: "not_recoverable" };
  const validate = validatorOf(target.wire);
  if (validate !== null && !validate(analysis.parameters)) return { outcome: "schema_mismatch" };
  // Compared canonically (keys sorted): the same parameters in another key order are the same call.
  if (parametersHash(analysis.parameters) === parametersHash(context.parameters)) return { outcome: "unchanged" };
  return { parameters: analysis.parameters };
}

const REASONS: Record<RecoveryAnalysis["outcome"], string> = {
  retried: "",
  not_recoverable: "the model found no corrected input",
  schema_mismatch: "the model's corrected parameters do not fit the capability's input schema, so they were not sent",
  unchanged: "the model proposed the parameters already sent",
  unusable_answer: "the model's analysis was not the JSON asked for",
  llm_failed: "the error analysis could not be made",
};

async function recover(provider: LlmProvider, context: StepOutcomeContext, target: Target): Promise<AfterStepDecision | undefined> {
  const { step, round } = context;
  const { run, error } = target;
  const capability = step.metadata.capability;
  const begun = performance.now();
  const sources = sourcesOf(context, quoteBudgetBytes(run.settings));
  if (sources !== undefined)
    emit("contextual_re_resolution.start", {
      step_id: step.step_id,
      capability,
      retry_count: round,
      http_status: error.status,
      source_data_keys: attr(sources.ids.join(",")),
    });
  emit("error_analyzer.llm_error_analysis_start", {
    error_type: error.code,
    original_error: attr(error.expose ? error.message : "internal error"),
    capability,
    tool_name: step.agent_name,
  });
  const asked = await askModel(provider, run, context, target, sources);
  const duration_ms = Math.round(performance.now() - begun);
  const finish = (analysis: RecoveryAnalysis, corrected?: unknown): undefined => {
    keep(context.signal, analysis);
    emit("error_analyzer.analysis_complete", { step_id: step.step_id, capability, outcome: analysis.outcome, recoverable: analysis.recoverable, duration_ms });
    if (sources !== undefined && asked.error === undefined)
      emit("contextual_re_resolution.complete", {
        should_retry: analysis.outcome === "retried",
        analysis: attr(analysis.reason),
        corrected_params_count: typeof corrected === "object" && corrected !== null ? Object.keys(corrected).length : 0,
        duration_ms,
      });
    return undefined;
  };
  if (asked.error !== undefined) {
    if (sources !== undefined) emit("contextual_re_resolution.error", { step_id: step.step_id, error_type: asked.error.code, duration_ms });
    return finish({ step_id: step.step_id, recoverable: false, reason: `${REASONS.llm_failed} (${asked.error.code})`, outcome: "llm_failed", round });
  }
  const { analysis } = asked;
  if (analysis === undefined) return finish({ step_id: step.step_id, recoverable: false, reason: REASONS.unusable_answer, outcome: "unusable_answer", round });
  emit("error_analyzer.llm_error_analysis_result", {
    reason: attr(analysis.reason),
    recoverable: analysis.recoverable,
    suggested_changes: attr(analysis.parameters ?? {}),
    has_suggestions: analysis.parameters !== undefined && Object.keys(analysis.parameters).length > 0,
  });
  const settled = settle(context, target, analysis);
  const reason = analysis.reason === "" ? "no reason given" : analysis.reason;
  if ("outcome" in settled) {
    const why = settled.outcome === "not_recoverable" ? reason : `${reason}; ${REASONS[settled.outcome]}`;
    return finish({ step_id: step.step_id, recoverable: analysis.recoverable, reason: why, outcome: settled.outcome, round });
  }
  emit("error_analyzer.llm_error_analysis_retry", {
    original_params: attr(context.parameters),
    suggested_changes: attr(settled.parameters),
    retry_count: round + 1,
  });
  emit("semantic_retry_applied", { step_id: step.step_id, capability, analysis: attr(reason), corrected_params: attr(settled.parameters) });
  finish({ step_id: step.step_id, recoverable: true, reason, outcome: "retried", round }, settled.parameters);
  run.progress?.({ kind: "retry", step_id: step.step_id, capability, reason: "semantic_retry" });
  return { action: "retry", parameters: settled.parameters };
}

export interface RecoveryOptions {
  /** The request's provider (budgeted: every call is charged to the request). */
  readonly provider: LlmProvider;
  /** The full catalog, for a run that has none (`NaturalRun.catalog` unset): a fallback only. */
  readonly catalog?: () => Promise<readonly CatalogComponent[]>;
}

export function createRecoveryInterceptor({ provider, catalog }: RecoveryOptions): Interceptor {
  const analyse = (components: readonly CatalogComponent[], context: StepOutcomeContext, candidate: Candidate) => {
    const target = targetIn(components, context, candidate);
    return target === undefined ? undefined : recover(provider, context, target);
  };
  return {
    name: RECOVERY,
    afterStep(context) {
      const candidate = candidateOf(context);
      if (candidate === undefined) return undefined;
      // The catalog the plan was checked against (a resumed run's: the full one, set by the orchestrator); read here only if neither set it.
      const known = candidate.run.catalog;
      if (known !== undefined) return analyse(known, context, candidate);
      return catalog?.().then(
        (components) => analyse(components, context, candidate),
        () => undefined,
      );
    },
  };
}
