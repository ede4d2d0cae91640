/** Kept for the suites that import it from here: the Redis fixture is test/support/redis.ts. */
export * from "../support/redis.js";
