import { createCheckpointStore } from "../../runtime/hitl/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisCluster } from "../support/redis.js";
import { checkpointStoreCases } from "./checkpoints.cases.js";
import { freshRedisStores } from "./fresh-stores.js";

const cluster = await startRedisCluster();
const stores = freshRedisStores(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));
const replicas: RedisStore[] = [];

// Every checkpoint key carries the {checkpoints} hash tag, so each script's keys (and the record keys
// a script derives from a prefix) share one slot; replicas are separate cluster connections.
checkpointStoreCases(
  "redis cluster, 3 masters",
  async (options) => {
    const store = stores.store();
    if (!store.cluster) throw new Error("expected a cluster connection");
    const checkpoints = createCheckpointStore({ store, env: stores.envOf(store), ...options });
    if (checkpoints.kind !== "redis") throw new Error("expected the redis adapter");
    return {
      checkpoints,
      replica: async () => {
        const again = createStore({ env: stores.envOf(store), log: () => undefined }) as RedisStore;
        replicas.push(again);
        return createCheckpointStore({ store: again, env: {}, ...options });
      },
    };
  },
  async () => {
    await Promise.all(replicas.map((s) => s.close()));
    await stores.closeAll();
    await cluster.close();
  },
);
