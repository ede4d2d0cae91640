import { ManifoldError } from "../../errors/index.js";
import { heapBytes } from "../../util/index.js";
import {
  checkDueLimit,
  checkListOptions,
  checkScheduleId,
  DEFAULT_MAX_SCHEDULES,
  type DueRecord,
  type ScheduleListOptions,
  type ScheduleRecord,
  type ScheduleStore,
} from "./types.js";

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

/** The store's data: a Map of records (so an id like `__proto__` is just a key) and the sorted due index. */
interface Schedules {
  readonly records: Map<string, Held>;
  /** Sorted by due time, then id. */
  readonly index: { dueMs: number; id: string }[];
  bytes: number;
  readonly maxSchedules: number;
  readonly maxBytes: number;
}

/** Index order: due time, then id (Redis's sorted-set order, so both adapters list alike). */
const before = (aMs: number, aId: string, bMs: number, bId: string): boolean => aMs < bMs || (aMs === bMs && aId < bId);

/** Where (dueMs, id) is or would go in the index: binary search. */
export function indexPosition(index: readonly { readonly dueMs: number; readonly id: string }[], dueMs: number, id: string): number {
  let low = 0;
  let high = index.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const entry = index[middle]!;
    if (before(entry.dueMs, entry.id, dueMs, id)) low = middle + 1;
    else high = middle;
  }
  return low;
}

function unindex({ index }: Schedules, held: Held): void {
  const at = indexPosition(index, held.dueMs, held.record.schedule_id);
  if (index[at]?.id === held.record.schedule_id) index.splice(at, 1);
}

function reindex(schedules: Schedules, held: Held, dueMs: number): void {
  unindex(schedules, held);
  held.dueMs = dueMs;
  schedules.index.splice(indexPosition(schedules.index, dueMs, held.record.schedule_id), 0, { dueMs, id: held.record.schedule_id });
}

function forget(schedules: Schedules, held: Held): void {
  unindex(schedules, held);
  schedules.records.delete(held.record.schedule_id);
  schedules.bytes -= held.bytes;
}

const view = (held: Held): ScheduleRecord => structuredClone({ ...held.record, next_run_at: new Date(held.dueMs).toISOString() });

// Every schedule is live (nothing finished to evict), so a full store refuses.
const full = (maxBytes: number): ManifoldError =>
  new ManifoldError(
    "UNAVAILABLE",
    `the embedded scheduler holds its maximum of ${Math.round(maxBytes / 1048576)} MiB of schedules; cancel some first, or configure Redis`,
  );

const lastFired = (record: ScheduleRecord): Pick<ScheduleRecord, "last_fired_at"> =>
  record.last_fired_at === undefined ? {} : { last_fired_at: record.last_fired_at };

function create(schedules: Schedules, record: ScheduleRecord): void {
  const { records, maxSchedules, maxBytes } = schedules;
  checkScheduleId(record.schedule_id);
  if (records.has(record.schedule_id)) throw new ManifoldError("CONFLICT", `schedule ${record.schedule_id} already exists`);
  if (records.size >= maxSchedules) throw new ManifoldError("UNAVAILABLE", `the scheduler holds its maximum of ${maxSchedules} schedules; cancel some first`);
  const size = heapBytes(record);
  if (schedules.bytes + size > maxBytes) throw full(maxBytes);
  const held: Held = { record: structuredClone(record), dueMs: Number.NaN, bytes: size };
  records.set(record.schedule_id, held);
  schedules.bytes += size;
  reindex(schedules, held, Date.parse(record.next_run_at));
}

function list(schedules: Schedules, options: ScheduleListOptions | undefined): ScheduleRecord[] {
  const { limit, offset, target_agent } = checkListOptions(options);
  const found: ScheduleRecord[] = [];
  let skipped = 0;
  for (const { id } of schedules.index) {
    if (found.length >= limit) break;
    const held = schedules.records.get(id)!;
    if (target_agent !== undefined && held.record.target_agent !== target_agent) continue;
    if (skipped++ < offset) continue;
    found.push(view(held));
  }
  return found;
}

function update(schedules: Schedules, record: ScheduleRecord, retime: boolean): boolean {
  const held = schedules.records.get(checkScheduleId(record.schedule_id));
  if (held === undefined) return false;
  // The fire state is the store's, not the caller's copy: a firing in between is kept.
  const next = { ...record, fire_count: held.record.fire_count, ...lastFired(held.record) };
  const size = heapBytes(next);
  if (schedules.bytes - held.bytes + size > schedules.maxBytes) throw full(schedules.maxBytes);
  held.record = structuredClone(next);
  schedules.bytes += size - held.bytes;
  held.bytes = size;
  if (retime) reindex(schedules, held, Date.parse(record.next_run_at));
  return true;
}

function dueRecords({ index, records }: Schedules, nowMs: number, limit: number): DueRecord[] {
  checkDueLimit(limit);
  const found: DueRecord[] = [];
  for (const entry of index) {
    if (entry.dueMs > nowMs || found.length >= limit) break;
    found.push({ record: view(records.get(entry.id)!), dueMs: entry.dueMs });
  }
  return found;
}

/** The compare-and-set: applies only while the schedule is indexed at `dueMs`. */
function advance(schedules: Schedules, id: string, dueMs: number, nextMs: number | null, firedAt: string): boolean {
  const held = schedules.records.get(checkScheduleId(id));
  if (held === undefined || held.dueMs !== dueMs) return false;
  if (nextMs === null) {
    forget(schedules, held);
    return true;
  }
  held.record = { ...held.record, fire_count: held.record.fire_count + 1, last_fired_at: firedAt };
  reindex(schedules, held, nextMs);
  return true;
}

/**
 * The embedded adapter: a Map of records and the due index as an array kept sorted by binary
 * insertion, so `due` and `nextDue` read its head. Every method is synchronous from check to write,
 * so concurrent calls cannot interleave: `advance` is a compare-and-set by construction.
 */
export function createMemoryScheduleStore({
  maxSchedules = DEFAULT_MAX_SCHEDULES,
  maxBytes = 64 * 1024 * 1024,
}: MemoryScheduleStoreOptions = {}): ScheduleStore {
  const schedules: Schedules = { records: new Map(), index: [], bytes: 0, maxSchedules, maxBytes };
  return {
    kind: "memory",
    create: async (record) => create(schedules, record),
    get: async (id) => {
      const held = schedules.records.get(checkScheduleId(id));
      return held === undefined ? undefined : view(held);
    },
    list: async (options) => list(schedules, options),
    update: async (record, { retime = true } = {}) => update(schedules, record, retime),
    delete: async (id) => {
      const held = schedules.records.get(checkScheduleId(id));
      if (held === undefined) return false;
      forget(schedules, held);
      return true;
    },
    dueRecords: async (nowMs, limit) => dueRecords(schedules, nowMs, limit),
    nextDue: async () => schedules.index[0]?.dueMs,
    advance: async ({ schedule_id }, dueMs, nextMs, firedAt) => advance(schedules, schedule_id, dueMs, nextMs, firedAt),
    // Each item on its own, as `advance` (a bad id rejects the call without stopping the others).
    advanceMany: (items) =>
      Promise.all(items.map(async ({ schedule, dueMs, nextMs, firedAt }) => advance(schedules, schedule.schedule_id, dueMs, nextMs, firedAt))),
    count: async () => schedules.records.size,
    close: async () => undefined,
  };
}
