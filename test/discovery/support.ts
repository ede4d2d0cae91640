/** Helpers for the discovery suites: a registry stand-in that records and fails on demand, and polling. */
import { createMemoryRegistry, type ComponentRegistration, type Registry } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds; the bound makes a broken build fail instead of hang. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
  return Date.now() - started;
}

export interface ScriptedRegistry extends Registry {
  /** When true, every call rejects with UNAVAILABLE. */
  down: boolean;
  readonly registrations: { at: number; component: ComponentRegistration }[];
  readonly unregistered: string[];
  reconnect(): void;
}

/** A memory registry whose availability a test switches, and which records every write. */
export function createScriptedRegistry(): ScriptedRegistry {
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
      scripted.registrations.push({ at: Date.now(), component });
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
