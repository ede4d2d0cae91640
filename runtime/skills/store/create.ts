import { createStore, type Store } from "../../store/index.js";
import type { SkillStoreLimits } from "./checks.js";
import { createMemorySkillStore } from "./memory-store.js";
import { createRedisSkillStore } from "./redis-store.js";
import type { SkillStore } from "./types.js";

export interface SkillStoreOptions extends SkillStoreLimits {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the skill store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The skill registry for a store: the Redis adapter on a Redis store, else the memory adapter, held
 * in the memory store's namespace so every agent (and the dashboard) of one process reads the same
 * registry, as replicas share a Redis. Calls with the same limits get the same memory registry.
 */
export function createSkillStore({ store: given, env = process.env, ...limits }: SkillStoreOptions = {}): SkillStore {
  const store = given ?? createStore({ env });
  if (store.kind === "memory") return store.slot(`skills:${JSON.stringify(limits)}`, () => createMemorySkillStore(limits));
  return createRedisSkillStore(store, { ...limits, ownsStore: given === undefined });
}
