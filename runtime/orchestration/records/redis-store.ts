import { defineLuaScript, runScript, type RedisStore } from "../../store/index.js";
import { checkInteger } from "../../util/index.js";
import { checkListLimit, DEFAULT_EXECUTION_TTL_MS, DEFAULT_MAX_RECORDS, startedMs, type ExecutionRecord, type ExecutionStore } from "./types.js";

const SAVE = defineLuaScript("executions", new URL("./lua/save-1.lua", import.meta.url));

export interface RedisExecutionStoreOptions {
  /** @defaultValue 24 h */
  readonly ttlMs?: number;
  /** The index keeps at most this many plan ids (newest). @defaultValue 1000 */
  readonly maxRecords?: number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
}

/**
 * Each record is one string key (written by save-1.lua, which numbers its revision), `manifold:v1:<namespace>:executions:<plan_id>`, with a TTL; a sorted
 * set (`…:execution-index`, score = start time in ms) orders them for `list`. Keys are touched one
 * at a time, never in one multi-key command, so the adapter works on Redis Cluster unchanged.
 */
export function createRedisExecutionStore(
  store: RedisStore,
  { ttlMs = DEFAULT_EXECUTION_TTL_MS, maxRecords = DEFAULT_MAX_RECORDS, ownsStore = false }: RedisExecutionStoreOptions = {},
): ExecutionStore {
  checkInteger("ttlMs", ttlMs, { min: 1 });
  checkInteger("maxRecords", maxRecords, { min: 1 });
  const { client, keys } = store;
  const index = keys.key("execution-index");
  const keyOf = (planId: string): string => keys.key("executions", planId);

  const read = async (planId: string): Promise<ExecutionRecord | undefined> => {
    const text = await client.get(keyOf(planId));
    return text === null ? undefined : (JSON.parse(text) as ExecutionRecord);
  };

  return {
    kind: "redis",
    save: async (record) => {
      const started = startedMs(record);
      const key = keyOf(record.plan_id);
      // The revision first, for the script to rewrite without decoding the record (save-1.lua).
      const { revision: _given, ...rest } = record;
      await runScript(client, SAVE, [key], [JSON.stringify({ revision: 0, ...rest }), ttlMs]);
      // One key, so one pipeline (a single slot on a cluster). The index is trimmed as it grows: by
      // age (the records it points at have expired) and by count.
      const cutoff = Date.now() - ttlMs;
      const replies = await client
        .pipeline()
        .zadd(index, started, record.plan_id)
        .zremrangebyscore(index, "-inf", `(${cutoff}`)
        .zremrangebyrank(index, 0, -(maxRecords + 1))
        .pexpire(index, ttlMs)
        .exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
    get: read,
    list: async (options = {}) => {
      const limit = checkListLimit(options.limit);
      const ids = await client.zrevrange(index, 0, limit - 1);
      const records = await Promise.all(ids.map(read));
      return records.filter((record): record is ExecutionRecord => record !== undefined);
    },
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}
