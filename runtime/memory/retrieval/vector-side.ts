/**
 * The retriever's vector half: embeds queries and documents through the provider and keeps the
 * vector index in step with the scope caches. A query's call also carries up to 63 of the scope's
 * documents that have no vector yet (the in-process index starts empty after a restart), so vectors
 * fill in without a call per document. A vector is stored only if its document is still as it was
 * when the call went out: a document removed or rewritten meanwhile (or its scope cleared) gets none.
 */
import { cutUtf8, MAX_EMBEDDING_INPUT_BYTES, MAX_EMBEDDING_INPUTS, type EmbeddingRequest, type EmbeddingResult } from "../../llm/index.js";
import { recordEmbedding } from "./record.js";
import type { ScopeCache, ScopeState } from "./scopes.js";
import type { Ranked, RankOptions, RetrievalDoc, VectorIndex } from "./types.js";

export interface VectorSideOptions {
  readonly embed: (request: EmbeddingRequest) => Promise<EmbeddingResult>;
  readonly vectors: VectorIndex;
  readonly cache: ScopeCache;
  /** What a failed call's record names (a successful one names the model that answered). */
  readonly model: string;
}

export interface VectorSide {
  /** The scope's documents nearest the query, only those the scope still holds. */
  rank(scope: string, state: ScopeState, query: string, depth: number, options: RankOptions): Promise<Ranked[]>;
  /** Embeds one document and stores its vector (the scope's state must be open). */
  upsert(scope: string, state: ScopeState, doc: RetrievalDoc, signal: AbortSignal | undefined): Promise<void>;
}

function unit(vector: readonly number[]): number[] | undefined {
  const norm = Math.hypot(...vector);
  return norm > 0 && Number.isFinite(norm) ? vector.map((v) => v / norm) : undefined;
}

const embeddable = (text: string): string => cutUtf8(text, MAX_EMBEDDING_INPUT_BYTES).text;
const withSignal = (signal: AbortSignal | undefined): { signal?: AbortSignal } => (signal === undefined ? {} : { signal });

/** Up to `max` documents of the scope whose current text has no vector yet (blank ones are never embedded). */
function pendingDocs(state: ScopeState, max: number): RetrievalDoc[] {
  const missing: RetrievalDoc[] = [];
  for (const id of state.pending) {
    if (missing.length === max) break;
    const text = state.docs.get(id)?.text ?? "";
    if (text.trim() === "") state.pending.delete(id);
    else missing.push({ id, text });
  }
  return missing;
}

export function createVectorSide({ embed, vectors, cache, model }: VectorSideOptions): VectorSide {
  const store = async (scope: string, state: ScopeState, doc: RetrievalDoc, embedded: readonly number[] | undefined): Promise<void> => {
    const vector = embedded === undefined ? undefined : unit(embedded);
    if (vector === undefined || cache.peek(scope) !== state || state.docs.get(doc.id)?.text !== doc.text) return;
    await vectors.upsert(scope, doc.id, vector);
    state.embedded.set(doc.id, doc.text);
    state.pending.delete(doc.id);
  };

  /** Embeds the query and the documents still without a vector in one call; stores those vectors; returns the query's. */
  const embedQuery = async (scope: string, state: ScopeState, query: string, options: RankOptions): Promise<number[] | undefined> => {
    const missing = pendingDocs(state, MAX_EMBEDDING_INPUTS - 1);
    const inputs = [embeddable(query), ...missing.map((doc) => embeddable(doc.text))];
    const started = Date.now();
    const type = options.purpose ?? "retrieval_query";
    let result: EmbeddingResult;
    try {
      result = await embed({ input: inputs, ...withSignal(options.signal) });
    } catch (error) {
      recordEmbedding(options.record, { type, inputs, started, model, error });
      throw error;
    }
    recordEmbedding(options.record, { type, inputs, started, model, result });
    for (const [i, doc] of missing.entries()) await store(scope, state, doc, result.vectors[i + 1]);
    return unit(result.vectors[0]!);
  };

  return {
    async rank(scope, state, query, depth, options) {
      const queryVector = await embedQuery(scope, state, query, options);
      if (queryVector === undefined) return [];
      const hits = await vectors.query(scope, queryVector, depth);
      // The store is the truth: a vector whose document is gone (or changed since) is never recalled.
      return hits.filter(({ id }) => state.embedded.has(id) && state.docs.has(id));
    },
    async upsert(scope, state, doc, signal) {
      if (doc.text.trim() === "") return vectors.remove(scope, doc.id);
      const result = await embed({ input: [embeddable(doc.text)], ...withSignal(signal) });
      await store(scope, state, doc, result.vectors[0]);
    },
  };
}
