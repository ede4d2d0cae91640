/**
 * What natural mode tells the LLM debug store about each model call: one interaction per call,
 * success or failure, with the full prompt and answer (the store caps their size). Saving never
 * fails or slows the request it describes: it is not awaited, and a failed save is logged.
 */
import { toManifoldError } from "../../errors/index.js";
import { promptBytes, renderMessages, type LlmCompletion, type LlmDebugFinal, type LlmDebugStore, type LlmMessage } from "../../llm/index.js";
import type { Logger } from "../../telemetry/index.js";

export interface CallRecord {
  readonly type: string;
  readonly messages: readonly LlmMessage[];
  readonly attempt: number;
  /** Date.now() when the call started. */
  readonly started: number;
  /** The configured model, for a call that failed before any answer named one. */
  readonly model: string;
  readonly completion?: LlmCompletion;
  readonly error?: unknown;
  /** `embedding` for an embeddings call (retrieval records its own, runtime/memory/retrieval/record.ts). @defaultValue "llm" */
  readonly category?: "llm" | "embedding";
}

export type RecordCall = (call: CallRecord) => void;

export interface RecorderScope {
  readonly requestId: string;
  readonly originalRequestId?: string;
  /** The agent making the calls. */
  readonly component: string;
}

export function createCallRecorder(store: LlmDebugStore, { requestId, originalRequestId, component }: RecorderScope, log: Logger): RecordCall {
  return ({ type, messages, attempt, started, model, completion, error, category = "llm" }) => {
    const failure = error === undefined ? undefined : toManifoldError(error);
    const interaction = {
      type,
      category,
      started_at: new Date(started).toISOString(),
      duration_ms: completion?.duration_ms ?? Date.now() - started,
      prompt_tokens: completion?.usage.prompt_tokens ?? 0,
      completion_tokens: completion?.usage.completion_tokens ?? 0,
      total_tokens: completion?.usage.total_tokens ?? 0,
      model: completion?.model ?? model,
      attempt,
      success: failure === undefined,
      prompt: renderMessages(messages),
      prompt_bytes: promptBytes(messages),
      response: completion?.text ?? "",
      ...(completion?.finish_reason === undefined ? {} : { finish_reason: completion.finish_reason }),
      ...(failure === undefined ? {} : { error: { code: failure.code, message: failure.expose ? failure.message : "internal error" } }),
    };
    store
      .record({ request_id: requestId, original_request_id: originalRequestId ?? requestId, source_component: component, interaction })
      .catch((saveError: unknown) => log.warn(`LLM debug record of ${requestId} could not be saved`, { error: saveError }));
  };
}

/** Marks how a request ended on its LLM debug record; like a call's record, never awaited nor failing the request. */
export type FinishRecord = (requestId: string, originalRequestId: string | undefined, final: LlmDebugFinal) => void;

/** How a natural request that failed ended, for its LLM debug record: its error's HTTP status and code (422 PLAN_INVALID, 502 LLM_ERROR, …). */
export function failedFinal(error: unknown): LlmDebugFinal {
  const failure = toManifoldError(error);
  return { outcome: "failed", http_status: failure.status, code: failure.code };
}

export function createFinisher(store: LlmDebugStore, log: Logger): FinishRecord {
  return (requestId, originalRequestId, final) => {
    store
      .finish({ request_id: requestId, ...(originalRequestId === undefined ? {} : { original_request_id: originalRequestId }), final })
      .catch((saveError: unknown) => log.warn(`LLM debug record of ${requestId} could not be marked ${final.outcome}`, { error: saveError }));
  };
}
