import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createExecutionStore } from "../../runtime/orchestration/index.js";
import type { RedisStore } from "../../runtime/store/index.js";
import { freshRedisStores } from "./fresh-stores.js";
import { startRedisServer } from "../support/redis.js";
import { executionRecord, executionStoreCases } from "./execution-store.cases.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));
const redisStore = (): RedisStore => stores.store();

const layout = suite("execution store (redis key layout)");
layout("one key per record, manifold:v1:<namespace>:executions:<plan_id>, with the 24 h default TTL", async () => {
  const store = redisStore();
  const executions = createExecutionStore({ store });
  const record = executionRecord();
  await executions.save(record);
  const key = `manifold:v1:${store.namespace}:executions:${record.plan_id}`;
  const text = (await store.client.get(key))!;
  assert.equal(JSON.parse(text), { ...record, revision: 1 });
  assert.ok(text.startsWith('{"revision":1,'), "the revision first: save-1.lua rewrites it without decoding the record");
  const ttl = await store.client.pttl(key);
  assert.ok(ttl > 24 * 3600_000 - 60_000 && ttl <= 24 * 3600_000, `ttl ${ttl}`);
});
layout.run();

// createExecutionStore picks the Redis adapter for a Redis store, as an agent's would.
executionStoreCases(
  "redis",
  async (options) => {
    const executions = createExecutionStore({ store: redisStore(), ...options });
    if (executions.kind !== "redis") throw new Error("expected the redis adapter");
    return executions;
  },
  async () => {
    await stores.closeAll();
    await server.close();
  },
);
