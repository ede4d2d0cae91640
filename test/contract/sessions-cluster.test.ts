import { randomBytes } from "node:crypto";
import { createSessionStore } from "../../runtime/chat/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisCluster } from "../harness/redis-server.js";
import { sessionStoreCases } from "./sessions.cases.js";

const cluster = await startRedisCluster();
const stores: RedisStore[] = [];

// The spec's keys hash to different slots; each script touches the session key alone.
sessionStoreCases(
  "redis cluster, 3 masters",
  async ({ ttlMs }) => {
    const env = { MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv, MANIFOLD_REDIS_NAMESPACE: `t${randomBytes(4).toString("hex")}` };
    const store = createStore({ env, log: () => undefined }) as RedisStore;
    stores.push(store);
    if (!store.cluster) throw new Error("expected a cluster connection");
    const sessions = createSessionStore({ store, env, ...(ttlMs !== undefined && { ttlMs }) });
    if (sessions.kind !== "redis") throw new Error("expected the redis adapter");
    return sessions;
  },
  async () => {
    await Promise.all(stores.map((s) => s.close()));
    await cluster.close();
  },
);
