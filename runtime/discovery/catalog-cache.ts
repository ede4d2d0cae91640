import { isManifoldError } from "../errors/index.js";
import type { Registry, RegistryEntry } from "./types.js";

export interface CatalogCacheOptions {
  /** A lookup younger than this is answered without asking the store. @defaultValue 1000 */
  readonly freshMs?: number;
  /**
   * An answer used in the last this-many ms of its fresh life is still served at once, and read again
   * behind the lookup (one read per key at a time), so a name looked up steadily never waits for the
   * store: its answer is renewed before it expires. No answer older than `freshMs` is served either
   * way. 0 turns it off. @defaultValue freshMs / 4
   */
  readonly refreshAheadMs?: number;
  /**
   * A key looked up within this long is read ahead by a timer too, not only by a lookup that lands in
   * its last `refreshAheadMs`: under load a name is looked up less often than that window comes round
   * (the client's pacing slips), and each miss was a lookup waiting for Redis. A key not looked up for
   * this long is left to expire. 0 turns the timer off. @defaultValue 10 × freshMs
   */
  readonly keepWarmMs?: number;
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
  /** How to read it again, for the keep-warm timer. */
  readonly fetch: () => Promise<RegistryEntry[] | RegistryEntry | undefined>;
  /** When a lookup last used it. */
  usedAt: number;
}

/**
 * Catalog reads through a short-lived cache. Clients resolve their target before every call, so
 * without it each call would cost a Redis round trip; and when Redis is briefly unreachable (a
 * restart, a failover) callers keep the last answer for `staleMs` instead of failing. Only
 * `UNAVAILABLE` falls back; anything else (bad input) is rethrown. A write made through this
 * registry makes every cached answer stale, so a process sees its own registrations at once.
 * An answer in use is read again shortly before it expires (`refreshAheadMs`): with a lookup before
 * every outbound call, the one that found it expired used to wait a Redis round trip, once a second
 * per name, and those were the lookups' slow percentile (bench/discovery).
 */
export function withCatalogCache(
  registry: Registry,
  { freshMs = 1_000, refreshAheadMs = freshMs / 4, keepWarmMs = 10 * freshMs, staleMs = 5_000, maxEntries = 1_000, now = Date.now }: CatalogCacheOptions = {},
): Registry {
  const ahead = Math.min(Math.max(refreshAheadMs, 0), freshMs);
  const refreshAt = freshMs - ahead;
  const cache = new Map<string, Cached>();
  /** Keys read behind a lookup right now: at most one read each, so at most `maxEntries` (plus the ones being evicted). */
  const refreshing = new Set<string>();
  let generation = 0;
  const warmer = createKeepWarm(ahead === 0 || keepWarmMs <= 0 ? 0 : Math.max(1, ahead / 2), () =>
    sweepWarm(cache, now(), { keepWarmMs, refreshAt, freshMs, generation }, refreshBehind),
  );

  const remember = (key: string, value: Cached["value"], asked: number, fetch: Cached["fetch"], usedAt: number): void => {
    cache.delete(key); // re-inserted last: the Map's order is the eviction order
    cache.set(key, { value, at: now(), generation: asked, fetch, usedAt });
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
    warmer.schedule();
  };

  /** A failed read behind a lookup changes nothing: the answer expires as it would have, and the lookup then reads (and reports). */
  const refreshBehind = (key: string, fetch: Cached["fetch"], usedAt: number): void => {
    if (refreshing.has(key)) return;
    refreshing.add(key);
    const asked = generation; // a write during the read makes its answer stale at once
    fetch()
      .then((value) => remember(key, value, asked, fetch, Math.max(usedAt, cache.get(key)?.usedAt ?? usedAt)))
      .catch(() => undefined)
      .finally(() => refreshing.delete(key));
  };

  const read = async <T extends RegistryEntry[] | RegistryEntry | undefined>(key: string, fetch: () => Promise<T>): Promise<T> => {
    const hit = cache.get(key);
    const at = now();
    if (hit !== undefined && hit.generation === generation && at - hit.at < freshMs) {
      hit.usedAt = at;
      if (at - hit.at >= refreshAt) refreshBehind(key, fetch, at);
      return copy(hit.value) as T;
    }
    const asked = generation; // a write during the fetch makes its answer stale at once
    try {
      const value = await fetch();
      remember(key, value, asked, fetch, at);
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
    close: () => {
      warmer.stop();
      cache.clear();
      return registry.close();
    },
  };
}

/** Reads again each key used within keepWarmMs that is in its read-ahead window; whether any key is still warm. */
function sweepWarm(
  cache: ReadonlyMap<string, Cached>,
  at: number,
  { keepWarmMs, refreshAt, freshMs, generation }: { keepWarmMs: number; refreshAt: number; freshMs: number; generation: number },
  refreshBehind: (key: string, fetch: Cached["fetch"], usedAt: number) => void,
): boolean {
  let warm = false;
  for (const [key, hit] of cache) {
    if (at - hit.usedAt >= keepWarmMs) continue;
    warm = true;
    if (hit.generation === generation && at - hit.at >= refreshAt && at - hit.at < freshMs) refreshBehind(key, hit.fetch, hit.usedAt);
  }
  return warm;
}

/**
 * The keep-warm timer: every `everyMs` it runs `sweep` (which reads again the keys used within
 * keepWarmMs that have entered their read-ahead window, so a key in use is renewed before it expires
 * whether or not a lookup lands in the window), and goes on only while `sweep` says some key is warm.
 * It never holds the process open; `everyMs` 0 turns it off.
 */
function createKeepWarm(everyMs: number, sweep: () => boolean): { schedule(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (): void => {
    if (timer !== undefined || stopped || everyMs === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (sweep()) schedule();
    }, everyMs);
    timer.unref();
  };
  return {
    schedule,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

function copy<T extends RegistryEntry[] | RegistryEntry | undefined>(value: T): T {
  return (Array.isArray(value) ? [...value] : value) as T;
}
