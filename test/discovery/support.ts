/** Helpers for the discovery suites: a registry stand-in that records and fails on demand. */
import { createMemoryRegistry, type ComponentRegistration, type Registry } from "../../runtime/discovery/index.js";
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
