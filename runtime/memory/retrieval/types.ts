/**
 * Retrieval: which of a bounded set of texts matter to a query. Lexical retrieval needs no service;
 * vector retrieval embeds through the provider's embeddings endpoint (the `openai` client) into a
 * `VectorIndex` (the in-process adapter by default; `MANIFOLD_VECTOR_DB_URL` names an external
 * vector database, whose adapter is not part of this release). Memory's recall ranks with it.
 */
import type { LlmCompletion, LlmMessage } from "../../llm/index.js";

export interface RetrievalDoc {
  readonly id: string;
  readonly text: string;
}

export interface Ranked {
  readonly id: string;
  /** Higher is more relevant; comparable within one search only. */
  readonly score: number;
}

/** An incremental index over one scope's documents (one user's facts, one domain's episodes). */
export interface TextIndex {
  readonly size: number;
  upsert(doc: RetrievalDoc): void;
  remove(id: string): void;
  /** The best `limit` documents for the query, best first; only those with a positive score. */
  search(query: string, limit: number): Ranked[];
}

/** The vector port. Vectors are unit-normalised by the caller; scores are cosine similarities. */
export interface VectorIndex {
  readonly kind: string;
  upsert(scope: string, id: string, vector: readonly number[]): Promise<void>;
  remove(scope: string, id: string): Promise<void>;
  /** Drops a whole scope (a user's facts deleted at once). */
  clear(scope: string): Promise<void>;
  query(scope: string, vector: readonly number[], limit: number): Promise<Ranked[]>;
  close(): Promise<void>;
}

/** An embeddings call as the LLM debug record takes it: natural mode's `RecordCall` (ContextRequest.record) accepts it as is. */
export interface EmbeddingCallRecord {
  /** The interaction type (`user_memory_recall_query`, …). */
  readonly type: string;
  readonly category: "embedding";
  /** The inputs, one user message each. */
  readonly messages: readonly LlmMessage[];
  readonly attempt: number;
  /** Date.now() when the call started. */
  readonly started: number;
  readonly model: string;
  /** The call's outcome in a completion's shape: usage, model, duration, and a one-line text naming the vectors' count and size. */
  readonly completion?: LlmCompletion;
  readonly error?: unknown;
}

export type EmbeddingRecorder = (call: EmbeddingCallRecord) => void;

export interface RankOptions {
  readonly signal?: AbortSignal;
  /** Where the query's embeddings call is recorded (the request's LLM debug record). */
  readonly record?: EmbeddingRecorder;
  /** The recorded interaction's type. @defaultValue "retrieval_query" */
  readonly purpose?: string;
}

/** Lexical and (when an embedder is configured) vector ranking, fused. */
export interface Retriever {
  readonly vector: boolean;
  /** Ranks `docs` (bounded by the caller) for `query` within `scope`; lexical only when no embedder is configured. */
  rank(scope: string, query: string, docs: readonly RetrievalDoc[], limit: number, options?: RankOptions): Promise<Ranked[]>;
  /** Tells the vector side a document changed or went (no-op when lexical only). */
  upsert(scope: string, doc: RetrievalDoc, options?: { readonly signal?: AbortSignal }): Promise<void>;
  remove(scope: string, id: string): Promise<void>;
  clear(scope: string): Promise<void>;
  close(): Promise<void>;
}
