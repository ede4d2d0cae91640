import { randomBytes } from "node:crypto";
import { createScheduleStore } from "../../runtime/scheduling/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisCluster } from "../support/redis.js";
import { scheduleStoreCases } from "./schedules.cases.js";

const cluster = await startRedisCluster();
const stores: RedisStore[] = [];

// Every schedule key carries the {schedules} hash tag, so each script's keys share one slot; the
// executor's task keys hash elsewhere, which the firing claim case exercises.
scheduleStoreCases(
  "redis cluster, 3 masters",
  async (options) => {
    const env = { MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv, MANIFOLD_REDIS_NAMESPACE: `t${randomBytes(4).toString("hex")}` };
    const store = createStore({ env, log: () => undefined }) as RedisStore;
    stores.push(store);
    if (!store.cluster) throw new Error("expected a cluster connection");
    const schedules = createScheduleStore({ store, env, ...options });
    if (schedules.kind !== "redis") throw new Error("expected the redis adapter");
    return { schedules, store };
  },
  async () => {
    await Promise.all(stores.map((s) => s.close()));
    await cluster.close();
  },
);
