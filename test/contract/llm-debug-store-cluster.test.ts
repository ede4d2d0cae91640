import { randomBytes } from "node:crypto";
import { createLlmDebugStore } from "../../runtime/llm/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisCluster } from "../support/redis.js";
import { llmDebugStoreCases } from "./llm-debug-store.cases.js";

const cluster = await startRedisCluster();
const stores: RedisStore[] = [];

// The record key and the two index keys hash to different slots: every command must stay single-key.
llmDebugStoreCases(
  "redis cluster, 3 masters",
  async (options) => {
    const env = { MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv, MANIFOLD_REDIS_NAMESPACE: `t${randomBytes(4).toString("hex")}` };
    const store = createStore({ env, log: () => undefined }) as RedisStore;
    stores.push(store);
    if (!store.cluster) throw new Error("expected a cluster connection");
    const debug = createLlmDebugStore({ store, env, ...options });
    if (debug.kind !== "redis") throw new Error("expected the redis adapter");
    return debug;
  },
  async () => {
    await Promise.all(stores.map((s) => s.close()));
    await cluster.close();
  },
);
