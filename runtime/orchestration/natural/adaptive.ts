/**
 * The limits of natural mode's adaptive loop (phases, recovery, micro-resolution) and of one request
 * as a whole (model calls, time), read once per orchestrator: option > variable > default. A value
 * out of range fails start-up naming the variable, never a request.
 */
import { durationFromEnv } from "../../spec/index.js";
import { checkInteger } from "../../util/index.js";

export const MAX_PHASES_ENV = "MANIFOLD_MAX_PHASES";
export const MAX_SEMANTIC_RETRIES_ENV = "MANIFOLD_MAX_SEMANTIC_RETRIES";
export const MAX_LLM_CALLS_ENV = "MANIFOLD_MAX_LLM_CALLS";
export const ORCHESTRATION_TIMEOUT_ENV = "MANIFOLD_ORCHESTRATION_TIMEOUT";
export const RESULT_BUDGET_ENV = "MANIFOLD_RESULT_BUDGET_BYTES";
export const TIERED_SELECTION_THRESHOLD_ENV = "MANIFOLD_TIERED_SELECTION_THRESHOLD";
export const LLM_CONTEXT_TOKENS_ENV = "MANIFOLD_LLM_CONTEXT_TOKENS";

/** Bytes of prompt per token of context, keeping a quarter of the context for the answer (about 4 bytes a token). */
export const PROMPT_BYTES_PER_TOKEN = 3;

export const DEFAULT_ORCHESTRATION_TIMEOUT_MS = 5 * 60_000;

export interface AdaptiveSettings {
  /** Phases a request may plan (the first plan is phase 1), 1–10. 1 turns the phase loop off. @defaultValue `MANIFOLD_MAX_PHASES`, else 3 */
  readonly maxPhases: number;
  /** Model-corrected retries of one failed step, 0–5. 0 turns error recovery off. @defaultValue `MANIFOLD_MAX_SEMANTIC_RETRIES`, else 1 */
  readonly maxSemanticRetries: number;
  /** Model calls one request may make (plans, continuations, analyses, micro-resolutions, synthesis), 2–100. @defaultValue `MANIFOLD_MAX_LLM_CALLS`, else 12 */
  readonly maxLlmCalls: number;
  /** The whole request, planning to synthesis. @defaultValue `MANIFOLD_ORCHESTRATION_TIMEOUT`, else 5m */
  readonly timeoutMs: number;
  /** Resolve a template whose value does not fit its parameter with a small model call. @defaultValue true */
  readonly microResolution: boolean;
  /** Most bytes of one step's result a continuation or recovery prompt quotes. @defaultValue `MANIFOLD_RESULT_BUDGET_BYTES`, else 16384 */
  readonly resultBudgetBytes: number;
  /** Most bytes of all results one prompt quotes (synthesis, a continuation). @defaultValue 4 × resultBudgetBytes (64 KiB) */
  readonly requestResultBudgetBytes: number;
  /** Past this many visible capabilities, planning first selects from a compact index (tiered selection). @defaultValue `MANIFOLD_TIERED_SELECTION_THRESHOLD`, else 40 */
  readonly tieredSelectionThreshold: number;
  /** The model's context, in tokens: every prompt fits `contextTokens × PROMPT_BYTES_PER_TOKEN` bytes. @defaultValue `MANIFOLD_LLM_CONTEXT_TOKENS`, else 32000 */
  readonly contextTokens: number;
}

/** Most bytes any prompt of the request may have: a prompt over it is reduced, never sent. */
export function promptBudgetBytes(settings: AdaptiveSettings): number {
  return settings.contextTokens * PROMPT_BYTES_PER_TOKEN;
}

/** One-shot natural mode: one plan, no recovery, no micro-resolution (what `bench/agent-eval` compares against). */
export const ONE_SHOT: Partial<AdaptiveSettings> = { maxPhases: 1, maxSemanticRetries: 0, microResolution: false };

function intFromEnv(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

export function readAdaptiveSettings(env: Readonly<Record<string, string | undefined>>, given: Partial<AdaptiveSettings> = {}): AdaptiveSettings {
  const resultBudgetBytes = given.resultBudgetBytes ?? intFromEnv(env, RESULT_BUDGET_ENV, 16_384, 256, 16 * 1024 * 1024);
  const settings: AdaptiveSettings = {
    maxPhases: given.maxPhases ?? intFromEnv(env, MAX_PHASES_ENV, 3, 1, 10),
    maxSemanticRetries: given.maxSemanticRetries ?? intFromEnv(env, MAX_SEMANTIC_RETRIES_ENV, 1, 0, 5),
    maxLlmCalls: given.maxLlmCalls ?? intFromEnv(env, MAX_LLM_CALLS_ENV, 12, 2, 100),
    timeoutMs: given.timeoutMs ?? durationFromEnv(env, ORCHESTRATION_TIMEOUT_ENV, DEFAULT_ORCHESTRATION_TIMEOUT_MS),
    microResolution: given.microResolution ?? true,
    resultBudgetBytes,
    // The per-request budget follows the per-step one unless given.
    requestResultBudgetBytes: given.requestResultBudgetBytes ?? resultBudgetBytes * 4,
    tieredSelectionThreshold: given.tieredSelectionThreshold ?? intFromEnv(env, TIERED_SELECTION_THRESHOLD_ENV, 40, 1, 1_000_000),
    contextTokens: given.contextTokens ?? intFromEnv(env, LLM_CONTEXT_TOKENS_ENV, 32_000, 2_000, 10_000_000),
  };
  checkInteger("maxPhases", settings.maxPhases, { min: 1, max: 10 });
  checkInteger("maxSemanticRetries", settings.maxSemanticRetries, { min: 0, max: 5 });
  checkInteger("maxLlmCalls", settings.maxLlmCalls, { min: 2, max: 100 });
  checkInteger("timeoutMs", settings.timeoutMs, { min: 1 });
  checkInteger("resultBudgetBytes", settings.resultBudgetBytes, { min: 256 });
  checkInteger("requestResultBudgetBytes", settings.requestResultBudgetBytes, { min: settings.resultBudgetBytes });
  checkInteger("tieredSelectionThreshold", settings.tieredSelectionThreshold, { min: 1 });
  checkInteger("contextTokens", settings.contextTokens, { min: 2_000 });
  return settings;
}

/**
 * Most bytes of tool data one small prompt (an error analysis, a micro-resolution) quotes: the per-step
 * result budget, but never more than a quarter of the prompt budget, so the rest of the prompt (the
 * schema, the error, the rules) always fits.
 */
export function quoteBudgetBytes(settings: AdaptiveSettings): number {
  return Math.max(256, Math.min(settings.resultBudgetBytes, Math.floor(promptBudgetBytes(settings) / 4)));
}

export const MAX_VALIDATION_ROUNDS_ENV = "MANIFOLD_MAX_VALIDATION_ROUNDS";

/** The plan check's interceptor name (plan-check.ts): here, so configure.ts names its stand-in without loading the check. */
export const PLAN_CHECK = "natural.plan_check";

/** `MANIFOLD_MAX_VALIDATION_ROUNDS`: regenerations after the first plan, 0–10. @defaultValue 2 */
export function maxValidationRounds(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[MAX_VALIDATION_ROUNDS_ENV];
  if (text === undefined || text === "") return 2;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0 || value > 10) throw new RangeError(`${MAX_VALIDATION_ROUNDS_ENV} must be an integer from 0 to 10`);
  return value;
}
