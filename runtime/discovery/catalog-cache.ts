import { isManifoldError } from "../errors/index.js";
import type { Registry, RegistryEntry } from "./types.js";

export interface CatalogCacheOptions {
  /** A lookup younger than this is answered without asking the store. @defaultValue 1000 */
  readonly freshMs?: number;
  /** While the store is unreachable, a lookup younger than this is answered from the cache. @defaultValue 5000 */
  readonly staleMs?: number;
  /** Most lookups remembered (oldest forgotten first). @defaultValue 1000 */
  readonly maxEntries?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface Cached {
  readonly value: RegistryEntry[] | RegistryEntry | undefined;
  readonly at: number;
  readonly generation: number;
}

/**
 * Catalog reads through a short-lived cache. Clients resolve their target before every call, so
 * without it each call would cost a Redis round trip; and when Redis is briefly unreachable (a
 * restart, a failover) callers keep the last answer for `staleMs` instead of failing. Only
 * `UNAVAILABLE` falls back; anything else (bad input) is rethrown. A write made through this
 * registry makes every cached answer stale, so a process sees its own registrations at once.
 */
export function withCatalogCache(
  registry: Registry,
  { freshMs = 1_000, staleMs = 5_000, maxEntries = 1_000, now = Date.now }: CatalogCacheOptions = {},
): Registry {
  const cache = new Map<string, Cached>();
  let generation = 0;

  const read = async <T extends RegistryEntry[] | RegistryEntry | undefined>(key: string, fetch: () => Promise<T>): Promise<T> => {
    const hit = cache.get(key);
    const at = now();
    if (hit !== undefined && hit.generation === generation && at - hit.at < freshMs) return copy(hit.value) as T;
    const asked = generation; // a write during the fetch makes its answer stale at once
    try {
      const value = await fetch();
      cache.delete(key); // re-inserted last: the Map's order is the eviction order
      cache.set(key, { value, at: now(), generation: asked });
      if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
      return copy(value) as T;
    } catch (error) {
      if (hit !== undefined && isManifoldError(error) && error.code === "UNAVAILABLE" && now() - hit.at < staleMs) return copy(hit.value) as T;
      throw error;
    }
  };

  const write = async <T>(run: () => Promise<T>): Promise<T> => {
    generation += 1;
    try {
      return await run();
    } finally {
      generation += 1;
    }
  };

  return {
    register: (component, options) => write(() => registry.register(component, options)),
    unregister: (id) => write(() => registry.unregister(id)),
    get: (id) => read(`get\0${id}`, () => registry.get(id)),
    byName: (name, options = {}) => read(`name\0${name}\0${options.health ?? ""}`, () => registry.byName(name, options)),
    byType: (type, options = {}) => read(`type\0${type}\0${options.health ?? ""}`, () => registry.byType(type, options)),
    byCapability: (capabilities, options = {}) =>
      read(`capability\0${String(capabilities)}\0${options.health ?? ""}`, () => registry.byCapability(capabilities, options)),
    listAll: (options = {}) => read(`all\0${options.health ?? ""}`, () => registry.listAll(options)),
    onReconnect: (listener) => registry.onReconnect(listener),
    close: () => registry.close(),
  };
}

function copy<T extends RegistryEntry[] | RegistryEntry | undefined>(value: T): T {
  return (Array.isArray(value) ? [...value] : value) as T;
}
