import { ManifoldError } from "../../errors/index.js";
import { heapBytes } from "../../util/index.js";
import { checkDueLimit, checkListOptions, checkScheduleId, DEFAULT_MAX_SCHEDULES, type DueRecord, type ScheduleRecord, type ScheduleStore } from "./types.js";

export interface MemoryScheduleStoreOptions {
  /** Most schedules held; a create beyond it is UNAVAILABLE. @defaultValue 100,000 */
  readonly maxSchedules?: number;
  /** Schedules held in this process's heap (records as JSON, about); a create or update beyond it is UNAVAILABLE. @defaultValue 64 MiB */
  readonly maxBytes?: number;
}

interface Held {
  record: ScheduleRecord;
  dueMs: number;
  bytes: number;
}

/** Index order: due time, then id (Redis's sorted-set order, so both adapters list alike). */
const before = (aMs: number, aId: string, bMs: number, bId: string): boolean => aMs < bMs || (aMs === bMs && aId < bId);

/**
 * The embedded adapter: a Map of records (so an id like `__proto__` is just a key) and the due
 * index as an array kept sorted by binary insertion, so `due` and `nextDue` read its head. Every
 * method is synchronous from check to write, so concurrent calls cannot interleave: `advance` is a
 * compare-and-set by construction.
 */
export function createMemoryScheduleStore({
  maxSchedules = DEFAULT_MAX_SCHEDULES,
  maxBytes = 64 * 1024 * 1024,
}: MemoryScheduleStoreOptions = {}): ScheduleStore {
  const records = new Map<string, Held>();
  let bytes = 0;
  // Every schedule is live (nothing finished to evict), so a full store refuses.
  const full = (): ManifoldError =>
    new ManifoldError(
      "UNAVAILABLE",
      `the embedded scheduler holds its maximum of ${Math.round(maxBytes / 1048576)} MiB of schedules; cancel some first, or configure Redis`,
    );
  const index: { dueMs: number; id: string }[] = [];

  const position = (dueMs: number, id: string): number => {
    let low = 0;
    let high = index.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = index[middle]!;
      if (before(entry.dueMs, entry.id, dueMs, id)) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const unindex = (held: Held): void => {
    const at = position(held.dueMs, held.record.schedule_id);
    if (index[at]?.id === held.record.schedule_id) index.splice(at, 1);
  };
  const reindex = (held: Held, dueMs: number): void => {
    unindex(held);
    held.dueMs = dueMs;
    index.splice(position(dueMs, held.record.schedule_id), 0, { dueMs, id: held.record.schedule_id });
  };
  const view = (held: Held): ScheduleRecord => structuredClone({ ...held.record, next_run_at: new Date(held.dueMs).toISOString() });

  const advance: ScheduleStore["advance"] = async ({ schedule_id: id }, dueMs, nextMs, firedAt) => {
    const held = records.get(checkScheduleId(id));
    if (held === undefined || held.dueMs !== dueMs) return false;
    if (nextMs === null) {
      unindex(held);
      records.delete(id);
      bytes -= held.bytes;
      return true;
    }
    held.record = { ...held.record, fire_count: held.record.fire_count + 1, last_fired_at: firedAt };
    reindex(held, nextMs);
    return true;
  };

  return {
    kind: "memory",
    create: async (record) => {
      checkScheduleId(record.schedule_id);
      if (records.has(record.schedule_id)) throw new ManifoldError("CONFLICT", `schedule ${record.schedule_id} already exists`);
      if (records.size >= maxSchedules)
        throw new ManifoldError("UNAVAILABLE", `the scheduler holds its maximum of ${maxSchedules} schedules; cancel some first`);
      const size = heapBytes(record);
      if (bytes + size > maxBytes) throw full();
      const held: Held = { record: structuredClone(record), dueMs: Number.NaN, bytes: size };
      records.set(record.schedule_id, held);
      bytes += size;
      reindex(held, Date.parse(record.next_run_at));
    },
    get: async (id) => {
      const held = records.get(checkScheduleId(id));
      return held === undefined ? undefined : view(held);
    },
    list: async (options) => {
      const { limit, offset, target_agent } = checkListOptions(options);
      const found: ScheduleRecord[] = [];
      let skipped = 0;
      for (const { id } of index) {
        if (found.length >= limit) break;
        const held = records.get(id)!;
        if (target_agent !== undefined && held.record.target_agent !== target_agent) continue;
        if (skipped++ < offset) continue;
        found.push(view(held));
      }
      return found;
    },
    update: async (record, { retime = true } = {}) => {
      const held = records.get(checkScheduleId(record.schedule_id));
      if (held === undefined) return false;
      // The fire state is the store's, not the caller's copy: a firing in between is kept.
      const next = { ...record, fire_count: held.record.fire_count, ...lastFired(held.record) };
      const size = heapBytes(next);
      if (bytes - held.bytes + size > maxBytes) throw full();
      held.record = structuredClone(next);
      bytes += size - held.bytes;
      held.bytes = size;
      if (retime) reindex(held, Date.parse(record.next_run_at));
      return true;
    },
    delete: async (id) => {
      const held = records.get(checkScheduleId(id));
      if (held === undefined) return false;
      unindex(held);
      records.delete(id);
      bytes -= held.bytes;
      return true;
    },
    dueRecords: async (nowMs, limit) => {
      checkDueLimit(limit);
      const found: DueRecord[] = [];
      for (const entry of index) {
        if (entry.dueMs > nowMs || found.length >= limit) break;
        found.push({ record: view(records.get(entry.id)!), dueMs: entry.dueMs });
      }
      return found;
    },
    nextDue: async () => index[0]?.dueMs,
    advance,
    advanceMany: (items) => Promise.all(items.map(({ schedule, dueMs, nextMs, firedAt }) => advance(schedule, dueMs, nextMs, firedAt))),
    count: async () => records.size,
    close: async () => undefined,
  };
}

const lastFired = (record: ScheduleRecord): Pick<ScheduleRecord, "last_fired_at"> =>
  record.last_fired_at === undefined ? {} : { last_fired_at: record.last_fired_at };
