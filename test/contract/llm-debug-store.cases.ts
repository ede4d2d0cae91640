/**
 * The LLM debug store contract: one suite, run against every adapter (llm-debug-store-memory.test.ts,
 * llm-debug-store-redis.test.ts, llm-debug-store-cluster.test.ts). Each test gets a fresh, empty
 * store (a new namespace on Redis); expiry uses short TTLs on the real clock. No case is skipped for
 * any adapter; where the adapters differ by design (what maxRecords bounds) the case says so.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isManifoldError } from "../../runtime/errors/index.js";
import type { LlmDebugStore, LlmInteraction } from "../../runtime/llm/index.js";
import { sleep } from "../support/wait.js";

export interface LlmDebugFactoryOptions {
  readonly ttlMs?: number;
  readonly errorTtlMs?: number;
  readonly maxRecords?: number;
  readonly maxInteractions?: number;
  readonly maxTextBytes?: number;
}
export type LlmDebugStoreFactory = (options: LlmDebugFactoryOptions) => Promise<LlmDebugStore>;

let seq = 0;
/** A request id no other test (nor a previous run against the same Redis) uses. */
export const requestId = (prefix = "req"): string => `${prefix}-${process.pid}-${Date.now()}-${(seq += 1)}`;

export function interaction(overrides: Partial<LlmInteraction> = {}): LlmInteraction {
  return {
    type: "plan_generation",
    category: "llm",
    started_at: "2030-01-01T00:00:00.000Z",
    duration_ms: 812.25,
    prompt_tokens: 1200,
    completion_tokens: 300,
    total_tokens: 1500,
    model: "gpt-4o-mini",
    attempt: 1,
    success: true,
    prompt: "system: plan the trip\nuser: Kyoto in April",
    response: '{"steps":[]}',
    finish_reason: "stop",
    ...overrides,
  };
}

const failure = (overrides: Partial<LlmInteraction> = {}): LlmInteraction => {
  const { finish_reason: _reason, ...rest } = interaction({
    success: false,
    response: "",
    completion_tokens: 0,
    total_tokens: 1200,
    error: { code: "LLM_ERROR", message: "upstream 503" },
    ...overrides,
  });
  return rest;
};

async function rejects(run: () => Promise<unknown>, check: (error: unknown) => boolean, what: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    assert.ok(check(error), `${what}: unexpected ${String(error)}`);
    return;
  }
  assert.unreachable(what);
}

const invalidInput = (error: unknown) => isManifoldError(error) && error.code === "INVALID_INPUT";
const rangeError = (error: unknown) => error instanceof RangeError;

export function llmDebugStoreCases(name: string, create: LlmDebugStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite<{ stores: LlmDebugStore[] }>(`llm debug store (${name})`, { stores: [] });
  const open = async (context: { stores: LlmDebugStore[] }, options: LlmDebugFactoryOptions = {}): Promise<LlmDebugStore> => {
    const store = await create(options);
    context.stores.push(store);
    return store;
  };
  test.after.each(async (context) => {
    await Promise.all(context.stores.map((s) => s.close()));
    context.stores = [];
  });
  test.after(teardown);

  test("the first append creates the record; get reads it back whole; an unknown id is undefined", async (context) => {
    const store = await open(context);
    const id = requestId();
    const call = interaction();
    const before = Date.now();
    await store.record({ request_id: id, source_component: "planner", interaction: call });
    const record = await store.get(id);
    assert.ok(record);
    const { created_at, updated_at, ...rest } = record!;
    assert.equal(rest, { request_id: id, original_request_id: id, source_components: ["planner"], interactions: [call], status: "success" });
    assert.is(created_at, updated_at);
    assert.is(new Date(created_at).toISOString(), created_at, "ISO 8601");
    const after = Date.now();
    assert.ok(before <= Date.parse(created_at) && Date.parse(created_at) <= after, `created_at ${created_at} is when it was recorded`);
    assert.is(await store.get(requestId("unknown")), undefined);
  });

  test("appends accumulate in order; components are distinct in first-seen order; original_request_id stays", async (context) => {
    const store = await open(context);
    const id = requestId();
    const original = requestId("parent");
    const calls = [interaction({ attempt: 1 }), interaction({ type: "synthesis", attempt: 2 }), interaction({ type: "chat", attempt: 3 })];
    await store.record({ request_id: id, original_request_id: original, source_component: "planner", interaction: calls[0]! });
    await sleep(15);
    await store.record({ request_id: id, original_request_id: requestId("other"), source_component: "synthesizer", interaction: calls[1]! });
    await store.record({ request_id: id, source_component: "planner", interaction: calls[2]! });
    const record = (await store.get(id))!;
    assert.equal(record.interactions, calls);
    assert.equal(record.source_components, ["planner", "synthesizer"]);
    assert.is(record.original_request_id, original);
    assert.ok(Date.parse(record.updated_at) > Date.parse(record.created_at), `${record.updated_at} after ${record.created_at}`);
    assert.is(record.dropped_interactions, undefined);
  });

  test("50 concurrent appends to one request are all kept, in order of arrival", async (context) => {
    const store = await open(context);
    const id = requestId();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.record({ request_id: id, source_component: `c${i % 3}`, interaction: interaction({ attempt: i + 1 }) })),
    );
    const record = (await store.get(id))!;
    assert.equal(
      record.interactions.map((i) => i.attempt),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    assert.equal(record.source_components, ["c0", "c1", "c2"]);
  });

  test("one failed call makes the record an error for good; the failure round-trips", async (context) => {
    const store = await open(context);
    const id = requestId();
    await store.record({ request_id: id, source_component: "planner", interaction: interaction() });
    assert.is((await store.get(id))!.status, "success");
    const failed = failure({ attempt: 2 });
    await store.record({ request_id: id, source_component: "planner", interaction: failed });
    assert.is((await store.get(id))!.status, "error");
    await store.record({ request_id: id, source_component: "planner", interaction: interaction({ attempt: 3 }) });
    const record = (await store.get(id))!;
    assert.is(record.status, "error");
    assert.equal(record.interactions[1], failed);
  });

  test("an error record keeps the error TTL, a success record the TTL", async (context) => {
    const store = await open(context, { ttlMs: 250, errorTtlMs: 5_000 });
    const ok = requestId("ok");
    const bad = requestId("bad");
    await store.record({ request_id: ok, source_component: "planner", interaction: interaction() });
    await store.record({ request_id: bad, source_component: "planner", interaction: interaction() });
    await store.record({ request_id: bad, source_component: "planner", interaction: failure() });
    await sleep(500);
    assert.is(await store.get(ok), undefined, "success record expired after ttlMs");
    assert.is((await store.get(bad))?.status, "error", "error record kept for errorTtlMs");
    assert.equal(
      (await store.list()).map((r) => r.request_id),
      [bad],
    );
  });

  test("the TTL restarts on every append", async (context) => {
    const store = await open(context, { ttlMs: 400, errorTtlMs: 400 });
    const id = requestId();
    await store.record({ request_id: id, source_component: "planner", interaction: interaction() });
    await sleep(250);
    await store.record({ request_id: id, source_component: "planner", interaction: interaction({ attempt: 2 }) });
    await sleep(250);
    assert.is((await store.get(id))?.interactions.length, 2, "500 ms after the first append, 250 after the last");
    await sleep(400);
    assert.is(await store.get(id), undefined);
  });

  test("list is newest first by updated_at, filters by status and honours the limit", async (context) => {
    const store = await open(context);
    const ids = [requestId("a"), requestId("b"), requestId("c"), requestId("d")];
    for (const id of ids) {
      await store.record({ request_id: id, source_component: "planner", interaction: id === ids[1] ? failure() : interaction() });
      await sleep(5);
    }
    // An append moves a record to the front.
    await store.record({ request_id: ids[0]!, source_component: "planner", interaction: interaction({ attempt: 2 }) });
    const listed = await store.list();
    assert.equal(
      listed.map((r) => r.request_id),
      [ids[0], ids[3], ids[2], ids[1]],
    );
    assert.equal(listed[0], await store.get(ids[0]!), "whole records");
    assert.equal(
      (await store.list({ limit: 2 })).map((r) => r.request_id),
      [ids[0], ids[3]],
    );
    assert.equal(
      (await store.list({ status: "error" })).map((r) => r.request_id),
      [ids[1]],
    );
    assert.equal(
      (await store.list({ status: "success", limit: 2 })).map((r) => r.request_id),
      [ids[0], ids[3]],
    );
    assert.equal(
      (await store.list({ status: "success" })).map((r) => r.request_id),
      [ids[0], ids[3], ids[2]],
    );
  });

  test("a bad limit or status is a RangeError", async (context) => {
    const store = await open(context);
    for (const limit of [0, -1, 1.5, 1001, Number.NaN]) await rejects(() => store.list({ limit }), rangeError, `limit ${limit}`);
    await rejects(() => store.list({ status: "failed" as "error" }), rangeError, "status failed");
    assert.equal(await store.list({ limit: 1000 }), []);
  });

  test("prompt and response are cut to maxTextBytes on a character boundary, and marked truncated", async (context) => {
    const store = await open(context, { maxTextBytes: 10 });
    const id = requestId();
    const long = interaction({ prompt: "aaaaaaaaa✓tail", response: "12345678🎌", error: { code: "LLM_ERROR", message: "é".repeat(8) } });
    const short = interaction({ prompt: "é✓", response: "1234567890" });
    await store.record({ request_id: id, source_component: "planner", interaction: long });
    await store.record({ request_id: id, source_component: "planner", interaction: short });
    const [cut, kept] = (await store.get(id))!.interactions;
    assert.is(cut!.prompt, "aaaaaaaaa", "a 3-byte character that does not fit is left out whole");
    assert.is(cut!.response, "12345678", "so is a surrogate pair");
    assert.is(cut!.error?.message, "ééééé");
    assert.is(cut!.truncated, true);
    assert.equal(kept, short, "within the cap: unchanged, no truncated flag");
  });

  test("beyond maxInteractions the oldest are dropped and counted", async (context) => {
    const store = await open(context, { maxInteractions: 3 });
    const id = requestId();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await store.record({ request_id: id, source_component: `c${attempt}`, interaction: interaction({ attempt }) });
    }
    const record = (await store.get(id))!;
    assert.equal(
      record.interactions.map((i) => i.attempt),
      [3, 4, 5],
    );
    assert.is(record.dropped_interactions, 2);
    assert.equal(record.source_components, ["c1", "c2", "c3", "c4", "c5"], "components keep every caller");
  });

  test("beyond maxRecords the least recently updated drop out of the list (memory: out of the store)", async (context) => {
    const store = await open(context, { maxRecords: 3 });
    const [a, b, c, d] = [requestId("a"), requestId("b"), requestId("c"), requestId("d")];
    for (const id of [a, b, c]) {
      await store.record({ request_id: id!, source_component: "planner", interaction: interaction() });
      await sleep(5);
    }
    await store.record({ request_id: a!, source_component: "planner", interaction: interaction({ attempt: 2 }) });
    await sleep(5);
    await store.record({ request_id: d!, source_component: "planner", interaction: interaction() });
    assert.equal(
      (await store.list()).map((r) => r.request_id),
      [d, a, c],
    );
    // Memory holds the records themselves, so it evicts; Redis bounds its index and lets each key's TTL bound the rest.
    if (store.kind === "memory") assert.is(await store.get(b!), undefined);
    else assert.is((await store.get(b!))?.request_id, b);
  });

  test("an invalid request id is refused as INVALID_INPUT", async (context) => {
    const store = await open(context);
    for (const bad of ["", "has space", "x".repeat(129), "tab\there", "é", 42 as unknown as string]) {
      const what = JSON.stringify(bad);
      await rejects(() => store.record({ request_id: bad, source_component: "planner", interaction: interaction() }), invalidInput, `record ${what}`);
      await rejects(() => store.get(bad), invalidInput, `get ${what}`);
    }
    await rejects(
      () => store.record({ request_id: requestId(), original_request_id: "no way", source_component: "p", interaction: interaction() }),
      invalidInput,
      "original_request_id",
    );
    assert.ok((await store.get("x".repeat(128))) === undefined, "128 characters is a valid id");
  });

  test("an invalid interaction is a RangeError and writes nothing", async (context) => {
    const store = await open(context);
    const id = requestId();
    const bad: Partial<LlmInteraction>[] = [
      { category: "image" as "llm" },
      { prompt_tokens: -1 },
      { attempt: 0 },
      { duration_ms: Number.NaN },
      { started_at: "yesterday" },
      { success: "yes" as unknown as boolean },
      { prompt: undefined as unknown as string },
    ];
    for (const overrides of bad) {
      await rejects(
        () => store.record({ request_id: id, source_component: "planner", interaction: interaction(overrides) }),
        rangeError,
        JSON.stringify(overrides),
      );
    }
    assert.is(await store.get(id), undefined);
  });

  test("ids like __proto__, constructor and ones with braces are ordinary ids", async (context) => {
    const store = await open(context);
    const ids = ["__proto__", "constructor", "hasOwnProperty", `a{b}c-${requestId()}`, `a%7Bb%7Dc-${requestId()}`];
    assert.is(await store.get("constructor"), undefined);
    for (const [i, id] of ids.entries()) {
      await store.record({ request_id: id, source_component: "planner", interaction: interaction({ attempt: i + 1 }) });
    }
    for (const [i, id] of ids.entries()) {
      const record = await store.get(id);
      assert.is(record?.request_id, id);
      assert.equal(
        record?.interactions.map((x) => x.attempt),
        [i + 1],
        id,
      );
    }
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });

  test("text and numbers round-trip exactly: JSON specials, non-ASCII, NUL, fractional durations", async (context) => {
    const store = await open(context);
    const id = requestId();
    const { finish_reason: _reason, ...bare } = interaction({
      prompt: 'line\nbreak "quoted" \\ </script> 日本 🎌 \u0000 \u2028 {} []',
      response: "",
      duration_ms: 0.001,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      category: "embedding",
      model: "text-embedding-3-small",
    });
    await store.record({ request_id: id, source_component: "embedder", interaction: bare });
    await store.record({ request_id: id, source_component: "embedder", interaction: interaction({ duration_ms: 1234.5678901 }) });
    const [first, second] = (await store.get(id))!.interactions;
    assert.equal(first, bare, "no optional field appears");
    assert.is(second!.duration_ms, 1234.568, "duration kept to the microsecond");
  });

  test("an interaction keeps its prompt size as sent (prompt_bytes), and a record without one stays without", async (context) => {
    const store = await open(context);
    const id = requestId("sized");
    await store.record({ request_id: id, source_component: "planner", interaction: interaction({ type: "tiered_selection", prompt_bytes: 12_595 }) });
    await store.record({ request_id: id, source_component: "planner", interaction: interaction() });
    const [sized, unsized] = (await store.get(id))!.interactions;
    assert.equal([sized!.type, sized!.prompt_bytes], ["tiered_selection", 12_595]);
    assert.is(unsized!.prompt_bytes, undefined);
  });

  test("finish marks how the request ended: a 422, a 502 or a needs_input makes the record one the errors list finds (it did not end in an answer)", async (context) => {
    const store = await open(context);
    const [invalid, broken, asked] = [requestId("invalid"), requestId("broken"), requestId("asked")];
    for (const id of [invalid, broken, asked]) await store.record({ request_id: id, source_component: "planner", interaction: interaction() });
    const before = Date.now();
    await store.finish({ request_id: invalid, final: { outcome: "failed", http_status: 422, code: "PLAN_INVALID" } });
    await store.finish({ request_id: broken, final: { outcome: "failed", http_status: 502, code: "LLM_ERROR" } });
    await store.finish({ request_id: asked, final: { outcome: "needs_input", http_status: 200 } });
    const invalidRecord = (await store.get(invalid))!;
    assert.is(invalidRecord.status, "error");
    const { at, ...final } = invalidRecord.final!;
    assert.equal(final, { outcome: "failed", http_status: 422, code: "PLAN_INVALID" });
    assert.ok(before <= Date.parse(at!) && Date.parse(at!) <= Date.now(), "at is when it finished");
    assert.is(invalidRecord.interactions.length, 1, "the calls stay");
    assert.is((await store.get(broken))!.final?.code, "LLM_ERROR");
    const askedRecord = (await store.get(asked))!;
    assert.is(askedRecord.status, "error");
    assert.is(askedRecord.final?.outcome, "needs_input");
    // Finished in the same millisecond or not, the order among them is not set: compared as sets.
    assert.equal((await store.list({ status: "error" })).map((r) => r.request_id).sort(), [asked, broken, invalid].sort());
    assert.equal(
      (await store.list({ status: "success" })).map((r) => r.request_id),
      [],
    );
  });

  test("finish with no call recorded creates the record; a later call is appended to it", async (context) => {
    const store = await open(context);
    const id = requestId();
    const original = requestId("first");
    await store.finish({ request_id: id, original_request_id: original, final: { outcome: "failed", http_status: 422, code: "BUDGET_EXCEEDED" } });
    const created = (await store.get(id))!;
    assert.equal([created.original_request_id, created.source_components, created.interactions, created.status], [original, [], [], "error"]);
    await store.record({ request_id: id, source_component: "planner", interaction: interaction() });
    const appended = (await store.get(id))!;
    assert.is(appended.interactions.length, 1);
    assert.is(appended.final?.code, "BUDGET_EXCEEDED", "the final outcome stays");
    assert.equal(appended.source_components, ["planner"]);
  });

  test("a bad final outcome is refused and writes nothing", async (context) => {
    const store = await open(context);
    const id = requestId();
    for (const final of [
      { outcome: "exploded", http_status: 500 },
      { outcome: "failed", http_status: 42 },
      { outcome: "failed", http_status: 502.5 },
    ]) {
      await rejects(() => store.finish({ request_id: id, final: final as never }), rangeError, JSON.stringify(final));
    }
    await rejects(() => store.finish({ request_id: "", final: { outcome: "failed", http_status: 502 } }), invalidInput, "empty id");
    assert.is(await store.get(id), undefined);
  });

  test.run();
}
