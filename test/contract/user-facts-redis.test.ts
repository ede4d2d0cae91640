import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createFactStore } from "../../runtime/memory/index.js";
import { startRedisServer } from "../support/redis.js";
import { freshRedisStores } from "./fresh-stores.js";
import { advanceRedis } from "./user-facts-redis-time.js";
import { fact, userFactsCases } from "./user-facts.cases.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));

const layout = suite("user fact store (redis key layout)");

layout("one hash per user under a hash tag of the owner's digest, with the TTL; the owner list beside it; no value in a key", async () => {
  const store = stores.store();
  const facts = createFactStore({ store, env: {}, ttlMs: 3600_000 });
  await facts.put("{alice} smith", fact("home_city", "Lisbon"));
  const keys = (await store.client.keys(`manifold:v1:${store.namespace}:*`)).sort();
  assert.is(keys.length, 2, keys.join());
  const [users, hash] = keys as [string, string];
  assert.match(hash, new RegExp(`^manifold:v1:${store.namespace}:\\{user_facts:[0-9a-f]{32}\\}:facts$`));
  assert.is(users, `manifold:v1:${store.namespace}:user_facts:users`);
  assert.ok((await store.client.pttl(hash)) > 3590_000);
  assert.equal(await store.client.hmget(hash, "n", "user"), ["1", "{alice} smith"]);
  assert.not.match(keys.join(), /Lisbon|alice/);
});

layout.run();

userFactsCases(
  "redis",
  async ({ maxFacts, ttlMs }) => {
    const store = stores.store();
    const options = { env: {}, ...(maxFacts !== undefined && { maxFacts }), ...(ttlMs !== undefined && { ttlMs }) };
    const facts = createFactStore({ store, ...options });
    if (facts.kind !== "redis") throw new Error("expected the redis adapter");
    return { facts, replica: createFactStore({ store: stores.replica(store), ...options }), advance: (ms) => advanceRedis(store, ms) };
  },
  async () => {
    await stores.closeAll();
    await server.close();
  },
);
