/**
 * The retriever memory recalls with: lexical ranking always, and, when asked for
 * (`MANIFOLD_MEMORY_VECTORS=true`) and the provider has embeddings, vector ranking fused with it by
 * reciprocal rank fusion. Off by default: vectors cost a model call per recall and per write, which a
 * deployment opts into (vector-side.ts embeds and stores). Any vector-side failure ranks lexically
 * instead (logged at most once a minute): recall never fails for want of embeddings.
 */
import { DEFAULT_EMBEDDING_MODEL, type LlmProvider } from "../../llm/index.js";
import { createLogger, type Logger } from "../../telemetry/index.js";
import { systemClock, type Clock } from "../../util/index.js";
import { createScopeCache, type ScopeState } from "./scopes.js";
import type { Ranked, Retriever, VectorIndex } from "./types.js";
import { createMemoryVectorIndex } from "./vector-memory.js";
import { createVectorSide } from "./vector-side.js";
import { vectorsWanted } from "./vectors-env.js";

export { MEMORY_VECTORS_ENV, VECTOR_DB_URL_ENV } from "./vectors-env.js";

export interface RetrieverOptions {
  /** Whose `embed` the vector side calls (the agent's model). Without one, or without `embed`, ranking is lexical. */
  readonly provider?: LlmProvider;
  /** The vector index. @defaultValue the in-process one (createMemoryVectorIndex) */
  readonly vectors?: VectorIndex;
  /** Reads MANIFOLD_MEMORY_VECTORS and MANIFOLD_VECTOR_DB_URL. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly log?: Logger;
  /** What the once-a-minute failure log is timed on. @defaultValue systemClock */
  readonly clock?: Clock;
  /** Scopes whose lexical index is kept between calls. @defaultValue 1000 */
  readonly maxScopes?: number;
  /** Documents indexed across those scopes. @defaultValue 200,000 */
  readonly maxDocs?: number;
  /** What those scopes' texts and indexes hold, estimated. @defaultValue 64 MiB */
  readonly maxBytes?: number;
}

/** Reciprocal rank fusion's constant: a document's fused score is the sum of 1 / (k + its rank) in each list. */
const RRF_K = 60;
const FAILURE_LOG_INTERVAL_MS = 60_000;

function forgetVectors(state: ScopeState | undefined): void {
  if (state === undefined) return;
  state.embedded.clear();
  for (const id of state.docs.keys()) state.pending.add(id);
}

/** Both lists fused: each contributes 1 / (k + rank); best first, ties by id. */
export function fuse(lists: readonly (readonly Ranked[])[], limit: number): Ranked[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach(({ id }, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1)));
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit);
}

export function createRetriever(options: RetrieverOptions = {}): Retriever {
  const {
    provider,
    env = process.env,
    log = createLogger({ component: "retrieval" }),
    clock = systemClock,
    maxScopes = 1000,
    maxDocs = 200_000,
    maxBytes = 64 * 1024 * 1024,
  } = options;
  const vector = vectorsWanted(env) && provider?.embed !== undefined;
  const cache = createScopeCache({ maxScopes, maxDocs, maxBytes });
  // A scope the in-process index dropped has no vectors any more: its documents are embedded again when next ranked.
  const vectors = options.vectors ?? createMemoryVectorIndex({ log, onDrop: (scope) => forgetVectors(cache.peek(scope)) });
  const side = vector
    ? createVectorSide({
        embed: (request) => provider!.embed!(request),
        vectors,
        cache,
        model: env["MANIFOLD_EMBEDDING_MODEL"]?.trim() || DEFAULT_EMBEDDING_MODEL,
      })
    : undefined;
  let lastFailureLog = Number.NEGATIVE_INFINITY;

  const failed = (what: string, error: unknown): void => {
    if (clock.now() - lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    lastFailureLog = clock.now();
    log.warn(`vector retrieval failed (${what}); ranking lexically`, { error });
  };

  return {
    vector,
    async rank(scope, query, docs, limit, options = {}) {
      const wanted = Math.floor(limit);
      if (!(wanted >= 1) || docs.length === 0) return [];
      const { state, dropped } = cache.reconcile(scope, docs);
      // Deeper lists than asked for: fusion rewards documents both sides rank well, past each one's top few.
      const depth = Math.min(state.docs.size, Math.max(4 * wanted, 50));
      const lexical = state.index.search(query, depth);
      if (side === undefined || query.trim() === "") return lexical.slice(0, wanted);
      for (const id of dropped) vectors.remove(scope, id).catch((error: unknown) => failed("remove", error));
      try {
        return fuse([lexical, await side.rank(scope, state, query, depth, options)], wanted);
      } catch (error) {
        if (options.signal?.aborted !== true) failed("query", error);
        return lexical.slice(0, wanted);
      }
    },
    async upsert(scope, doc, options = {}) {
      if (side === undefined) return cache.upsert(scope, doc);
      const state = cache.open(scope);
      cache.upsert(scope, doc);
      try {
        await side.upsert(scope, state, doc, options.signal);
      } catch (error) {
        // Not fatal: the document is embedded with a later query (it has no vector until then).
        if (options.signal?.aborted !== true) failed("upsert", error);
      }
    },
    async remove(scope, id) {
      cache.remove(scope, id);
      if (side !== undefined) await vectors.remove(scope, id);
    },
    async clear(scope) {
      cache.forget(scope);
      if (side !== undefined) await vectors.clear(scope);
    },
    async close() {
      cache.clear();
      await vectors.close();
    },
  };
}
