/** Helpers for the discovery suites: a registry stand-in that records and fails on demand. */
import { createMemoryRegistry, withCatalogCache, type CatalogCacheOptions, type ComponentRegistration, type Registry } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { systemClock, type Clock } from "../../runtime/util/index.js";

export interface ScriptedRegistry extends Registry {
  /** When true, every call rejects with UNAVAILABLE. */
  down: boolean;
  readonly registrations: { at: number; component: ComponentRegistration }[];
  readonly unregistered: string[];
  reconnect(): void;
}

/** A memory registry whose availability a test switches, and which records every write (at `clock`'s time). */
export function createScriptedRegistry(clock: Clock = systemClock): ScriptedRegistry {
  const inner = createMemoryRegistry();
  const listeners = new Set<() => void>();
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (scripted.down) throw new ManifoldError("UNAVAILABLE", "registry unavailable: scripted outage");
      return fn(...args);
    };
  const scripted: ScriptedRegistry = {
    down: false,
    registrations: [],
    unregistered: [],
    register: guard(async (component, options) => {
      scripted.registrations.push({ at: clock.now(), component });
      await inner.register(component, options);
    }),
    unregister: guard(async (id) => {
      scripted.unregistered.push(id);
      return inner.unregister(id);
    }),
    get: guard(inner.get),
    byName: guard(inner.byName),
    byType: guard(inner.byType),
    byCapability: guard(inner.byCapability),
    listAll: guard(inner.listAll),
    onReconnect: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reconnect: () => {
      for (const listener of listeners) listener();
    },
    close: async () => undefined,
  };
  return scripted;
}

/**
 * A catalog cache over a scripted registry whose reads are counted, on a clock the test moves
 * (freshMs 1 s, staleMs 5 s unless given). `byName` is the registry's own read, uncounted.
 */
export function countingCatalog(options: Partial<CatalogCacheOptions> = {}) {
  let now = 1_000_000;
  const inner = createScriptedRegistry();
  let reads = 0;
  const byName = inner.byName;
  inner.byName = async (...args) => {
    reads += 1;
    return byName(...args);
  };
  const cached = withCatalogCache(inner, { freshMs: 1_000, staleMs: 5_000, now: () => now, ...options });
  return { inner, cached, byName, reads: () => reads, advance: (ms: number) => (now += ms) };
}
