import { createSessionStore } from "../../runtime/chat/index.js";
import { startRedisCluster } from "../support/redis.js";
import { freshRedisStores } from "./fresh-stores.js";
import { sessionStoreCases } from "./sessions.cases.js";

const cluster = await startRedisCluster();
const stores = freshRedisStores(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));

// The spec's keys hash to different slots; each script touches the session key alone.
sessionStoreCases(
  "redis cluster, 3 masters",
  async ({ ttlMs }) => {
    const store = stores.store();
    if (!store.cluster) throw new Error("expected a cluster connection");
    const sessions = createSessionStore({ store, env: stores.envOf(store), ...(ttlMs !== undefined && { ttlMs }) });
    if (sessions.kind !== "redis") throw new Error("expected the redis adapter");
    return sessions;
  },
  async () => {
    await stores.closeAll();
    await cluster.close();
  },
);
