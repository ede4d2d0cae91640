import { createFactStore } from "../../runtime/memory/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisCluster } from "../support/redis.js";
import { freshRedisStores } from "./fresh-stores.js";
import { advanceRedis } from "./user-facts-redis-time.js";
import { userFactsCases } from "./user-facts.cases.js";

const cluster = await startRedisCluster();
const stores = freshRedisStores(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));
const replicas: RedisStore[] = [];

// Each user's facts are one hash under a hash tag of its own, so every script runs on one slot and
// users spread over the masters; the owner list is a key of its own.
userFactsCases(
  "redis cluster, 3 masters",
  async ({ maxFacts, ttlMs }) => {
    const store = stores.store();
    if (!store.cluster) throw new Error("expected a cluster connection");
    const options = { env: {}, ...(maxFacts !== undefined && { maxFacts }), ...(ttlMs !== undefined && { ttlMs }) };
    const facts = createFactStore({ store, ...options });
    if (facts.kind !== "redis") throw new Error("expected the redis adapter");
    const again = createStore({ env: stores.envOf(store), log: () => undefined }) as RedisStore;
    replicas.push(again);
    return { facts, replica: createFactStore({ store: again, ...options }), advance: (ms) => advanceRedis(store, ms) };
  },
  async () => {
    await Promise.all(replicas.map((s) => s.close()));
    await stores.closeAll();
    await cluster.close();
  },
);
