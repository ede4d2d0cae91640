import { randomUUID } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createSessionStore } from "../../runtime/chat/index.js";
import type { RedisStore } from "../../runtime/store/index.js";
import { freshRedisStores } from "./fresh-stores.js";
import { startRedisServer } from "../support/redis.js";
import { sessionStoreCases } from "./sessions.cases.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));
const redisStore = (): RedisStore => stores.store();

const layout = suite("chat session store (redis key layout)");

layout("the spec's keys: sessions:<id> with a 48 h TTL, sessions:index:<user_id> by updated_at ms, sessions:active_session_count", async () => {
  const store = redisStore();
  const sessions = createSessionStore({ store, env: {} });
  const id = randomUUID();
  const now = Date.parse("2030-01-01T00:00:00.000Z");
  await sessions.create({ id, userId: "alice", metadata: {}, now });
  await sessions.append(id, { id: randomUUID(), role: "user", content: "hi", timestamp: new Date(now + 5000).toISOString(), metadata: {} });
  const prefix = `manifold:v1:${store.namespace}:sessions`;
  const ttl = await store.client.pttl(`${prefix}:${id}`);
  assert.ok(ttl > 48 * 3600_000 - 60_000 && ttl <= 48 * 3600_000, String(ttl));
  assert.equal(await store.client.zrange(`${prefix}:index:alice`, "0", "-1", "WITHSCORES"), [id, String(now + 5000)]);
  assert.is(await store.client.get(`${prefix}:active_session_count`), "1");
});

layout.run();

sessionStoreCases(
  "redis",
  async ({ ttlMs }) => {
    const sessions = createSessionStore({ store: redisStore(), env: {}, ...(ttlMs !== undefined && { ttlMs }) });
    if (sessions.kind !== "redis") throw new Error("expected the redis adapter");
    return sessions;
  },
  async () => {
    await stores.closeAll();
    await server.close();
  },
);
