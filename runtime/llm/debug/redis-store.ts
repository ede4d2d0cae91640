import { defineLuaScript, runScript, type RedisStore } from "../../store/index.js";
import {
  checkLimits,
  checkListOptions,
  checkRequestId,
  DEFAULT_LLM_DEBUG_TTL_MS,
  DEFAULT_MAX_INTERACTIONS,
  DEFAULT_MAX_RECORDS,
  DEFAULT_MAX_TEXT_BYTES,
  MAX_SOURCE_COMPONENTS,
  prepareEntry,
  prepareFinish,
  endedWithoutAnswer,
  type LlmDebugEntry,
  type LlmDebugFinish,
  type LlmDebugListOptions,
  type LlmDebugRecord,
  type LlmDebugStore,
  type LlmInteraction,
} from "./types.js";

const APPEND = defineLuaScript("llm-debug", new URL("./lua/append-1.lua", import.meta.url));
const FINISH = defineLuaScript("llm-debug", new URL("./lua/finish-1.lua", import.meta.url));

export interface RedisLlmDebugStoreOptions {
  /** How long a record whose calls all succeeded is kept after its last append. @defaultValue 72 h */
  readonly ttlMs?: number;
  /** How long a record with a failed call is kept after its last append. @defaultValue 72 h */
  readonly errorTtlMs?: number;
  /** Each index keeps at most this many request ids (the most recently updated). @defaultValue 1000 */
  readonly maxRecords?: number;
  /** Per record; the oldest interactions are dropped beyond this many. @defaultValue 100 */
  readonly maxInteractions?: number;
  /** Prompt and response (each) are cut to this many UTF-8 bytes. @defaultValue 65536 */
  readonly maxTextBytes?: number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
}

/**
 * A request id as a key part. Ids are any visible ASCII, but a brace would move the key's hash slot
 * (and the key builder refuses one), so `%`, `{` and `}` are percent-encoded; every other id is the
 * key part as it is. Index members are the ids themselves.
 */
export function requestIdKeyPart(requestId: string): string {
  return requestId.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Redis's cjson writes an empty Lua table as `{}`, so an empty list could come back as an object;
 * read as arrays whatever was stored (a record that finish-1.lua created before any call has both empty).
 */
const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

export function parseStoredRecord(text: string): LlmDebugRecord {
  const stored = JSON.parse(text) as LlmDebugRecord;
  return {
    request_id: stored.request_id,
    original_request_id: stored.original_request_id,
    source_components: asArray<string>(stored.source_components),
    interactions: asArray<LlmInteraction>(stored.interactions),
    status: stored.status,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
    ...(stored.dropped_interactions === undefined ? {} : { dropped_interactions: stored.dropped_interactions }),
    ...(stored.final === undefined ? {} : { final: stored.final }),
  };
}

/** One store's connection, key names and limits, which the functions below work with. */
interface DebugKeys {
  readonly client: RedisStore["client"];
  /** Every record, by updated_at. */
  readonly index: string;
  /** Records with a failed call. */
  readonly errorIndex: string;
  /** The main index points at records of either kind, so it lives as long as the longer TTL. */
  readonly indexTtlMs: number;
  readonly ttlMs: number;
  readonly errorTtlMs: number;
  readonly maxRecords: number;
  readonly maxInteractions: number;
  readonly maxTextBytes: number;
  readonly keyOf: (requestId: string) => string;
}

async function readRecord({ client, keyOf }: DebugKeys, requestId: string): Promise<LlmDebugRecord | undefined> {
  const text = await client.get(keyOf(requestId));
  return text === null ? undefined : parseStoredRecord(text);
}

/** One index key, one pipeline: add (GT: a late reply never moves an id back), trim by age and by count. */
async function touchIndex({ client, maxRecords }: DebugKeys, key: string, updated: number, requestId: string, ttl: number): Promise<void> {
  const replies = await client
    .pipeline()
    .zadd(key, "GT", updated, requestId)
    .zremrangebyscore(key, "-inf", `(${updated - ttl}`)
    .zremrangebyrank(key, 0, -(maxRecords + 1))
    .pexpire(key, ttl)
    .exec();
  const failed = replies?.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
}

async function recordEntry(debug: DebugKeys, entry: LlmDebugEntry): Promise<void> {
  const { requestId, originalRequestId, sourceComponent, interaction } = prepareEntry(entry, debug.maxTextBytes);
  const [updated, status] = (await runScript(
    debug.client,
    APPEND,
    [debug.keyOf(requestId)],
    [
      requestId,
      originalRequestId,
      sourceComponent,
      JSON.stringify(interaction),
      interaction.success ? "0" : "1",
      debug.ttlMs,
      debug.errorTtlMs,
      debug.maxInteractions,
      MAX_SOURCE_COMPONENTS,
    ],
  )) as [number, string];
  await Promise.all([
    touchIndex(debug, debug.index, updated, requestId, debug.indexTtlMs),
    status === "error" ? touchIndex(debug, debug.errorIndex, updated, requestId, debug.errorTtlMs) : undefined,
  ]);
}

async function finishRecord(debug: DebugKeys, entry: LlmDebugFinish): Promise<void> {
  const { requestId, originalRequestId, final } = prepareFinish(entry);
  const failed = endedWithoutAnswer(final);
  const [updated, status] = (await runScript(
    debug.client,
    FINISH,
    [debug.keyOf(requestId)],
    [requestId, originalRequestId, JSON.stringify(final), failed ? "1" : "0", debug.ttlMs, debug.errorTtlMs],
  )) as [number, string];
  await Promise.all([
    touchIndex(debug, debug.index, updated, requestId, debug.indexTtlMs),
    status === "error" ? touchIndex(debug, debug.errorIndex, updated, requestId, debug.errorTtlMs) : undefined,
  ]);
}

/**
 * Pages of ids, newest first, until `limit` live records match: an index may still hold ids whose
 * records expired (a success record outlived by the error TTL) or do not match the status.
 */
async function listRecords(debug: DebugKeys, options: LlmDebugListOptions | undefined): Promise<LlmDebugRecord[]> {
  const { limit, status } = checkListOptions(options);
  const from = status === "error" ? debug.errorIndex : debug.index;
  const found: LlmDebugRecord[] = [];
  const seen = new Set<string>();
  for (let start = 0; found.length < limit; start += limit) {
    const ids = await debug.client.zrevrange(from, start, start + limit - 1);
    const records = await Promise.all(ids.map((id) => readRecord(debug, id)));
    for (const record of records) {
      if (record === undefined || seen.has(record.request_id) || found.length >= limit) continue;
      if (status !== undefined && record.status !== status) continue;
      seen.add(record.request_id);
      found.push(record);
    }
    if (ids.length < limit) break;
  }
  return found;
}

/**
 * Each record is one string key, `manifold:v1:<namespace>:llm-debug:<request_id>`, appended to by one
 * Lua script (append-1.lua; finish-1.lua marks how the request ended) and expiring `ttlMs` (or, once a call failed, `errorTtlMs`) after its last
 * append. Two sorted sets, scored by updated_at in ms from the script's (the server's) clock, order
 * them for `list`: `…:llm-debug-index` (every record) and `…:llm-debug-index:error` (records with a
 * failed call, so `status: "error"` needs no scan; a record never turns back to success, so nothing
 * leaves it early). `status: "success"` reads the main index and skips the rest. Each index is
 * written by its own single-key pipeline, never a multi-key command, so the adapter works on Redis
 * Cluster unchanged.
 */
export function createRedisLlmDebugStore(
  store: RedisStore,
  {
    ttlMs = DEFAULT_LLM_DEBUG_TTL_MS,
    errorTtlMs = DEFAULT_LLM_DEBUG_TTL_MS,
    maxRecords = DEFAULT_MAX_RECORDS,
    maxInteractions = DEFAULT_MAX_INTERACTIONS,
    maxTextBytes = DEFAULT_MAX_TEXT_BYTES,
    ownsStore = false,
  }: RedisLlmDebugStoreOptions = {},
): LlmDebugStore {
  checkLimits({ ttlMs, errorTtlMs, maxRecords, maxInteractions, maxTextBytes });
  const { client, keys } = store;
  const debug: DebugKeys = {
    client,
    index: keys.key("llm-debug-index"),
    errorIndex: keys.key("llm-debug-index", "error"),
    indexTtlMs: Math.max(ttlMs, errorTtlMs),
    ttlMs,
    errorTtlMs,
    maxRecords,
    maxInteractions,
    maxTextBytes,
    keyOf: (requestId) => keys.key("llm-debug", requestIdKeyPart(requestId)),
  };
  return {
    kind: "redis",
    record: (entry) => recordEntry(debug, entry),
    finish: (entry) => finishRecord(debug, entry),
    get: async (requestId) => readRecord(debug, checkRequestId(requestId)),
    list: (options) => listRecords(debug, options),
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}
