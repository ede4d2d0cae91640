import { checkInteger, heapBytes } from "../../util/index.js";
import { checkListLimit, DEFAULT_EXECUTION_TTL_MS, DEFAULT_MAX_RECORDS, startedMs, type ExecutionRecord, type ExecutionStore } from "./types.js";

export interface MemoryExecutionStoreOptions {
  /** @defaultValue 24 h */
  readonly ttlMs?: number;
  /** Oldest records are dropped beyond this many. @defaultValue 1000 */
  readonly maxRecords?: number;
  /** Oldest records are dropped beyond this much held (records as JSON, about). @defaultValue 32 MiB */
  readonly maxBytes?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface Held {
  readonly record: ExecutionRecord;
  readonly started: number;
  readonly expires: number;
  readonly bytes: number;
}

/** The embedded adapter: one process, bounded in count and time. Records are copied in and out. */
export function createMemoryExecutionStore({
  ttlMs = DEFAULT_EXECUTION_TTL_MS,
  maxRecords = DEFAULT_MAX_RECORDS,
  maxBytes = 32 * 1024 * 1024,
  now = Date.now,
}: MemoryExecutionStoreOptions = {}): ExecutionStore {
  checkInteger("ttlMs", ttlMs, { min: 1 });
  checkInteger("maxRecords", maxRecords, { min: 1 });
  checkInteger("maxBytes", maxBytes, { min: 1 });
  const records = new Map<string, Held>();
  let bytes = 0;

  const drop = (id: string): void => {
    const held = records.get(id);
    if (held === undefined) return;
    records.delete(id);
    bytes -= held.bytes;
  };

  const sweep = (): void => {
    const at = now();
    for (const [id, held] of records) if (held.expires <= at) drop(id);
  };

  return {
    kind: "memory",
    save: async (record) => {
      const started = startedMs(record);
      const earlier = records.get(record.plan_id);
      const revision = earlier !== undefined && earlier.expires > now() ? (earlier.record.revision ?? 0) + 1 : 1;
      drop(record.plan_id); // re-inserted last: the Map's order is the eviction order
      const saved: ExecutionRecord = { ...structuredClone(record), revision };
      const size = heapBytes(saved);
      records.set(record.plan_id, { record: saved, started, expires: now() + ttlMs, bytes: size });
      bytes += size;
      if (records.size > maxRecords || bytes > maxBytes) sweep();
      // Oldest first; the record just saved stays even if it alone is over the byte budget.
      while ((records.size > maxRecords || bytes > maxBytes) && records.size > 1) drop(records.keys().next().value!);
    },
    get: async (planId) => {
      const held = records.get(planId);
      if (held === undefined) return undefined;
      if (held.expires <= now()) {
        drop(planId);
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
