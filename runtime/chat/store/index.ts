export { createSessionStore, type SessionStoreOptions } from "./create.js";
export { createMemorySessionStore, type MemorySessionStoreOptions } from "./memory-store.js";
export { createRedisSessionStore, type RedisSessionStoreOptions } from "./redis-store.js";
export * from "./types.js";
