/**
 * Issue 32 M5: the embedded LLM debug store is bounded in bytes, not only in records. 1,000 requests
 * whose plans were 200 KB of unparsable text used to keep 1,000 × (64 KiB prompt + 64 KiB response);
 * now the least recently updated records go once the store's own byte count passes its budget.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryLlmDebugStore, DEFAULT_LLM_DEBUG_MAX_BYTES, type LlmInteraction } from "../../runtime/llm/index.js";

const test = suite("llm debug store byte budget");

const big = (seed: number): string => `${seed} `.padEnd(200 * 1024, "{not json ");

function interaction(seed: number): LlmInteraction {
  return {
    type: "plan_generation",
    category: "llm",
    started_at: "2030-01-01T00:00:00.000Z",
    duration_ms: 5,
    prompt_tokens: 1,
    completion_tokens: 1,
    total_tokens: 2,
    model: "m",
    attempt: 1,
    success: false,
    prompt: big(seed),
    response: big(seed + 1),
    error: { code: "LLM_ERROR", message: "not a plan" },
  };
}

const textBytes = (records: readonly { interactions: readonly LlmInteraction[] }[]): number =>
  records.reduce(
    (sum, record) =>
      sum +
      record.interactions.reduce((n, i) => n + Buffer.byteLength(i.prompt) + Buffer.byteLength(i.response) + Buffer.byteLength(i.error?.message ?? ""), 0),
    0,
  );

test("1,000 requests with 200 KB plans: the store holds at most its byte budget, newest kept", async () => {
  const store = createMemoryLlmDebugStore();
  for (let i = 0; i < 1000; i += 1) {
    await store.record({ request_id: `req-${i}`, source_component: "agent", interaction: interaction(i) });
  }
  const kept = await store.list({ limit: 1000 });
  assert.ok(textBytes(kept) <= DEFAULT_LLM_DEBUG_MAX_BYTES, `listed text is ${textBytes(kept)} bytes`);
  assert.ok(store.bytes() <= DEFAULT_LLM_DEBUG_MAX_BYTES, `the store counts ${store.bytes()} bytes`);
  assert.ok(store.bytes() >= textBytes(kept), "the store's count covers at least the text it holds");
  assert.ok(kept.length > 10 && kept.length < 1000, `${kept.length} records kept`);
  assert.is(kept[0]!.request_id, "req-999", "the newest is kept");
  assert.is(await store.get("req-0"), undefined, "the oldest went first");
});

test("a small budget: one record over it loses its oldest interactions, never its newest", async () => {
  const store = createMemoryLlmDebugStore({ maxTextBytes: 1024, maxBytes: 8 * 1024 });
  for (let i = 0; i < 20; i += 1) await store.record({ request_id: "one", source_component: "agent", interaction: interaction(i) });
  const record = await store.get("one");
  assert.ok(store.bytes() <= 8 * 1024, `${store.bytes()} bytes`);
  assert.ok(record !== undefined && record.interactions.length >= 1 && record.interactions.length < 20);
  assert.ok(record.interactions.at(-1)!.prompt.startsWith("19 "), "the newest interaction is kept");
  assert.is(record.dropped_interactions, 20 - record.interactions.length);
});

test("a budget that cannot hold one interaction is refused", () => {
  assert.throws(() => createMemoryLlmDebugStore({ maxTextBytes: 1024, maxBytes: 1024 }), /maxBytes/);
});

test.run();
