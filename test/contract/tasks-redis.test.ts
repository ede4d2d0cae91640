import { startRedisServer } from "../support/redis.js";
import { taskDeliveryCases } from "./tasks-delivery.cases.js";
import { redisTasksFactory } from "./tasks-under-test.js";
import { taskTransitionCases } from "./tasks-transitions.cases.js";
import { taskCases } from "./tasks.cases.js";

const server = await startRedisServer();
const factory = redisTasksFactory(() => ({ REDIS_URL: server.url }));
taskCases("redis", factory);
taskTransitionCases("redis", factory);
taskDeliveryCases("redis", factory, () => server.close());
