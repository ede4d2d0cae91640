import { validRequestId } from "../../context/index.js";
import { ManifoldError } from "../../errors/index.js";
import { checkInteger } from "../../util/index.js";

/** One language-model (or embedding) call, in the snake_case wire shape the dashboard reads. */
export interface LlmInteraction {
  /** `plan_generation`, `synthesis`, `synthesis_streaming`, `chat`, … */
  readonly type: string;
  readonly category: "llm" | "embedding";
  /** ISO 8601. */
  readonly started_at: string;
  /** Kept to the microsecond (Redis's cjson writes 14 significant digits, so more would not survive). */
  readonly duration_ms: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly model: string;
  /** 1-based. */
  readonly attempt: number;
  readonly success: boolean;
  /** The full prompt (messages rendered), cut to the store's `maxTextBytes`. */
  readonly prompt: string;
  /** Bytes of the prompt as sent (before the store's cut): what selection and distillation keep bounded. */
  readonly prompt_bytes?: number;
  /** The full response text ("" on failure), cut to the store's `maxTextBytes`. */
  readonly response: string;
  readonly finish_reason?: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** Set when a text field was cut to the size cap. */
  readonly truncated?: true;
}

export type LlmDebugStatus = "success" | "error";

/**
 * How the request ended, when its front end says so (`finish`): an answer that was an error
 * (`failed`, with its HTTP status and code: 422 PLAN_INVALID or BUDGET_EXCEEDED, 502 LLM_ERROR, …),
 * a question for the user (`needs_input`), or an answer.
 */
export interface LlmDebugFinal {
  readonly outcome: "completed" | "needs_input" | "failed";
  readonly http_status: number;
  readonly code?: string;
  /** ISO 8601, from the store's clock; set by the store. */
  readonly at?: string;
}

/**
 * Whether the request ended without an answer: an error (HTTP status 400 or more) or a question for
 * the user. Such a record is an `error` one, so the dashboard's Errors filter lists it.
 */
export function endedWithoutAnswer(final: LlmDebugFinal): boolean {
  return final.http_status >= 400 || final.outcome === "needs_input";
}

export interface LlmDebugFinish {
  readonly request_id: string;
  /** @defaultValue request_id (used only when the record does not exist yet) */
  readonly original_request_id?: string;
  readonly final: LlmDebugFinal;
}

/** Every model call of one request. */
export interface LlmDebugRecord {
  readonly request_id: string;
  /** = request_id unless the request was a resumption or a child; the first append's value stays. */
  readonly original_request_id: string;
  /** Distinct component names that made calls, in first-seen order (at most {@link MAX_SOURCE_COMPONENTS}). */
  readonly source_components: readonly string[];
  /** In append order; the oldest are dropped beyond the store's `maxInteractions`. */
  readonly interactions: readonly LlmInteraction[];
  /** `error` once any interaction failed, and for good. */
  readonly status: LlmDebugStatus;
  /** ISO 8601, from the store's clock (the Redis server's on Redis). */
  readonly created_at: string;
  readonly updated_at: string;
  /** How many of the oldest interactions the per-record cap dropped, when it did. */
  readonly dropped_interactions?: number;
  /** How the request ended, once its front end said so; an answer of 400 or more makes the record `error`. */
  readonly final?: LlmDebugFinal;
}

export interface LlmDebugEntry {
  readonly request_id: string;
  /** @defaultValue request_id */
  readonly original_request_id?: string;
  readonly source_component: string;
  readonly interaction: LlmInteraction;
}

export interface LlmDebugListOptions {
  /** @defaultValue 20; at most 1000 */
  readonly limit?: number;
  readonly status?: LlmDebugStatus;
}

/**
 * The LLM debug store port; `memory` and `redis` adapters implement it and one contract suite
 * (test/contract/llm-debug-store.cases.ts) runs against memory, Redis and Redis Cluster.
 */
export interface LlmDebugStore {
  readonly kind: "memory" | "redis";
  /** Appends one interaction to the request's record (creating it) and restarts its TTL. Concurrent appends to one request lose nothing. */
  record(entry: LlmDebugEntry): Promise<void>;
  /**
   * Marks how the request ended (creating the record when no call was recorded yet) and restarts its
   * TTL; an `http_status` of 400 or more makes the record `error`, so the errors list finds it.
   */
  finish(entry: LlmDebugFinish): Promise<void>;
  get(requestId: string): Promise<LlmDebugRecord | undefined>;
  /** Newest first by `updated_at`; records updated in the same millisecond come in no set order. */
  list(options?: LlmDebugListOptions): Promise<LlmDebugRecord[]>;
  close(): Promise<void>;
}

export const DEFAULT_LLM_DEBUG_TTL_MS = 72 * 60 * 60 * 1000;
export const DEFAULT_MAX_RECORDS = 1000;
export const DEFAULT_MAX_INTERACTIONS = 100;
export const DEFAULT_MAX_TEXT_BYTES = 65_536;
/** The memory adapter's byte budget (issue 32 M5): a few hundred full records, not 1,000 × 128 KiB. */
export const DEFAULT_LLM_DEBUG_MAX_BYTES = 32 * 1024 * 1024;
export const MAX_LIST_LIMIT = 1000;
/** Names (type, model, finish_reason, error code, component) are labels: this many bytes is plenty. */
export const MAX_LABEL_BYTES = 256;
/** A record lists at most this many components; later new names are not added (their calls still are). */
export const MAX_SOURCE_COMPONENTS = 100;

/** The settings both adapters check the same way. */
export interface LlmDebugLimits {
  readonly ttlMs: number;
  readonly errorTtlMs: number;
  readonly maxRecords: number;
  readonly maxInteractions: number;
  readonly maxTextBytes: number;
}

export function checkLimits(limits: LlmDebugLimits): LlmDebugLimits {
  for (const [name, value] of Object.entries(limits)) checkInteger(name, value, { min: 1 });
  return limits;
}

/** The list options checked: a bad limit or status is a RangeError. */
export function checkListOptions(options: LlmDebugListOptions = {}): { readonly limit: number; readonly status: LlmDebugStatus | undefined } {
  const limit = checkInteger("limit", options.limit ?? 20, { min: 1, max: MAX_LIST_LIMIT });
  const { status } = options;
  if (status !== undefined && status !== "success" && status !== "error") throw new RangeError("status must be success or error");
  return { limit, status };
}

/** Request ids come from clients (headers, dashboard URLs): only the short printable form is stored or looked up. */
export function checkRequestId(value: unknown, name = "request_id"): string {
  const id = validRequestId(value);
  if (id === undefined) throw new ManifoldError("INVALID_INPUT", `${name} must be 1-128 visible ASCII characters`);
  return id;
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character (nor between the halves of
 * a surrogate pair), and whether it was cut.
 */
export function cutUtf8(text: string, maxBytes: number): { readonly text: string; readonly cut: boolean } {
  // Every UTF-16 unit is at most 3 bytes, so short strings need no encoding at all.
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1; // back to the first byte of the character
  return { text: bytes.subarray(0, end).toString("utf8"), cut: true };
}

const count = (name: string, value: unknown, min = 0): number => {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) throw new RangeError(`interaction.${name} must be a number of at least ${min}`);
  return value;
};

const checkString = (name: string, value: unknown): string => {
  if (typeof value !== "string") throw new RangeError(`${name} must be a string`);
  return value;
};
const text = (name: string, value: unknown): string => checkString(`interaction.${name}`, value);

/** What either adapter appends: the entry checked, every string cut to its cap, in a fixed key order. */
export interface PreparedEntry {
  readonly requestId: string;
  readonly originalRequestId: string;
  readonly sourceComponent: string;
  readonly interaction: LlmInteraction;
}

export function prepareEntry(entry: LlmDebugEntry, maxTextBytes: number): PreparedEntry {
  const requestId = checkRequestId(entry.request_id);
  const originalRequestId = entry.original_request_id === undefined ? requestId : checkRequestId(entry.original_request_id, "original_request_id");
  const given = entry.interaction;
  if (given === null || typeof given !== "object") throw new RangeError("interaction must be an object");
  if (given.category !== "llm" && given.category !== "embedding") throw new RangeError("interaction.category must be llm or embedding");
  if (typeof given.success !== "boolean") throw new RangeError("interaction.success must be a boolean");
  if (Number.isNaN(Date.parse(text("started_at", given.started_at)))) throw new RangeError("interaction.started_at must be an ISO 8601 timestamp");
  let truncated = false;
  const cut = (name: string, value: unknown, max: number): string => {
    const result = cutUtf8(text(name, value), max);
    truncated ||= result.cut;
    return result.text;
  };
  const interaction: LlmInteraction = {
    type: cut("type", given.type, MAX_LABEL_BYTES),
    category: given.category,
    started_at: given.started_at,
    duration_ms: Math.round(count("duration_ms", given.duration_ms) * 1000) / 1000,
    prompt_tokens: checkInteger("interaction.prompt_tokens", given.prompt_tokens, { min: 0 }),
    completion_tokens: checkInteger("interaction.completion_tokens", given.completion_tokens, { min: 0 }),
    total_tokens: checkInteger("interaction.total_tokens", given.total_tokens, { min: 0 }),
    model: cut("model", given.model, MAX_LABEL_BYTES),
    attempt: checkInteger("interaction.attempt", given.attempt, { min: 1 }),
    success: given.success,
    prompt: cut("prompt", given.prompt, maxTextBytes),
    // The size as sent, not as kept: the dashboard shows what selection and distillation bound.
    ...(given.prompt_bytes === undefined ? {} : { prompt_bytes: checkInteger("interaction.prompt_bytes", given.prompt_bytes, { min: 0 }) }),
    response: cut("response", given.response, maxTextBytes),
    ...(given.finish_reason === undefined ? {} : { finish_reason: cut("finish_reason", given.finish_reason, MAX_LABEL_BYTES) }),
    ...(given.error === undefined
      ? {}
      : { error: { code: cut("error.code", given.error.code, MAX_LABEL_BYTES), message: cut("error.message", given.error.message, maxTextBytes) } }),
  };
  return {
    requestId,
    originalRequestId,
    // A component name is not the interaction's text: cutting it does not mark the interaction truncated.
    sourceComponent: cutUtf8(checkString("source_component", entry.source_component), MAX_LABEL_BYTES).text,
    interaction: truncated || given.truncated === true ? { ...interaction, truncated: true } : interaction,
  };
}

const OUTCOMES: ReadonlySet<string> = new Set(["completed", "needs_input", "failed"]);

/** What either adapter stores of a finish: the ids checked and the final outcome in a fixed key order. */
export function prepareFinish(entry: LlmDebugFinish): { readonly requestId: string; readonly originalRequestId: string; readonly final: LlmDebugFinal } {
  const requestId = checkRequestId(entry.request_id);
  const originalRequestId = entry.original_request_id === undefined ? requestId : checkRequestId(entry.original_request_id, "original_request_id");
  const given = entry.final;
  if (given === null || typeof given !== "object" || !OUTCOMES.has(given.outcome))
    throw new RangeError("final.outcome must be completed, needs_input or failed");
  const status = checkInteger("final.http_status", given.http_status, { min: 100, max: 599 });
  const final: LlmDebugFinal = {
    outcome: given.outcome,
    http_status: status,
    ...(given.code === undefined ? {} : { code: cutUtf8(checkString("final.code", given.code), MAX_LABEL_BYTES).text }),
  };
  return { requestId, originalRequestId, final };
}
