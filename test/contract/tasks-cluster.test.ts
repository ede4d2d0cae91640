import { startRedisCluster } from "../support/redis.js";
import { taskDeliveryCases } from "./tasks-delivery.cases.js";
import { redisTasksFactory } from "./tasks-under-test.js";
import { taskTransitionCases } from "./tasks-transitions.cases.js";
import { taskCases } from "./tasks.cases.js";

const cluster = await startRedisCluster();
const factory = redisTasksFactory(() => ({ MANIFOLD_REDIS_CLUSTER_NODES: cluster.nodesEnv }));
taskCases("redis cluster, 3 masters", factory);
taskTransitionCases("redis cluster, 3 masters", factory);
taskDeliveryCases("redis cluster, 3 masters", factory, () => cluster.close());
