import { checkInteger } from "../../util/index.js";
import { checkListLimit, DEFAULT_EXECUTION_TTL_MS, DEFAULT_MAX_RECORDS, startedMs, type ExecutionRecord, type ExecutionStore } from "./types.js";

export interface MemoryExecutionStoreOptions {
  /** @defaultValue 24 h */
  readonly ttlMs?: number;
  /** Oldest records are dropped beyond this many. @defaultValue 1000 */
  readonly maxRecords?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface Held {
  readonly record: ExecutionRecord;
  readonly started: number;
  readonly expires: number;
}

/** The embedded adapter: one process, bounded in count and time. Records are copied in and out. */
export function createMemoryExecutionStore({
  ttlMs = DEFAULT_EXECUTION_TTL_MS,
  maxRecords = DEFAULT_MAX_RECORDS,
  now = Date.now,
}: MemoryExecutionStoreOptions = {}): ExecutionStore {
  checkInteger("ttlMs", ttlMs, { min: 1 });
  checkInteger("maxRecords", maxRecords, { min: 1 });
  const records = new Map<string, Held>();

  const sweep = (): void => {
    const at = now();
    for (const [id, held] of records) if (held.expires <= at) records.delete(id);
  };

  return {
    kind: "memory",
    save: async (record) => {
      const started = startedMs(record);
      records.delete(record.plan_id); // re-inserted last: the Map's order is the eviction order
      records.set(record.plan_id, { record: structuredClone(record), started, expires: now() + ttlMs });
      if (records.size > maxRecords) sweep();
      while (records.size > maxRecords) records.delete(records.keys().next().value!);
    },
    get: async (planId) => {
      const held = records.get(planId);
      if (held === undefined) return undefined;
      if (held.expires <= now()) {
        records.delete(planId);
        return undefined;
      }
      return structuredClone(held.record);
    },
    list: async (options = {}) => {
      const limit = checkListLimit(options.limit);
      sweep();
      return [...records.values()]
        .sort((a, b) => b.started - a.started)
        .slice(0, limit)
        .map((held) => structuredClone(held.record));
    },
    close: async () => undefined,
  };
}
