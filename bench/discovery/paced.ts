/**
 * The lookup a client makes before each outbound call, as it happens in a running network: the
 * default registry stack (`createRegistry`: catalog cache, records signed with a network key) over
 * Redis, asked for one of the 100 names in turn about once a millisecond, while a writer on its own
 * connection re-registers a component every 10 ms (1,000 components beating every 10 s, each beat
 * re-signed: a changed record to fetch, parse and verify). Only the lookup is timed.
 */
import { createRedisRegistry, createRegistry, withCatalogCache, withRegistryKey, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { catalog, NAMES } from "./catalog.js";

const KEY = "bench-network-key-".padEnd(64, "0");
const BEAT_EVERY_MS = 10;

export interface PacedFigures {
  readonly median: number;
  readonly p99: number;
  /** Lookups that waited for a read of the store (the cache's misses); reads ahead are not waited for. */
  readonly waited: number;
  readonly lookups: number;
}

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A registry that counts the reads a lookup waited for: started and answered while that lookup was in
 * progress. A lookup answered from the cache resolves within microtasks, so no timer (the cache's
 * keep-warm sweep) can start a read during it, and a read it starts behind itself is answered after it.
 */
function counting(registry: Registry, lookupInProgress: () => number, waited: () => void): Registry {
  return {
    ...registry,
    byName: (name, options) => {
      const during = lookupInProgress();
      return registry.byName(name, options).finally(() => {
        if (during !== 0 && during === lookupInProgress()) waited();
      });
    },
  };
}

export interface PacedOptions {
  readonly url: string;
  readonly lookups: number;
  /** The catalog cache's read-ahead (0: the cache before it had one). */
  readonly refreshAheadMs?: number;
  /** The cache's keep-warm timer (0: reading ahead only when a lookup lands in the window, before it). */
  readonly keepWarmMs?: number;
  /** Time a PING on the reader's connection instead of a lookup, paced the same, beats running: the floor of a lookup that waits for Redis. */
  readonly ping?: boolean;
}

/** Registers the catalog signed, starts the beats, and times `lookups` paced lookups after a warm-up second. */
export async function measurePaced({ url, lookups, refreshAheadMs, keepWarmMs, ping = false }: PacedOptions): Promise<PacedFigures> {
  const namespace = `paced-${refreshAheadMs ?? "default"}-${keepWarmMs ?? "default"}-${ping}`;
  const env = { REDIS_URL: url, MANIFOLD_REDIS_NAMESPACE: namespace };
  // A registry closes only a store it opened itself: this one is closed below (left open, its client
  // reconnected forever once the bench's redis-server stopped, and the run never exited).
  const writerStore = createStore({ env, log: () => undefined });
  const writer = createRegistry({ store: writerStore, cache: false, key: KEY, env: {} });
  const components = catalog();
  for (let i = 0; i < components.length; i += 100) await Promise.all(components.slice(i, i + 100).map((c) => writer.register(c, { ttlMs: 600_000 })));
  let beat = 0;
  const beats = setInterval(() => void writer.register(components[beat++ % components.length]!, { ttlMs: 600_000 }).catch(() => undefined), BEAT_EVERY_MS);

  // createRegistry's stack, with a store read counter between the cache and the Redis adapter.
  let reads = 0;
  let lookup = 0; // the number of the lookup in progress, 0 between lookups
  const readerStore = createStore({ env, log: () => undefined }) as RedisStore;
  const adapter = counting(
    createRedisRegistry(readerStore, { connectWaitMs: 5_000 }),
    () => lookup,
    () => (reads += 1),
  );
  const cacheOptions = { ...(refreshAheadMs === undefined ? {} : { refreshAheadMs }), ...(keepWarmMs === undefined ? {} : { keepWarmMs }) };
  const reader = withRegistryKey(withCatalogCache(adapter, cacheOptions), { key: KEY, log: () => undefined });
  // The floor side: one round trip on the reader's connection, counted as the 10 replicas a lookup finds.
  const pingAsLookup = async (): Promise<unknown[]> => {
    await readerStore.client.ping();
    return Array.from({ length: 10 });
  };
  try {
    const times: number[] = [];
    const started = Date.now();
    let waited = 0;
    for (let i = 0; times.length < lookups; i += 1) {
      const warm = Date.now() - started < 1_000;
      const before = reads;
      lookup = i + 1;
      const start = performance.now();
      const found = ping ? await pingAsLookup() : await reader.byName(`svc-${i % NAMES}`);
      const ms = performance.now() - start;
      lookup = 0;
      if (found.length !== 10) throw new Error(`svc-${i % NAMES}: ${found.length} replicas verified, 10 expected`);
      if (!warm) {
        times.push(ms);
        if (reads > before) waited += 1;
      }
      await tick(1);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(times.length / 2)]!, p99: times[Math.floor(times.length * 0.99)]!, waited, lookups: times.length };
  } finally {
    clearInterval(beats);
    await reader.close();
    await readerStore.close();
    await writer.close();
    await writerStore.close();
  }
}
