/**
 * Execution records: what each orchestration request planned, ran and decided (hooks), kept for a
 * while for debugging. Off unless `MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true` or the orchestration
 * extension is given a store; memory and Redis adapters behind one port.
 */
export { EXECUTION_DEBUG_ENV, createExecutionStore, executionDebugEnabled, type ExecutionStoreOptions } from "./create.js";
export { createMemoryExecutionStore, type MemoryExecutionStoreOptions } from "./memory-store.js";
export { createRedisExecutionStore, type RedisExecutionStoreOptions } from "./redis-store.js";
export {
  DEFAULT_EXECUTION_TTL_MS,
  type ExecutionRecord,
  type ExecutionStatus,
  type ExecutionStore,
  type HitlRecordState,
  type InterceptorDecision,
  type LifecycleEvent,
  type ListOptions,
  type RecordedRound,
  type RecordedStep,
} from "./types.js";
