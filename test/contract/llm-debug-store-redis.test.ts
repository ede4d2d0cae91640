import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmDebugStore } from "../../runtime/llm/index.js";
import type { RedisStore } from "../../runtime/store/index.js";
import { freshRedisStores } from "./fresh-stores.js";
import { startRedisServer } from "../support/redis.js";
import { interaction, llmDebugStoreCases, requestId } from "./llm-debug-store.cases.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));
const redisStore = (): RedisStore => stores.store();
const HOUR = 3600_000;
const near = (ttl: number, expected: number, what: string) =>
  assert.ok(ttl > expected - 60_000 && ttl <= expected, `${what}: pttl ${ttl}, expected ${expected}`);

const layout = suite("llm debug store (redis key layout)");

layout("one key per record, manifold:v1:<namespace>:llm-debug:<request_id>, with the 72 h default TTL; the index scores updated_at", async () => {
  const store = redisStore();
  const debug = createLlmDebugStore({ store, env: {} });
  const id = requestId();
  await debug.record({ request_id: id, source_component: "planner", interaction: interaction() });
  const key = `manifold:v1:${store.namespace}:llm-debug:${id}`;
  const record = (await debug.get(id))!;
  assert.equal(JSON.parse((await store.client.get(key))!), record);
  near(await store.client.pttl(key), 72 * HOUR, "record");
  const index = `manifold:v1:${store.namespace}:llm-debug-index`;
  assert.is(Number(await store.client.zscore(index, id)), Date.parse(record.updated_at));
  near(await store.client.pttl(index), 72 * HOUR, "index");
  assert.is(await store.client.exists(`${index}:error`), 0, "no error index before an error");
});

layout("MANIFOLD_LLM_DEBUG_TTL and _ERROR_TTL set the key's PTTL by status; an error record joins …:llm-debug-index:error", async () => {
  const store = redisStore();
  const debug = createLlmDebugStore({ store, env: { MANIFOLD_LLM_DEBUG_TTL: "30m", MANIFOLD_LLM_DEBUG_ERROR_TTL: "2h" } });
  const id = requestId();
  const key = `manifold:v1:${store.namespace}:llm-debug:${id}`;
  await debug.record({ request_id: id, source_component: "planner", interaction: interaction() });
  near(await store.client.pttl(key), 30 * 60_000, "success");
  await debug.record({ request_id: id, source_component: "planner", interaction: interaction({ success: false, response: "" }) });
  near(await store.client.pttl(key), 2 * HOUR, "error");
  const errorIndex = `manifold:v1:${store.namespace}:llm-debug-index:error`;
  assert.equal(await store.client.zrevrange(errorIndex, 0, -1), [id]);
  near(await store.client.pttl(errorIndex), 2 * HOUR, "error index");
  await debug.record({ request_id: id, source_component: "planner", interaction: interaction({ attempt: 3 }) });
  near(await store.client.pttl(key), 2 * HOUR, "still error after a later success");
});

layout("a request id with braces is percent-encoded in its key, so it cannot move the key's slot", async () => {
  const store = redisStore();
  const debug = createLlmDebugStore({ store, env: {} });
  await debug.record({ request_id: "a{b}%c", source_component: "planner", interaction: interaction() });
  assert.is(await store.client.exists(`manifold:v1:${store.namespace}:llm-debug:a%7Bb%7D%25c`), 1);
  assert.is((await debug.get("a{b}%c"))?.request_id, "a{b}%c");
});

layout("lists stored as cjson's {} (an empty Lua table) read back as arrays", async () => {
  const store = redisStore();
  const debug = createLlmDebugStore({ store, env: {} });
  const id = requestId();
  const at = new Date().toISOString();
  const stored = { request_id: id, original_request_id: id, source_components: {}, interactions: {}, status: "success", created_at: at, updated_at: at };
  await store.client.set(`manifold:v1:${store.namespace}:llm-debug:${id}`, JSON.stringify(stored));
  const record = (await debug.get(id))!;
  assert.ok(Array.isArray(record.source_components) && Array.isArray(record.interactions));
  assert.equal(record, { ...stored, source_components: [], interactions: [] });
  // An append onto that record (the script decodes {} as an empty table) still gives arrays.
  await debug.record({ request_id: id, source_component: "planner", interaction: interaction() });
  const raw = JSON.parse((await store.client.get(`manifold:v1:${store.namespace}:llm-debug:${id}`))!) as Record<string, unknown>;
  assert.equal(raw["source_components"], ["planner"]);
  assert.equal(raw["interactions"], [interaction()]);
});

layout("an index id whose record expired is skipped, and list still fills its limit", async () => {
  const store = redisStore();
  const debug = createLlmDebugStore({ store, env: {} });
  const ids = [requestId("a"), requestId("b"), requestId("c")];
  for (const id of ids) await debug.record({ request_id: id, source_component: "planner", interaction: interaction() });
  await store.client.del(`manifold:v1:${store.namespace}:llm-debug:${ids[2]}`);
  assert.equal((await debug.list({ limit: 2 })).map((r) => r.request_id).sort(), [ids[0], ids[1]].sort());
});

layout.run();

// createLlmDebugStore picks the Redis adapter for a Redis store, as an agent's would.
llmDebugStoreCases(
  "redis",
  async (options) => {
    const debug = createLlmDebugStore({ store: redisStore(), env: {}, ...options });
    if (debug.kind !== "redis") throw new Error("expected the redis adapter");
    return debug;
  },
  async () => {
    await stores.closeAll();
    await server.close();
  },
);
