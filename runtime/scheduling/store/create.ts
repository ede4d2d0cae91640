import { createStore, type Store } from "../../store/index.js";
import { createMemoryScheduleStore } from "./memory-store.js";
import { createRedisScheduleStore } from "./redis-store.js";
import { DEFAULT_MAX_SCHEDULES, type ScheduleStore } from "./types.js";

export interface ScheduleStoreOptions {
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the schedule store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Most schedules held; a create beyond it is UNAVAILABLE (503). @defaultValue 100,000 */
  readonly maxSchedules?: number;
}

/**
 * The schedule store for a store: the Redis adapter on a Redis store, else the memory adapter, held
 * in the memory store's namespace so every scheduler of one process shares it, as replicas share a
 * Redis.
 */
export function createScheduleStore({ store: given, env = process.env, maxSchedules = DEFAULT_MAX_SCHEDULES }: ScheduleStoreOptions = {}): ScheduleStore {
  if (!Number.isSafeInteger(maxSchedules) || maxSchedules < 1) throw new RangeError("maxSchedules must be a positive integer");
  const store = given ?? createStore({ env });
  if (store.kind === "memory") return store.slot(`schedules:${maxSchedules}`, () => createMemoryScheduleStore({ maxSchedules }));
  return createRedisScheduleStore(store, { maxSchedules, ownsStore: given === undefined });
}
