import { createStore, type Store } from "../store/index.js";
import { withCatalogCache, type CatalogCacheOptions } from "./catalog-cache.js";
import { createMemoryRegistry, createMemoryRegistryState } from "./memory-registry.js";
import { createRedisRegistry } from "./redis-registry.js";
import type { Registry } from "./types.js";

export interface RegistryOptions {
  /** @defaultValue `createStore()`: Redis when configured in the environment, else memory (owned, and closed, by the registry) */
  readonly store?: Store;
  /** The catalog cache in front of a Redis registry; `false` for none. @defaultValue `{}` (1 s fresh, 5 s stale) */
  readonly cache?: CatalogCacheOptions | false;
}

/**
 * The registry for a store: the Redis adapter behind a catalog cache, or the in-memory adapter over
 * the store's process-wide state (registries of one memory namespace share their catalog, as they
 * would share a Redis).
 */
export function createRegistry(options: RegistryOptions = {}): Registry {
  const { store = createStore(), cache = {} } = options;
  if (store.kind === "memory") return createMemoryRegistry({ state: store.slot("registry", createMemoryRegistryState) });
  const registry = createRedisRegistry(store, { ownsStore: options.store === undefined });
  return cache === false ? registry : withCatalogCache(registry, cache);
}

let shared: Registry | undefined;

/**
 * The process-wide registry every served component uses unless told otherwise, from the
 * environment's store settings (DESIGN §5). It lives as long as the process: `close()` on it does
 * nothing, and its Redis connection does not keep the process alive.
 */
export function defaultRegistry(): Registry {
  if (shared === undefined) {
    const registry = createRegistry({ store: createStore({ unref: true }) });
    shared = { ...registry, close: async () => undefined };
  }
  return shared;
}
