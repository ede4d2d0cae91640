/**
 * The checkpoint store: a record per human approval checkpoint, a pending-by-expiry index and a
 * newest-first index, behind one port with memory and Redis adapters and one contract suite
 * (test/contract/checkpoints.cases.ts).
 */
export { createCheckpointStore, type CheckpointStoreOptions } from "./create.js";
export { createMemoryCheckpointStore, type MemoryCheckpointStoreOptions } from "./memory-store.js";
export { createRedisCheckpointStore, type RedisCheckpointStoreOptions } from "./redis-store.js";
export { isCheckpointId, newCheckpointId } from "./records.js";
export {
  CHECKPOINT_STATUSES,
  CHECKPOINT_TRANSITIONS,
  DEFAULT_LIST_LIMIT,
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_MAX_RESUME_ATTEMPTS,
  DEFAULT_RETENTION_MS,
  isTerminal,
  legalFor,
  MAX_EXPIRE_LIMIT,
  MAX_LIST_LIMIT,
  MAX_LIST_SCAN,
  MAX_REASON,
  transitionOf,
  type Checkpoint,
  type CheckpointAction,
  type CheckpointEvent,
  type CheckpointListOptions,
  type CheckpointPage,
  type CheckpointResolution,
  type CheckpointStatus,
  type CheckpointStore,
  type CheckpointType,
  type CommandOptions,
  type DefaultAction,
  type NewCheckpoint,
  type ReleaseOptions,
  type RequestMode,
} from "./types.js";
