/** Redis stores for the contract suites: each one in a namespace of its own, all closed together at the end. */
import { randomBytes } from "node:crypto";
import { createStore, type RedisStore } from "../../runtime/store/index.js";

export interface FreshStores {
  /** A new connection in a new, empty namespace (`env` plus `MANIFOLD_REDIS_NAMESPACE`). */
  store(): RedisStore;
  /** The env a store was made with, for adapters that read it too. */
  envOf(store: RedisStore): Record<string, string>;
  /** Another connection to a store's namespace: what a second replica of the process would see. */
  replica(store: RedisStore): RedisStore;
  closeAll(): Promise<void>;
}

export function freshRedisStores(env: () => Record<string, string>): FreshStores {
  const made = new Map<RedisStore, Record<string, string>>();
  const connect = (storeEnv: Record<string, string>): RedisStore => {
    const store = createStore({ env: storeEnv, log: () => undefined }) as RedisStore;
    made.set(store, storeEnv);
    return store;
  };
  return {
    store: () => connect({ ...env(), MANIFOLD_REDIS_NAMESPACE: `t${randomBytes(4).toString("hex")}` }),
    envOf: (store) => made.get(store) ?? {},
    replica: (store) => {
      const storeEnv = made.get(store);
      if (storeEnv === undefined) throw new Error("replica of a store these fresh stores did not make");
      return connect(storeEnv);
    },
    closeAll: async () => {
      await Promise.all([...made.keys()].map((s) => s.close()));
    },
  };
}
