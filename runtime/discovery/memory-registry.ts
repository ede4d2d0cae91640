import {
  capabilityList,
  checkName,
  checkRegistration,
  indexesOf,
  LIST_DEFAULT,
  LOOKUP_DEFAULT,
  resolveTiming,
  select,
  toEntry,
  toStoredRecord,
  type StoredRecord,
} from "./entry.js";
import type { Registry, RegistryEntry } from "./types.js";

interface Slot {
  /** Stored serialised, as in Redis: a caller mutating what it passed or got back changes nothing here. */
  readonly json: string;
  readonly lastSeen: number;
  readonly expiresAt: number;
  readonly indexes: readonly string[];
}

/** The registry's state; a memory store keeps one per namespace for the whole process. */
export interface MemoryRegistryState {
  readonly records: Map<string, Slot>;
  readonly indexes: Map<string, Set<string>>;
}

export function createMemoryRegistryState(): MemoryRegistryState {
  return { records: new Map(), indexes: new Map() };
}

export interface MemoryRegistryOptions {
  /** @defaultValue a fresh, private state */
  readonly state?: MemoryRegistryState;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

/**
 * The embedded adapter. It mirrors the Redis one on purpose (index sets, expiry checked on read,
 * stale index members dropped when met) so the contract suite holds both to the same behaviour, and
 * it runs no timers: an expired record costs nothing until a read or a write meets it.
 */
export function createMemoryRegistry({ state = createMemoryRegistryState(), now = Date.now }: MemoryRegistryOptions = {}): Registry {
  const { records, indexes } = state;

  const live = (id: string, at: number): Slot | undefined => {
    const slot = records.get(id);
    if (slot === undefined || slot.expiresAt > at) return slot;
    records.delete(id);
    return undefined;
  };

  const removeFromIndexes = (id: string, names: readonly string[]): void => {
    for (const name of names) {
      const members = indexes.get(name);
      members?.delete(id);
      if (members?.size === 0) indexes.delete(name);
    }
  };

  /** Members of every index (AND); a member without a live record is dropped from the index. */
  const lookup = (names: readonly string[]): RegistryEntry[] => {
    const at = now();
    const [first, ...rest] = names.map((name) => indexes.get(name) ?? new Set<string>());
    const out: RegistryEntry[] = [];
    for (const id of [...first!]) {
      if (!rest.every((members) => members.has(id))) continue;
      const slot = live(id, at);
      if (slot === undefined) {
        removeFromIndexes(id, names);
        continue;
      }
      out.push(toEntry(JSON.parse(slot.json) as StoredRecord, slot.lastSeen, at));
    }
    return out;
  };

  let lastSweep = 0;
  const sweep = (at: number): void => {
    // Amortised: at most once a second, so a long-running process with churn does not accumulate.
    if (at - lastSweep < 1_000) return;
    lastSweep = at;
    for (const [id, slot] of records)
      if (slot.expiresAt <= at) {
        records.delete(id);
        removeFromIndexes(id, ["all", ...slot.indexes]);
      }
  };

  return {
    register: async (component, options) => {
      checkRegistration(component);
      const timing = resolveTiming(options);
      const at = now();
      sweep(at);
      const record = toStoredRecord(component, timing);
      const names = indexesOf(component);
      const previous = live(component.id, at);
      if (previous !== undefined)
        removeFromIndexes(
          component.id,
          previous.indexes.filter((name) => !names.includes(name)),
        );
      records.set(component.id, { json: JSON.stringify(record), lastSeen: at, expiresAt: at + timing.ttlMs, indexes: names });
      for (const name of ["all", ...names]) {
        let members = indexes.get(name);
        if (members === undefined) indexes.set(name, (members = new Set()));
        members.add(component.id);
      }
    },
    unregister: async (id) => {
      checkName(id, "id");
      const slot = records.get(id);
      if (slot === undefined) return false;
      records.delete(id);
      removeFromIndexes(id, ["all", ...slot.indexes]);
      return slot.expiresAt > now();
    },
    get: async (id) => {
      checkName(id, "id");
      const at = now();
      const slot = live(id, at);
      return slot === undefined ? undefined : toEntry(JSON.parse(slot.json) as StoredRecord, slot.lastSeen, at);
    },
    byName: async (name, options = {}) => select(lookup([`name:${checkName(name, "name")}`]), options, LOOKUP_DEFAULT),
    byType: async (type, options = {}) => select(lookup([`type:${checkName(type, "type")}`]), options, LOOKUP_DEFAULT),
    byCapability: async (capabilities, options = {}) => select(lookup(capabilityList(capabilities).map((c) => `capability:${c}`)), options, LOOKUP_DEFAULT),
    listAll: async (options = {}) => select(lookup(["all"]), options, LIST_DEFAULT),
    onReconnect: () => () => undefined,
    close: async () => undefined,
  };
}
