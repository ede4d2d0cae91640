import { startRedisServer } from "../support/redis.js";
import { redisRegistryFactory } from "./redis-under-test.js";
import { registryCases } from "./registry.cases.js";

const server = await startRedisServer();
registryCases(
  "redis",
  redisRegistryFactory(() => ({ REDIS_URL: server.url })),
  () => server.close(),
);
