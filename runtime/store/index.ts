/**
 * The connection every stateful module shares: Redis through ioredis (standalone or Cluster) when one
 * is configured, else the embedded in-memory store; the key builder; Lua scripts kept as files.
 */
export { describeStore, resolveStoreConfig, type ClusterConfig, type MemoryConfig, type RedisConfig, type RedisEndpoint, type StoreConfig } from "./config.js";
export { checkKeyName, createKeyBuilder, DEFAULT_NAMESPACE, KEY_PREFIX, NAMESPACE_ENV, resolveNamespace, type KeyBuilder } from "./keys.js";
export { defineLuaScript, loadLuaScript, readLuaScripts, runScript, type LuaScript, type RedisClient } from "./scripts.js";
export { createStore, type MemoryStore, type RedisStore, type Store, type StoreOptions } from "./store.js";
