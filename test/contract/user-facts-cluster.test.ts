import { createFactStore } from "../../runtime/memory/index.js";
import { startRedisCluster } from "../support/redis.js";
import { freshRedisStores } from "./fresh-stores.js";
import { advanceRedis } from "./user-facts-redis-time.js";
import { userFactsCases } from "./user-facts.cases.js";

const cluster = await startRedisCluster();
const stores = freshRedisStores(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));

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
    return { facts, replica: createFactStore({ store: stores.replica(store), ...options }), advance: (ms) => advanceRedis(store, ms) };
  },
  async () => {
    await stores.closeAll();
    await cluster.close();
  },
);
