/**
 * The embedded task backend: one process, nothing to install. It keeps the same contract as the
 * Redis adapter (test/contract/tasks.cases.ts runs against both): inputs and results are stored as
 * JSON text, so a caller gets copies and sees exactly what would have survived a trip through Redis.
 *
 * Leases need no timer: a lapsed lease is found by the next dequeue, as on Redis. The TTL of finished
 * records is one unref'd timer for the oldest one (records finish in TTL order when every backend on
 * a state has the same TTL; `get` checks the expiry anyway). The operations are module functions
 * over one `MemoryBackend` (memory-state.ts: records, budget, retention; memory-leases.ts: taking,
 * checking and ending leases; memory-waiting.ts: blocked dequeues).
 */
import { randomBytes } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import { type Clock, systemClock } from "../util/index.js";
import {
  CANCELLED_ERROR,
  checkDequeueOptions,
  checkLeaseMs,
  checkTaskId,
  closedError,
  encodeError,
  encodeNewTask,
  encodeProgress,
  resolveBackendOptions,
} from "./backend-shared.js";
import { extendLeases, finishOutcome, leasedEntry, releaseLease } from "./memory-leases.js";
import {
  clearSweep,
  createMemoryTaskState,
  type Entry,
  evictFinished,
  finishEntry,
  lookup,
  type MemoryBackend,
  type MemoryTaskState,
  removeEntry,
  resize,
  type State,
  toRecord,
  wakeAll,
} from "./memory-state.js";
import { dequeueBlocking, wakeOwn } from "./memory-waiting.js";
import type { LeasedWrite, NewTask, TaskBackend, TaskBackendOptions, TaskProgress, TaskRecord } from "./types.js";

export { createMemoryTaskState, type MemoryTaskState } from "./memory-state.js";

export interface MemoryTaskBackendOptions extends TaskBackendOptions {
  /** The clock of every timestamp, lease, blocked wait and TTL. @defaultValue systemClock */
  readonly clock?: Clock;
  /** Shared data (see `createMemoryTaskState`). @defaultValue a fresh state, owned by this backend */
  readonly state?: MemoryTaskState;
  /**
   * Most records held. Past it (or `maxBytes`) the oldest finished records are evicted first; when
   * live (queued and running) records alone fill it, a create is 503 UNAVAILABLE. @defaultValue 100,000
   */
  readonly maxRecords?: number;
  /** Inputs, results, errors and progress held, about. @defaultValue 64 MiB */
  readonly maxBytes?: number;
}

/** Stores a queued task at the tail of the queue and wakes the waiting dequeuers. */
export function createTask(backend: MemoryBackend, task: NewTask): TaskRecord {
  const { state, maxRecords, maxBytes } = backend;
  const fixed = encodeNewTask(task);
  if (lookup(backend, task.task_id) !== undefined) throw new ManifoldError("TASK_EXISTS", `a task with id ${task.task_id} already exists`);
  const entry: Entry = { id: task.task_id, status: "queued", deliveries: 0, token: "", created: backend.clock.now(), fixed, bytes: 0 };
  state.records.set(entry.id, entry);
  resize(state, entry);
  if (!evictFinished(backend)) {
    removeEntry(state, entry);
    throw new ManifoldError(
      "UNAVAILABLE",
      `the embedded task store is full of live tasks (${maxRecords} records or ${Math.round(maxBytes / 1048576)} MiB); wait for some to finish, or configure Redis (REDIS_URL)`,
    );
  }
  state.queue.push(entry.id);
  state.queued += 1;
  wakeAll(state);
  return toRecord(entry);
}

/** queued | running → cancelled; a cancelled id stays in the queue until a dequeue meets and skips it: O(1) here. */
export function cancelTask(backend: MemoryBackend, taskId: string): Awaited<ReturnType<TaskBackend["cancel"]>> {
  const entry = lookup(backend, taskId);
  if (entry === undefined) return { outcome: "not_found" };
  if (entry.status !== "queued" && entry.status !== "running") return { outcome: "finished", task: toRecord(entry) };
  if (entry.status === "queued") backend.state.queued -= 1;
  finishEntry(backend, entry, "cancelled", { error: encodeError(CANCELLED_ERROR) });
  return { outcome: "cancelled", task: toRecord(entry) };
}

export function storeProgress(backend: MemoryBackend, taskId: string, token: string, progress: TaskProgress): LeasedWrite {
  const entry = leasedEntry(backend, taskId, token);
  if (typeof entry === "string") return entry;
  entry.progress = encodeProgress(progress);
  resize(backend.state, entry);
  return "ok";
}

export function createMemoryTaskBackend(options: MemoryTaskBackendOptions = {}): TaskBackend {
  const { clock = systemClock, state: given, maxRecords = 100_000, maxBytes = 64 * 1024 * 1024 } = options;
  for (const [name, value] of Object.entries({ maxRecords, maxBytes })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  }
  const { ttlMs, maxDeliveries, delivery } = resolveBackendOptions(options);
  const backend: MemoryBackend = {
    state: (given ?? createMemoryTaskState()) as unknown as State,
    ownsState: given === undefined,
    clock,
    ttlMs,
    maxDeliveries,
    delivery,
    maxRecords,
    maxBytes,
    tokenPrefix: randomBytes(6).toString("hex"),
    tokens: 0,
    closed: false,
    ownWaiters: new Set(),
  };
  const open = (): MemoryBackend => {
    if (backend.closed) throw closedError();
    return backend;
  };
  return {
    create: async (task) => createTask(open(), task),
    get: async (taskId) => {
      open();
      checkTaskId(taskId);
      const entry = lookup(backend, taskId);
      return entry === undefined ? undefined : toRecord(entry);
    },
    dequeue: async (options) => {
      open();
      checkDequeueOptions(options);
      return dequeueBlocking(backend, options);
    },
    extend: async (leases, leaseMs) => {
      open();
      checkLeaseMs(leaseMs);
      return extendLeases(backend, leases, leaseMs);
    },
    complete: async (taskId, token, result) => finishOutcome(open(), { status: "completed", taskId, token, result }),
    fail: async (taskId, token, error) => finishOutcome(open(), { status: "failed", taskId, token, error }),
    finishMany: async (outcomes) => {
      open();
      return outcomes.map((outcome) => finishOutcome(backend, outcome));
    },
    progress: async (taskId, token, progress) => storeProgress(open(), taskId, token, progress),
    release: async (taskId, token) => releaseLease(open(), taskId, token),
    cancel: async (taskId) => {
      open();
      checkTaskId(taskId);
      return cancelTask(backend, taskId);
    },
    depth: async () => open().state.queued,
    close: async () => {
      if (backend.closed) return;
      backend.closed = true;
      wakeOwn(backend);
      if (backend.ownsState) clearSweep(backend.state);
    },
  };
}
