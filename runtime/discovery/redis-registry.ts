import { ManifoldError } from "../errors/index.js";
import { defineLuaScript, runScript, type RedisStore } from "../store/index.js";
import { capabilityList, checkName, checkRegistration, indexesOf, LIST_DEFAULT, LOOKUP_DEFAULT, resolveTiming, select, toStoredRecord } from "./entry.js";
import { createRecordReader } from "./redis-records.js";
import type { Registry, RegistryEntry } from "./types.js";

const REGISTER = defineLuaScript("registry", new URL("./lua/register.lua", import.meta.url));
const UNREGISTER = defineLuaScript("registry", new URL("./lua/unregister-2.lua", import.meta.url));
const LOOKUP = defineLuaScript("registry", new URL("./lua/lookup.lua", import.meta.url));
const GET = defineLuaScript("registry", new URL("./lua/get-1.lua", import.meta.url));

export interface RedisRegistryOptions {
  /** Before the first connection, how long a call waits for it; after that, calls fail at once while Redis is down. @defaultValue 1000 */
  readonly connectWaitMs?: number;
  /** Close the store with the registry. @defaultValue false */
  readonly ownsStore?: boolean;
  /** The cluster namespace (`NAMESPACE`): its keys are `…:registry:ns:<scope>:…`, apart from the unscoped ones. @defaultValue none */
  readonly scope?: string;
}

/**
 * Key layout (namespace `ns`; every key carries the tag `{ns}`, so the scripts run on a cluster):
 * - `manifold:v1:{ns}:registry:component:<id>`: hash {record (JSON), last_seen (ms), indexes, digest (SHA-1 of record)}, PX = TTL
 * - `manifold:v1:{ns}:registry:index:all`, `…:index:name:<name>`, `…:index:type:<type>`,
 *   `…:index:capability:<capability>`: sets of ids, expiring with their longest-lived member
 * - with a cluster namespace (`NAMESPACE`), the same under `manifold:v1:{ns}:registry:ns:<scope>:`
 */
export function createRedisRegistry(store: RedisStore, { connectWaitMs = 1_000, ownsStore = false, scope }: RedisRegistryOptions = {}): Registry {
  const { client, keys } = store;
  const root = scope === undefined ? ["registry"] : ["registry", "ns", scope];
  const recordKey = (id: string): string => keys.shared(...root, "component", id);
  const indexKey = (name: string): string => keys.shared(...root, "index", ...name.split(":"));
  const recordPrefix = `${keys.shared(...root, "component")}:`;

  let everReady = client.status === "ready";
  const offReady = store.onReady(() => void (everReady = true));

  // What failed, not where: the message reaches callers; the store logs the address once per outage.
  const unavailable = (detail: string, cause?: unknown): ManifoldError =>
    new ManifoldError("UNAVAILABLE", `registry unavailable: Redis ${detail}`, cause === undefined ? {} : { cause });

  /**
   * A call while Redis is down fails at once rather than waiting in ioredis's offline queue: a beat
   * is retried anyway, and a lookup is better served from the catalog cache than late.
   */
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    if (client.status !== "ready") {
      const first = !everReady && client.status !== "reconnecting";
      if (!first || !(await store.whenReady(connectWaitMs))) throw unavailable("is not connected");
      everReady = true;
    }
    try {
      return await run();
    } catch (error) {
      throw unavailable("command failed", error);
    }
  };

  const records = createRecordReader(client, recordKey);

  /** Two round trips at most: every member's digest, then only the records not already parsed at it. */
  const lookup = (indexNames: readonly string[]): Promise<RegistryEntry[]> =>
    call(async () =>
      records.lookup(await runScript(client, LOOKUP, indexNames.map(indexKey), [recordPrefix]), indexNames.length === 1 && indexNames[0] === "all"),
    );

  return {
    register: async (component, options) => {
      checkRegistration(component);
      const timing = resolveTiming(options);
      const record = JSON.stringify(toStoredRecord(component, timing));
      const indexKeys = ["all", ...indexesOf(component)].map(indexKey);
      await call(() => runScript(client, REGISTER, [recordKey(component.id), ...indexKeys], [component.id, record, timing.ttlMs]));
    },
    unregister: async (id) => {
      checkName(id, "id");
      return (await call(() => runScript(client, UNREGISTER, [recordKey(id), indexKey("all")], [id]))) === 1;
    },
    get: async (id) => {
      checkName(id, "id");
      return records.get(id, (await call(() => runScript(client, GET, [recordKey(id)], []))) as (string | null)[]);
    },
    byName: async (name, options = {}) => select(await lookup([`name:${checkName(name, "name")}`]), options, LOOKUP_DEFAULT),
    byType: async (type, options = {}) => select(await lookup([`type:${checkName(type, "type")}`]), options, LOOKUP_DEFAULT),
    byCapability: async (capabilities, options = {}) =>
      select(await lookup(capabilityList(capabilities).map((c) => `capability:${c}`)), options, LOOKUP_DEFAULT),
    listAll: async (options = {}) => select(await lookup(["all"]), options, LIST_DEFAULT),
    onReconnect: (listener) => store.onReady(listener),
    close: async () => {
      offReady();
      if (ownsStore) await store.close();
    },
  };
}
