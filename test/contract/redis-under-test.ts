/** The registry contract's factory for a Redis (or Redis Cluster) store: a fresh namespace per test. */
import { randomBytes } from "node:crypto";
import { createRedisRegistry } from "../../runtime/discovery/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import type { RegistryFactory } from "./registry.cases.js";

export function redisRegistryFactory(env: () => Record<string, string>): RegistryFactory {
  return async () => {
    const namespace = `t${randomBytes(4).toString("hex")}`;
    const store = createStore({ env: { ...env(), MANIFOLD_REDIS_NAMESPACE: namespace }, log: () => undefined }) as RedisStore;
    const registry = createRedisRegistry(store, { ownsStore: true, connectWaitMs: 5_000 });
    return {
      registry,
      indexMembers: async (index) => (await store.client.smembers(store.keys.shared("registry", "index", ...index.split(":")))).sort(),
      close: () => registry.close(),
    };
  };
}
