import { startRedisCluster } from "../support/redis.js";
import { redisRegistryFactory } from "./redis-under-test.js";
import { registryCases } from "./registry.cases.js";

const cluster = await startRedisCluster();
registryCases(
  "redis cluster, 3 masters",
  redisRegistryFactory(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv })),
  () => cluster.close(),
);
