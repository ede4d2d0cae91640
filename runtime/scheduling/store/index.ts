/**
 * The schedule store: a record per schedule plus a due-time index, behind one port with memory and
 * Redis adapters and one contract suite (test/contract/schedules.cases.ts).
 */
export { createScheduleStore, type ScheduleStoreOptions } from "./create.js";
export { createMemoryScheduleStore, type MemoryScheduleStoreOptions } from "./memory-store.js";
export { createRedisScheduleStore, type RedisScheduleStoreOptions } from "./redis-store.js";
export {
  checkDueLimit,
  checkScheduleId,
  DEFAULT_MAX_SCHEDULES,
  isScheduleId,
  MAX_DUE_BATCH,
  MAX_LIST_LIMIT,
  type AdvanceItem,
  type DueRecord,
  type ScheduleListOptions,
  type ScheduleRecord,
  type ScheduleRef,
  type ScheduleStore,
} from "./types.js";
