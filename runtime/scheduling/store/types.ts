/**
 * The schedule store port: a data record per schedule plus a due-time sorted index (DESIGN §5.2,
 * the spec's scheduling rows). `memory` and `redis` adapters implement it; one contract suite
 * (test/contract/schedules.cases.ts) runs against memory, Redis and Redis Cluster. Firing is
 * exactly-once because a firing creates its task with the deterministic id
 * `<schedule_id>:<fire_unix_seconds>` (a second replica's create is a no-op) and then `advance`s the
 * schedule with a compare-and-set on its due time.
 */

/** A stored schedule (snake_case: it is what `get_schedule` and `list_schedules` answer). */
export interface ScheduleRecord {
  /** `sch-<16 hex>`. */
  readonly schedule_id: string;
  /** The agent whose `POST /api/v1/scheduled` runs it: the caller's `X-Manifold-Agent-Name`, never the body's. */
  readonly target_agent: string;
  readonly instruction: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** Exactly one timing form, as given. */
  readonly delay?: string;
  readonly run_at?: string;
  readonly cron_expr?: string;
  /** IANA zone of `cron_expr`. @defaultValue UTC */
  readonly timezone?: string;
  /** True for cron schedules: advanced after each firing instead of deleted. */
  readonly recurring: boolean;
  /** ISO 8601 of the next firing: the due index's score (ms). */
  readonly next_run_at: string;
  readonly fire_count: number;
  readonly last_fired_at?: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface ScheduleListOptions {
  /** Only this agent's schedules. */
  readonly target_agent?: string;
  /** @defaultValue 50; 1–500 */
  readonly limit?: number;
  /** @defaultValue 0 */
  readonly offset?: number;
}

/** Which schedule: its id, and its agent (an index the Redis adapter keeps per agent). */
export type ScheduleRef = Pick<ScheduleRecord, "schedule_id" | "target_agent">;

export interface AdvanceItem {
  readonly schedule: ScheduleRef;
  readonly dueMs: number;
  readonly nextMs: number | null;
  readonly firedAt: string;
}

/** A due schedule as the firing loop reads it: the record and its due time, from one read. */
export interface DueRecord {
  readonly record: ScheduleRecord;
  /** The due time (ms since the epoch) the index holds for it: `advance`'s compare-and-set value. */
  readonly dueMs: number;
}

export interface ScheduleStore {
  readonly kind: "memory" | "redis";
  /** Stores a new schedule and indexes it at `next_run_at`. CONFLICT when the id exists; UNAVAILABLE when the store is full. */
  create(record: ScheduleRecord): Promise<void>;
  get(scheduleId: string): Promise<ScheduleRecord | undefined>;
  /** By `next_run_at`, earliest first (ties by id). */
  list(options?: ScheduleListOptions): Promise<ScheduleRecord[]>;
  /**
   * Replaces an existing schedule's definition (same id) and, unless `retime` is false, re-indexes it
   * at its `next_run_at`; false when it no longer exists. `fire_count` and `last_fired_at` stay the
   * store's (a firing between the caller's read and this write is kept).
   */
  update(record: ScheduleRecord, options?: { readonly retime?: boolean }): Promise<boolean>;
  /** Removes the record and its index entry; false when there was none. */
  delete(scheduleId: string): Promise<boolean>;
  /**
   * The schedules due at or before `nowMs`, earliest first (ties by id), at most `limit` (1–1,000),
   * each with its record, read in one atomic step (one round trip and one script on Redis): the
   * firing loop's read, so a record and its due time cannot disagree.
   */
  dueRecords(nowMs: number, limit: number): Promise<DueRecord[]>;
  /** The earliest due time in the index, for the firing loop's wake-up; undefined when empty. */
  nextDue(): Promise<number | undefined>;
  /**
   * After a firing, one atomic compare-and-set: only if the schedule is still indexed at `dueMs` (no
   * other replica advanced it, no update or cancel since), a one-shot (`nextMs` null) is deleted, a
   * recurring one is re-indexed at `nextMs` with `next_run_at`, `fire_count + 1` and
   * `last_fired_at = firedAt`. Returns whether it applied.
   */
  advance(schedule: ScheduleRef, dueMs: number, nextMs: number | null, firedAt: string): Promise<boolean>;
  /** `advance` for each item, in one atomic step per adapter call (one round trip on Redis); one result per item. */
  advanceMany(items: readonly AdvanceItem[]): Promise<boolean[]>;
  /** Schedules stored now. */
  count(): Promise<number>;
  close(): Promise<void>;
}

/** Most schedules a store holds unless told otherwise. */
export const DEFAULT_MAX_SCHEDULES = 100_000;
export const MAX_LIST_LIMIT = 500;
/** Most schedules one `dueRecords` call reads: bounds the script's time on the server and the batch in memory. */
export const MAX_DUE_BATCH = 1_000;
const SCHEDULE_ID = /^sch-[0-9a-f]{16}$/;

/** A schedule id is `sch-` and 16 hex digits. */
export function isScheduleId(value: unknown): value is string {
  return typeof value === "string" && SCHEDULE_ID.test(value);
}

/** Ids reach keys: anything else is refused before a store sees it. */
export function checkScheduleId(id: string): string {
  if (!isScheduleId(id)) throw new RangeError(`schedule ids are sch- and 16 hex digits, not ${JSON.stringify(String(id).slice(0, 40))}`);
  return id;
}

/** A `dueRecords` limit: an integer from 1 to MAX_DUE_BATCH. */
export function checkDueLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_DUE_BATCH) throw new RangeError(`a due batch is an integer from 1 to ${MAX_DUE_BATCH}`);
  return limit;
}

export function checkListOptions({
  limit = 50,
  offset = 0,
  target_agent,
}: ScheduleListOptions = {}): Required<Omit<ScheduleListOptions, "target_agent">> & Pick<ScheduleListOptions, "target_agent"> {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError("offset must be a non-negative integer");
  return { limit, offset, ...(target_agent === undefined ? {} : { target_agent }) };
}
