/**
 * The Redis registry's records as parsed objects that outlive one lookup: a record is parsed once per
 * stored JSON (known by its digest, the SHA-1 register.lua stores), so a catalog refresh over
 * thousands of unchanged registrations moves ids and digests, parses nothing, and hands out the same
 * frozen objects as the last one (entry.ts ParsedRecord).
 */
import { createHash } from "node:crypto";
import { defineLuaScript, runScript, type RedisClient } from "../store/index.js";
import { entryOf, parseRecord, type ParsedRecord } from "./entry.js";
import type { RegistryEntry } from "./types.js";

const RECORDS = defineLuaScript("registry", new URL("./lua/records.lua", import.meta.url));

/** Records asked for in one call of records.lua: bounds one reply (a few MB) on a first read of a large catalog. */
const RECORDS_PER_CALL = 500;
/** Parsed records kept at most, the least recently read forgotten first; a full listing also forgets every id it no longer lists. */
const MAX_PARSED = 100_000;

const sha1 = (text: string): string => createHash("sha1").update(text).digest("hex");

interface Version {
  readonly id: string;
  readonly lastSeen: number;
  readonly digest: string | null;
}

/** lookup.lua's reply: `[now, id, lastSeen, digest, …]`. */
function versionsOf(reply: unknown): { now: number; versions: Version[] } {
  const items = reply as (string | null)[];
  const versions: Version[] = [];
  for (let i = 1; i + 2 < items.length; i += 3) versions.push({ id: items[i] as string, lastSeen: Number(items[i + 1]), digest: items[i + 2] ?? null });
  return { now: Number(items[0]), versions };
}

export interface RecordReader {
  /** Entries for lookup.lua's reply, fetching (records.lua) only the records not parsed at their digest. `complete`: the reply lists every record. */
  lookup(reply: unknown, complete: boolean): Promise<RegistryEntry[]>;
  /** The entry for get-1.lua's reply `[now, json, lastSeen]`. */
  get(id: string, reply: readonly (string | null)[]): RegistryEntry | undefined;
}

export function createRecordReader(client: RedisClient, recordKey: (id: string) => string): RecordReader {
  const parsed = new Map<string, ParsedRecord>();
  const remember = (id: string, record: ParsedRecord): void => {
    parsed.delete(id); // re-inserted last: the Map's order is the eviction order
    parsed.set(id, record);
    if (parsed.size > MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  };
  /** A full listing names every record there is: the others are gone, and so is their parse. */
  const forgetUnlisted = (versions: readonly Version[]): void => {
    if (parsed.size <= versions.length) return;
    const listed = new Set(versions.map((v) => v.id));
    for (const id of parsed.keys()) if (!listed.has(id)) parsed.delete(id);
  };
  const parsedAt = (id: string, json: string, digest: string): ParsedRecord | undefined => {
    const known = parsed.get(id);
    const record = known?.version === digest ? known : parseRecord(json, digest);
    if (record !== undefined) remember(id, record);
    return record;
  };

  /** The records of `ids`, in batches; a record gone since it was listed is left out. */
  const fetchRecords = async (ids: readonly string[]): Promise<Map<string, { record: ParsedRecord; lastSeen: number }>> => {
    const out = new Map<string, { record: ParsedRecord; lastSeen: number }>();
    for (let i = 0; i < ids.length; i += RECORDS_PER_CALL) {
      const batch = ids.slice(i, i + RECORDS_PER_CALL);
      const reply = (await runScript(client, RECORDS, batch.map(recordKey), [])) as (string | null)[];
      batch.forEach((id, j) => {
        const [json, lastSeen, digest] = [reply[j * 3], reply[j * 3 + 1], reply[j * 3 + 2]];
        const record = typeof json === "string" && typeof digest === "string" ? parsedAt(id, json, digest) : undefined;
        if (record !== undefined) out.set(id, { record, lastSeen: Number(lastSeen) });
      });
    }
    return out;
  };

  return {
    lookup: async (reply, complete) => {
      const { now, versions } = versionsOf(reply);
      const unknown = versions.filter((v) => v.digest === null || parsed.get(v.id)?.version !== v.digest).map((v) => v.id);
      const fetched = unknown.length === 0 ? undefined : await fetchRecords(unknown);
      const out: RegistryEntry[] = [];
      for (const { id, lastSeen, digest } of versions) {
        const fresh = fetched?.get(id);
        const known = fresh === undefined ? parsed.get(id) : undefined;
        if (fresh !== undefined) out.push(entryOf(fresh.record, fresh.lastSeen, now));
        else if (known !== undefined && known.version === digest) out.push(entryOf(known, lastSeen, now));
      }
      if (complete) forgetUnlisted(versions);
      return out;
    },
    get: (id, [now, json, lastSeen]) => {
      const record = typeof json === "string" ? parsedAt(id, json, sha1(json)) : undefined;
      return record === undefined ? undefined : entryOf(record, Number(lastSeen), Number(now));
    },
  };
}
