import { checkKeyName, createStore, type Store } from "../store/index.js";
import { withCatalogCache, type CatalogCacheOptions } from "./catalog-cache.js";
import { createMemoryRegistry, createMemoryRegistryState } from "./memory-registry.js";
import { createRedisRegistry } from "./redis-registry.js";
import { resolveRegistryKey, withRegistryKey, type RegistryKeyOptions } from "./signing.js";
import type { Registry } from "./types.js";

export interface RegistryOptions {
  /** @defaultValue `createStore()`: Redis when configured in the environment, else memory (owned, and closed, by the registry) */
  readonly store?: Store;
  /** The catalog cache in front of a Redis registry; `false` for none. @defaultValue `{}` (1 s fresh, 5 s stale) */
  readonly cache?: CatalogCacheOptions | false;
  /**
   * The network key records are signed with and checked against (DESIGN §5.5); `false` for none.
   * At least 32 bytes; a shorter one is a RangeError at creation. @defaultValue `MANIFOLD_REGISTRY_KEY`, else none
   */
  readonly key?: string | false;
  /** How a keyed registry reports the records it ignores, and its clock. */
  readonly verification?: Omit<RegistryKeyOptions, "key">;
  /**
   * The cluster namespace (SPEC `NAMESPACE`): components register into it and lookups see only it, so
   * networks sharing one store stay apart. Empty is the unscoped network.
   * @defaultValue `NAMESPACE`, else none
   */
  readonly namespace?: string;
  /** Where `MANIFOLD_REGISTRY_KEY` and `NAMESPACE` are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The registry for a store: the Redis adapter behind a catalog cache, or the in-memory adapter over
 * the store's process-wide state (registries of one memory namespace share their catalog, as they
 * would share a Redis). With a key (`MANIFOLD_REGISTRY_KEY`) it signs what it registers and its
 * lookups return only records that verify (signing.ts).
 */
export function createRegistry(options: RegistryOptions = {}): Registry {
  const { cache = {}, env = process.env } = options;
  // Checked before a store is opened: a bad key fails the start, leaving nothing to close.
  const key = resolveRegistryKey(options.key, env);
  const scope = discoveryNamespace(options.namespace, env);
  const store = options.store ?? createStore();
  const redis = { ownsStore: options.store === undefined, ...(scope === undefined ? {} : { scope }) };
  const registry =
    store.kind === "memory"
      ? createMemoryRegistry({ state: store.slot(scope === undefined ? "registry" : `registry:ns:${scope}`, createMemoryRegistryState) })
      : cache === false
        ? createRedisRegistry(store, redis)
        : withCatalogCache(createRedisRegistry(store, redis), cache);
  // Outside the cache: a record's signature is judged at each lookup, against the clock (its TTL).
  return key === undefined ? registry : withRegistryKey(registry, { ...options.verification, key });
}

/** The option, else `NAMESPACE`; empty is none. It becomes a key segment, so it obeys the key-name rule. */
function discoveryNamespace(option: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const value = option ?? env["NAMESPACE"];
  if (value === undefined || value === "") return undefined;
  return checkKeyName(option === undefined ? "NAMESPACE" : "namespace", value);
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
