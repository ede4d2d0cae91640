/**
 * The registry as the dashboard reads it: one snapshot of every registration, refreshed behind the
 * requests that use it. Reading 1,000 registrations from Redis costs tens of milliseconds (the
 * script, the transfer and the parse of every record), so a request is answered from the last
 * snapshot, with the answer's JSON text already made, while a newer one loads (stale while
 * revalidate). Registrations live 30 s between heartbeats; a view a second old is as true.
 */
import type { HealthState, LookupOptions, Registry, RegistryEntry } from "../discovery/index.js";
import { encodeJson, type EncodedJson } from "./encoded-json.js";
import { serviceRecord } from "./services.js";

export interface RegistryViewOptions {
  /** A snapshot younger than this is used without reloading. @defaultValue 1000 */
  readonly freshMs?: number;
  /** A snapshot older than this is not answered while a reload runs: the request waits for it. @defaultValue 30000 */
  readonly maxStaleMs?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface RegistrySnapshot {
  /** Every registration, every health state, sorted by id. */
  readonly entries: readonly RegistryEntry[];
  readonly at: number;
  /** `/api/services` encoded (bytes, ETag, compressed variants), for all types or one, made once per snapshot. */
  services(type?: "tool" | "agent" | "mcp"): EncodedJson;
}

export interface RegistryView {
  snapshot(): Promise<RegistrySnapshot>;
  /** True when the registry checks records with a key (MANIFOLD_REGISTRY_KEY): only `verified` ones are trusted. */
  readonly verifies: boolean;
  /** A read-only Registry over the snapshot, for code that takes one (the catalog reader). */
  readonly asRegistry: Registry;
}

/**
 * Each record's `/api/services` JSON, made once per record object: the registry hands out the same
 * frozen entry while a registration is unchanged (a heartbeat makes a new one), so a reload of 1,000
 * registrations serialises only the ones that changed and joins the rest.
 */
type RecordJson = WeakMap<RegistryEntry, string>;

function recordJson(cache: RecordJson, entry: RegistryEntry): string {
  let text = cache.get(entry);
  if (text === undefined) cache.set(entry, (text = JSON.stringify(serviceRecord(entry))));
  return text;
}

/** Same records, same objects, same order: the previous snapshot's answers still hold. */
function sameEntries(a: readonly RegistryEntry[], b: readonly RegistryEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function createSnapshot(
  entries: readonly RegistryEntry[],
  at: number,
  records: RecordJson,
  json = new Map<string, EncodedJson>(),
): RegistrySnapshot & { json: Map<string, EncodedJson> } {
  return {
    entries,
    at,
    json,
    services(type) {
      const key = type ?? "all";
      let encoded = json.get(key);
      if (encoded === undefined) {
        // The array's text is its elements' texts joined: JSON.stringify would give the same bytes.
        encoded = encodeJson(`[${(type === undefined ? entries : entries.filter((e) => e.type === type)).map((e) => recordJson(records, e)).join(",")}]`);
        json.set(key, encoded);
      }
      return encoded;
    },
  };
}

const DEFAULT_HEALTH: readonly HealthState[] = ["healthy"];

function select(entries: readonly RegistryEntry[], options: LookupOptions | undefined, fallback: readonly HealthState[] | undefined): RegistryEntry[] {
  const health = options?.health ?? fallback;
  return health === undefined ? [...entries] : entries.filter((e) => health.includes(e.health));
}

/**
 * Whether the dashboard may act on a record (send it commands, fetch from it): with a registry key
 * only a `verified` one; without a key every record, as before (the page says the registry is unsigned).
 */
export function trusted(entry: RegistryEntry, verifies: boolean): boolean {
  return !verifies || entry.verification === "verified";
}

/** `2 ignored (unsigned, bad_signature)`: why a name's records are not acted on. */
export function describeIgnored(entries: readonly RegistryEntry[]): string {
  const reasons = [...new Set(entries.map((e) => e.verification ?? "unsigned"))].sort();
  return `${entries.length} ignored (${reasons.join(", ")})`;
}

export function createRegistryView(registry: Registry, { freshMs = 1000, maxStaleMs = 30_000, now = Date.now }: RegistryViewOptions = {}): RegistryView {
  const verifies = registry.verifies === true;
  let current: ReturnType<typeof createSnapshot> | undefined;
  let loading: Promise<RegistrySnapshot> | undefined;
  const records: RecordJson = new WeakMap();

  const load = (): Promise<RegistrySnapshot> => {
    // One load at a time, however many requests find the snapshot old.
    // Every record, each with its verification: the page shows forged ones too, marked.
    loading ??= registry
      .listAll({ unverified: true })
      .then((entries) => {
        const unchanged = current !== undefined && sameEntries(current.entries, entries);
        const made = createSnapshot(entries, now(), records, unchanged ? current!.json : undefined);
        made.services(); // the common answer is made here, off the next request's path
        current = made;
        return made;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  const snapshot = async (): Promise<RegistrySnapshot> => {
    const age = current === undefined ? Number.POSITIVE_INFINITY : now() - current.at;
    if (current !== undefined && age < freshMs) return current;
    if (current !== undefined && age < maxStaleMs) {
      // A failed reload keeps the last snapshot; the next request tries again.
      load().catch(() => undefined);
      return current;
    }
    return load();
  };

  const read =
    (filter: (entry: RegistryEntry) => boolean, fallback: readonly HealthState[] | undefined) =>
    async (options?: LookupOptions): Promise<RegistryEntry[]> =>
      select(
        (await snapshot()).entries.filter((e) => filter(e) && (options?.unverified === true || trusted(e, verifies))),
        options,
        fallback,
      );

  const asRegistry: Registry = {
    verifies,
    register: () => Promise.reject(new TypeError("the dashboard's registry view is read-only")),
    unregister: () => Promise.reject(new TypeError("the dashboard's registry view is read-only")),
    get: async (id) => (await snapshot()).entries.find((e) => e.id === id && trusted(e, verifies)),
    byName: (name, options) => read((e) => e.name === name, DEFAULT_HEALTH)(options),
    byType: (type, options) => read((e) => e.type === type, DEFAULT_HEALTH)(options),
    byCapability: (capabilities, options) => {
      const wanted = typeof capabilities === "string" ? [capabilities] : capabilities;
      return read((e) => wanted.every((name) => e.capabilities.some((c) => c.name === name)), DEFAULT_HEALTH)(options);
    },
    listAll: (options) => read(() => true, undefined)(options),
    onReconnect: (listener) => registry.onReconnect(listener),
    close: async () => undefined,
  };

  return { snapshot, verifies, asRegistry };
}
