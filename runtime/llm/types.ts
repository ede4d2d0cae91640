/**
 * The language-model port: what natural mode, synthesis and chat ask of a model, and what they get
 * back. One provider object per process talks to any OpenAI-compatible endpoint through the `openai`
 * package (provider.ts); tests drive it against a scripted server on loopback.
 */

export interface LlmMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

export interface LlmUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** Which part of a request a model call serves: the debug record's interaction type and a metric label (bounded). */
export type LlmPhase =
  | "plan_generation"
  | "continuation_plan"
  | "error_analysis"
  | "micro_resolution"
  | "tiered_selection"
  | "result_distillation"
  | "synthesis"
  | "synthesis_streaming"
  | "chat"
  // Agent features' calls (skills, memory): structured ones are named by their `response_format`.
  | "skill_selection"
  | "user_memory_extraction"
  | "user_memory_summary"
  | "event_summarization"
  | "activity_compaction"
  | "activity_compaction_incremental"
  | "reflection";

export interface LlmRequest {
  readonly phase: LlmPhase;
  readonly messages: readonly LlmMessage[];
  /**
   * Ask for a JSON object shaped by this schema: `response_format` `json_schema` where the provider
   * supports it, else `json_object`. Absent: plain text (synthesis carries no `response_format`).
   */
  readonly json?: { readonly name: string; readonly schema: Readonly<Record<string, unknown>> };
  /** @defaultValue the provider's (0 for planning is the caller's choice) */
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** The most UTF-8 bytes of answer text kept (streamed pieces too); past it the answer is cut and marked `truncated`. @defaultValue 256 KiB */
  readonly maxOutputBytes?: number;
  /** Aborts the call (and its retries): the caller hung up or the run was cancelled. */
  readonly signal?: AbortSignal;
  /** Given: the call streams and each piece of text is passed here as it arrives. */
  readonly onChunk?: (text: string) => void;
}

export interface LlmCompletion {
  readonly text: string;
  readonly usage: LlmUsage;
  /** The model that answered, as the endpoint reported it (else the configured one). */
  readonly model: string;
  readonly finish_reason: string | undefined;
  /** Wall time of the call, retries included, in ms. */
  readonly duration_ms: number;
  readonly streamed: boolean;
  /** Set when the text was cut to the request's `maxOutputBytes` (`finish_reason` is then `length`). */
  readonly truncated?: true;
}

/** One embeddings call (`POST /embeddings` through the `openai` client): vector retrieval's model side. */
export interface EmbeddingRequest {
  readonly input: readonly string[];
  /** @defaultValue the provider's embedding model (`MANIFOLD_EMBEDDING_MODEL`, else text-embedding-3-small) */
  readonly model?: string;
  readonly signal?: AbortSignal;
}

export interface EmbeddingResult {
  /** One vector per input, in order. */
  readonly vectors: readonly (readonly number[])[];
  readonly model: string;
  readonly usage: LlmUsage;
  readonly duration_ms: number;
}

export interface LlmProvider {
  /** The configured model name. */
  readonly model: string;
  /** The endpoint's base URL (never holds the key). */
  readonly baseUrl: string;
  /**
   * One chat completion. Rejects with a ManifoldError: `ABORTED` when the signal fired, `TIMEOUT`
   * after the configured timeout, `LLM_ERROR` when the endpoint failed after its retries (429 and 5xx
   * are retried, honouring `Retry-After`). Messages never contain the key.
   */
  complete(request: LlmRequest): Promise<LlmCompletion>;
  /** Embeddings of texts; absent on providers that have none (retrieval is then lexical only). Rejects like `complete`. */
  embed?(request: EmbeddingRequest): Promise<EmbeddingResult>;
  /** Safe to log or serialise: model and base URL, never the key. */
  toJSON(): { readonly model: string; readonly baseUrl: string };
}
