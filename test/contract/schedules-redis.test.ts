import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createScheduleStore } from "../../runtime/scheduling/index.js";
import type { RedisStore } from "../../runtime/store/index.js";
import { freshRedisStores } from "./fresh-stores.js";
import { startRedisServer } from "../support/redis.js";
import { scheduleRecord } from "../support/schedules.js";
import { scheduleStoreCases } from "./schedules.cases.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));
const redisStore = (): RedisStore => stores.store();

const layout = suite("schedule store (redis key layout)");

layout("every key shares the {schedules} hash tag: definitions, fire state, the due index and one index per agent", async () => {
  const store = redisStore();
  const schedules = createScheduleStore({ store, env: {} });
  const record = scheduleRecord(Date.parse("2030-06-01T00:00:00Z"));
  await schedules.create(record);
  const prefix = `manifold:v1:${store.namespace}:{schedules}`;
  const { next_run_at: _n, fire_count: _c, ...definition } = record;
  assert.equal(JSON.parse((await store.client.hget(`${prefix}:defs`, record.schedule_id))!), definition);
  assert.is(Number(await store.client.zscore(`${prefix}:due`, record.schedule_id)), Date.parse(record.next_run_at));
  assert.is(Number(await store.client.zscore(`${prefix}:agent:travel-agent`, record.schedule_id)), Date.parse(record.next_run_at));
  await schedules.advance(record, Date.parse(record.next_run_at), null, new Date().toISOString());
  assert.equal(await store.client.keys(`${prefix}:*`), [], "a fired one-shot leaves no key behind");
});

layout.run();

scheduleStoreCases(
  "redis",
  async (options) => {
    const store = redisStore();
    const schedules = createScheduleStore({ store, env: {}, ...options });
    if (schedules.kind !== "redis") throw new Error("expected the redis adapter");
    return { schedules, store };
  },
  async () => {
    await stores.closeAll();
    await server.close();
  },
);
