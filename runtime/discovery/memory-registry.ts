import {
  capabilityList,
  checkName,
  checkRegistration,
  entryOf,
  indexesOf,
  LIST_DEFAULT,
  LOOKUP_DEFAULT,
  parseRecord,
  resolveTiming,
  select,
  toStoredRecord,
  type ParsedRecord,
} from "./entry.js";
import { ManifoldError } from "../errors/index.js";
import { heapBytes } from "../util/index.js";
import type { ComponentRegistration, RegisterOptions, Registry, RegistryEntry } from "./types.js";

/** Registrations one process's embedded registry holds at most, as UTF-16 JSON (`heapBytes`): thousands of components. */
export const DEFAULT_REGISTRY_MAX_BYTES = 16 * 1024 * 1024;

interface Slot {
  /** Stored serialised, as in Redis: a caller mutating what it passed changes nothing here (what it gets back is frozen). */
  readonly json: string;
  readonly lastSeen: number;
  readonly expiresAt: number;
  readonly indexes: readonly string[];
  /** What the slot counts against the byte budget. */
  readonly bytes: number;
  /** The JSON parsed at its first read, kept by a heartbeat that stores the same JSON (entry.ts ParsedRecord). */
  parsed?: ParsedRecord;
}

/** The slot's entry at `at`: parsed once per stored JSON, the same object while nothing about it changed. */
function entryAt(slot: Slot, at: number) {
  slot.parsed ??= parseRecord(slot.json, slot.json)!;
  return entryOf(slot.parsed, slot.lastSeen, at);
}

/** The registry's state; a memory store keeps one per namespace for the whole process. */
export interface MemoryRegistryState {
  readonly records: Map<string, Slot>;
  readonly indexes: Map<string, Set<string>>;
  /** The records' bytes (`heapBytes` of each stored JSON, ids included). */
  bytes: number;
}

export function createMemoryRegistryState(): MemoryRegistryState {
  return { records: new Map(), indexes: new Map(), bytes: 0 };
}

/** Deletes a record and takes its bytes off the budget (index entries are the caller's). */
function forget(state: MemoryRegistryState, id: string, slot: Slot): void {
  state.records.delete(id);
  state.bytes -= slot.bytes;
}

export interface MemoryRegistryOptions {
  /** @defaultValue a fresh, private state */
  readonly state?: MemoryRegistryState;
  /** @defaultValue Date.now */
  readonly now?: () => number;
  /**
   * Bytes of registrations held. A new id past it is refused with UNAVAILABLE (live records are not
   * evicted: lookups would lose a running component); a known id's heartbeat always goes through,
   * and expired records free their bytes. @defaultValue 16 MiB
   */
  readonly maxBytes?: number;
}

/** One registry over a state: the state may be shared by several (one per namespace), the sweep clock is this one's. */
interface Registered {
  readonly state: MemoryRegistryState;
  readonly now: () => number;
  readonly maxBytes: number;
  lastSweep: number;
}

/** The slot if its record has not expired; an expired one is deleted. */
function live(state: MemoryRegistryState, id: string, at: number): Slot | undefined {
  const slot = state.records.get(id);
  if (slot === undefined || slot.expiresAt > at) return slot;
  forget(state, id, slot);
  return undefined;
}

function removeFromIndexes({ indexes }: MemoryRegistryState, id: string, names: readonly string[]): void {
  for (const name of names) {
    const members = indexes.get(name);
    members?.delete(id);
    if (members?.size === 0) indexes.delete(name);
  }
}

/** Members of every index (AND); a member without a live record is dropped from the index. */
function lookup({ state, now }: Registered, names: readonly string[]): RegistryEntry[] {
  const at = now();
  const [first, ...rest] = names.map((name) => state.indexes.get(name) ?? new Set<string>());
  const out: RegistryEntry[] = [];
  for (const id of [...first!]) {
    if (!rest.every((members) => members.has(id))) continue;
    const slot = live(state, id, at);
    if (slot === undefined) {
      removeFromIndexes(state, id, names);
      continue;
    }
    out.push(entryAt(slot, at));
  }
  return out;
}

/** Drops expired records and their index entries; amortised to at most once a second, so a long-running process with churn does not accumulate. */
function sweep(registered: Registered, at: number): void {
  if (at - registered.lastSweep < 1_000) return;
  registered.lastSweep = at;
  const { state } = registered;
  for (const [id, slot] of state.records)
    if (slot.expiresAt <= at) {
      forget(state, id, slot);
      removeFromIndexes(state, id, ["all", ...slot.indexes]);
    }
}

function register(registered: Registered, component: ComponentRegistration, options: RegisterOptions | undefined): void {
  const { state } = registered;
  checkRegistration(component);
  const timing = resolveTiming(options);
  const at = registered.now();
  sweep(registered, at);
  const record = toStoredRecord(component, timing);
  const names = indexesOf(component);
  const previous = live(state, component.id, at);
  if (previous !== undefined)
    removeFromIndexes(
      state,
      component.id,
      previous.indexes.filter((name) => !names.includes(name)),
    );
  const json = JSON.stringify(record);
  const bytes = heapBytes(json) + heapBytes(component.id);
  if (previous === undefined && state.bytes + bytes > registered.maxBytes) {
    throw new ManifoldError(
      "UNAVAILABLE",
      `the embedded registry holds its maximum of ${Math.round(registered.maxBytes / 1048576)} MiB of registrations; ${component.id} was not registered (configure Redis, REDIS_URL, for a network this large)`,
    );
  }
  state.bytes += bytes - (previous?.bytes ?? 0);
  const parsed = previous?.json === json ? previous.parsed : undefined;
  state.records.set(component.id, { json, lastSeen: at, expiresAt: at + timing.ttlMs, indexes: names, bytes, ...(parsed === undefined ? {} : { parsed }) });
  for (const name of ["all", ...names]) {
    let members = state.indexes.get(name);
    if (members === undefined) state.indexes.set(name, (members = new Set()));
    members.add(component.id);
  }
}

/** True when a live record was removed; an expired one is removed too, but says false. */
function unregister({ state, now }: Registered, id: string): boolean {
  checkName(id, "id");
  const slot = state.records.get(id);
  if (slot === undefined) return false;
  forget(state, id, slot);
  removeFromIndexes(state, id, ["all", ...slot.indexes]);
  return slot.expiresAt > now();
}

function getEntry({ state, now }: Registered, id: string): RegistryEntry | undefined {
  checkName(id, "id");
  const at = now();
  const slot = live(state, id, at);
  return slot === undefined ? undefined : entryAt(slot, at);
}

/**
 * The embedded adapter. It mirrors the Redis one on purpose (index sets, expiry checked on read,
 * stale index members dropped when met) so the contract suite holds both to the same behaviour, and
 * it runs no timers: an expired record costs nothing until a read or a write meets it.
 */
export function createMemoryRegistry({
  state = createMemoryRegistryState(),
  now = Date.now,
  maxBytes = DEFAULT_REGISTRY_MAX_BYTES,
}: MemoryRegistryOptions = {}): Registry {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError("maxBytes must be a positive whole number of bytes");
  const registered: Registered = { state, now, maxBytes, lastSweep: 0 };
  return {
    register: async (component, options) => register(registered, component, options),
    unregister: async (id) => unregister(registered, id),
    get: async (id) => getEntry(registered, id),
    byName: async (name, options = {}) => select(lookup(registered, [`name:${checkName(name, "name")}`]), options, LOOKUP_DEFAULT),
    byType: async (type, options = {}) => select(lookup(registered, [`type:${checkName(type, "type")}`]), options, LOOKUP_DEFAULT),
    byCapability: async (capabilities, options = {}) =>
      select(
        lookup(
          registered,
          capabilityList(capabilities).map((c) => `capability:${c}`),
        ),
        options,
        LOOKUP_DEFAULT,
      ),
    listAll: async (options = {}) => select(lookup(registered, ["all"]), options, LIST_DEFAULT),
    onReconnect: () => () => undefined,
    close: async () => undefined,
  };
}
