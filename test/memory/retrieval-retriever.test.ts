/**
 * The retriever: lexical ranking unless vectors are asked for (MANIFOLD_MEMORY_VECTORS=true with a
 * provider that embeds); then the real `openai` client embeds through the scripted server and vector
 * ranking is fused with lexical ranking (reciprocal rank fusion), so a document that shares no word
 * with the query but means the same is recalled. An embeddings failure ranks lexically (logged at
 * most once a minute); the documents given are the truth (a removed one is never recalled); an
 * external vector database URL is refused by name; embeddings calls reach the LLM debug record as
 * category `embedding`.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, createMemoryLlmDebugStore, resolveLlmConfig, type LlmProvider } from "../../runtime/llm/index.js";
import { createRetriever, fuse, stem, tokenize, type RetrievalDoc } from "../../runtime/memory/retrieval/index.js";
import { createScopeCache, docBytes } from "../../runtime/memory/retrieval/scopes.js";
import { createCallRecorder } from "../../runtime/orchestration/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { createManualClock } from "../support/clock.js";
import { scriptedEmbedding } from "../support/scripted-embeddings.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";

/** Synonyms meet in the scripted vectors (never in the lexical index): what vector retrieval adds. */
const CONCEPTS = new Map([
  [stem("suitcase"), "travelbag"],
  [stem("luggage"), "travelbag"],
  [stem("bags"), "travelbag"],
]);
const semantic = (text: string): number[] =>
  scriptedEmbedding(
    tokenize(text)
      .map((t) => CONCEPTS.get(t) ?? t)
      .join(" "),
  );

const DOCS: RetrievalDoc[] = [
  { id: "bring", text: "Likes to bring snacks on flights" },
  { id: "hard-shell", text: "Prefers hard-shell luggage" },
  { id: "seat", text: "Wants an aisle seat" },
  { id: "diet", text: "Vegetarian meals only" },
];
const QUERY = "what suitcase should I bring";
const ON = { MANIFOLD_MEMORY_VECTORS: "true" };

interface Context {
  llm: ScriptedLlm;
  provider: LlmProvider;
  lines: string[];
}
const test = suite<Context>("retriever", {} as Context);

test.before.each(async (context) => {
  context.llm = await startScriptedLlm(undefined, { embedding: semantic });
  context.provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.lines = [];
});
test.after.each(async ({ llm }) => {
  await llm.close();
});

const logTo = (lines: string[]) => createLogger({ write: (line) => lines.push(line), pretty: false, env: {} });
const ids = (ranked: readonly { id: string }[]): string[] => ranked.map((r) => r.id);

test("lexical by default: no embeddings call unless MANIFOLD_MEMORY_VECTORS=true and the provider embeds", async ({ llm, provider }) => {
  for (const retriever of [
    createRetriever({ provider, env: {} }),
    createRetriever({ provider, env: { MANIFOLD_MEMORY_VECTORS: "false" } }),
    createRetriever({ env: ON }),
  ]) {
    assert.is(retriever.vector, false);
    assert.equal(ids(await retriever.rank("u1", QUERY, DOCS, 5)), ["bring"]);
    await retriever.upsert("u1", { id: "new", text: "new suitcase" });
  }
  assert.is(llm.embeddingRequests.length, 0);
});

test("vectors on: a synonym with no word in common is recalled beside the lexical match", async ({ llm, provider }) => {
  const retriever = createRetriever({ provider, env: ON });
  assert.is(retriever.vector, true);
  const ranked = await retriever.rank("u1", QUERY, DOCS, 2);
  assert.equal(ids(ranked).sort(), ["bring", "hard-shell"]);
  // One call: the query, and the scope's documents that had no vector yet.
  assert.is(llm.embeddingRequests.length, 1);
  assert.equal(llm.embeddingRequests[0]!.body.input, [QUERY, ...DOCS.map((d) => d.text)]);
  await retriever.rank("u1", QUERY, DOCS, 2);
  assert.equal(llm.embeddingRequests[1]!.body.input, [QUERY], "documents are embedded once");
  await retriever.close();
});

test("upsert embeds the document; the store's documents are the truth; remove and clear drop vectors at once", async ({ llm, provider }) => {
  const retriever = createRetriever({ provider, env: ON });
  await retriever.rank("u1", QUERY, DOCS, 5);
  const bags = { id: "bags", text: "Checks two bags" };
  await retriever.upsert("u1", bags);
  assert.equal(llm.embeddingRequests.at(-1)!.body.input, [bags.text]);
  assert.ok(ids(await retriever.rank("u1", QUERY, [...DOCS, bags], 5)).includes("bags"));
  assert.equal(llm.embeddingRequests.at(-1)!.body.input, [QUERY], "the upserted document was not embedded again");
  // Gone from the store: never recalled, though its vector was there.
  assert.not.ok(ids(await retriever.rank("u1", QUERY, DOCS, 5)).includes("bags"));
  await retriever.remove("u1", "hard-shell");
  const without = DOCS.filter((d) => d.id !== "hard-shell");
  assert.not.ok(ids(await retriever.rank("u1", QUERY, without, 5)).includes("hard-shell"));
  await retriever.clear("u1");
  assert.equal(ids(await retriever.rank("u1", "aisle", DOCS, 1)), ["seat"]);
  assert.equal(llm.embeddingRequests.at(-1)!.body.input, ["aisle", ...DOCS.map((d) => d.text)], "a cleared scope is embedded anew");
});

test("an embeddings failure ranks lexically, logged at most once a minute", async ({ llm, provider, lines }) => {
  const clock = createManualClock();
  const retriever = createRetriever({ provider, env: ON, clock, log: logTo(lines) });
  llm.failEmbeddings({ status: 500 }, { status: 500 }, { status: 500 });
  assert.equal(ids(await retriever.rank("u1", QUERY, DOCS, 5)), ["bring"]);
  assert.equal(ids(await retriever.rank("u1", QUERY, DOCS, 5)), ["bring"]);
  assert.is(lines.filter((l) => l.includes("vector retrieval failed")).length, 1);
  await clock.advance(60_000);
  await retriever.rank("u1", QUERY, DOCS, 5);
  assert.is(lines.filter((l) => l.includes("vector retrieval failed")).length, 2);
  // Back up: fused again, the documents still embedded with the next query.
  assert.equal(ids(await retriever.rank("u1", QUERY, DOCS, 2)).sort(), ["bring", "hard-shell"]);
});

test("the query's embeddings call is in the LLM debug record as category embedding, failures too", async ({ llm, provider }) => {
  const store = createMemoryLlmDebugStore();
  const record = createCallRecorder(store, { requestId: "req-1", component: "agent" }, createLogger({ write: () => undefined, env: {} }));
  const retriever = createRetriever({ provider, env: ON, log: logTo([]) });
  await retriever.rank("u1", QUERY, DOCS, 2, { record, purpose: "user_memory_recall_query" });
  llm.failEmbeddings({ status: 500 });
  await retriever.rank("u1", "aisle", DOCS, 2, { record, purpose: "user_memory_recall_query" });
  const interactions = (await store.get("req-1"))!.interactions;
  assert.equal(
    interactions.map(({ type, category, success, model }) => ({ type, category, success, model })),
    [
      { type: "user_memory_recall_query", category: "embedding", success: true, model: "text-embedding-3-small" },
      { type: "user_memory_recall_query", category: "embedding", success: false, model: "text-embedding-3-small" },
    ],
  );
  assert.ok(interactions[0]!.prompt.includes(QUERY));
  assert.match(interactions[0]!.response, /^5 vectors of 64 dimensions$/);
  assert.is(interactions[0]!.prompt_tokens, llm.embeddingRequests[0]!.body.input.join(" ").split(/\s+/).length);
  assert.is(interactions[1]!.error?.code, "LLM_ERROR");
});

test("MANIFOLD_VECTOR_DB_URL is refused by name (no adapter in this release); MANIFOLD_MEMORY_VECTORS takes true or false", () => {
  assert.throws(
    () => createRetriever({ env: { MANIFOLD_VECTOR_DB_URL: "http://127.0.0.1:6333" } }),
    (error: unknown) =>
      error instanceof RangeError &&
      error.message ===
        "MANIFOLD_VECTOR_DB_URL is set, but there is no adapter for an external vector database in this release; unset it to use the in-process index",
  );
  assert.throws(() => createRetriever({ env: { MANIFOLD_MEMORY_VECTORS: "yes" } }), /MANIFOLD_MEMORY_VECTORS must be true or false/);
  assert.is(createRetriever({ env: { MANIFOLD_VECTOR_DB_URL: " " } }).vector, false);
});

test("a scope's index follows its documents: changed texts are indexed again, dropped ones go", async ({ provider }) => {
  const retriever = createRetriever({ provider, env: {}, maxScopes: 1 });
  assert.equal(ids(await retriever.rank("u1", "aisle", DOCS, 5)), ["seat"]);
  const changed = DOCS.map((d) => (d.id === "seat" ? { id: "seat", text: "Wants a window seat" } : d));
  assert.equal(await retriever.rank("u1", "aisle", changed, 5), []);
  assert.equal(ids(await retriever.rank("u1", "window", changed, 5)), ["seat"]);
  // Another scope pushes u1 out of the cache (maxScopes 1): it is indexed again from its documents.
  assert.equal(ids(await retriever.rank("u2", "snacks", DOCS, 5)), ["bring"]);
  assert.equal(ids(await retriever.rank("u1", "window", changed.slice(0, 2), 5)), []);
  assert.equal(await retriever.rank("u1", "window", [], 5), []);
  assert.equal(await retriever.rank("u1", "window", changed, 0), []);
});

test("the kept per-scope indexes are bounded in bytes: past maxBytes the least recently used scope is forgotten", () => {
  const text = "Prefers an aisle seat on long flights, and a vegetarian meal. ".repeat(6);
  const docs = (n: number): RetrievalDoc[] => Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: `${i} ${text}` }));
  const cache = createScopeCache({ maxScopes: 1_000, maxDocs: 1_000_000, maxBytes: 250 * docBytes(`100 ${text}`) });
  cache.reconcile("u1", docs(100));
  cache.reconcile("u2", docs(100));
  assert.ok(cache.peek("u1") !== undefined && cache.peek("u2") !== undefined, "200 documents fit");
  cache.reconcile("u1", docs(100));
  cache.reconcile("u3", docs(100));
  assert.is(cache.peek("u2"), undefined, "the least recently used scope went");
  assert.ok(cache.peek("u1") !== undefined && cache.peek("u3") !== undefined);
  cache.forget("u3");
  cache.reconcile("u4", docs(100));
  assert.ok(cache.peek("u1") !== undefined, "a forgotten scope's bytes are given back");
});

test("fusion: documents both lists rank well come first; ties by id", () => {
  const a = [
    { id: "x", score: 9 },
    { id: "y", score: 5 },
  ];
  const b = [
    { id: "y", score: 0.9 },
    { id: "z", score: 0.8 },
    { id: "x", score: 0.1 },
  ];
  assert.equal(ids(fuse([a, b], 3)), ["y", "x", "z"]);
  assert.equal(ids(fuse([[{ id: "b", score: 1 }], [{ id: "a", score: 1 }]], 2)), ["a", "b"]);
});

test.run();
