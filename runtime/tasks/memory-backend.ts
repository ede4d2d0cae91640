/**
 * The embedded task backend: one process, nothing to install. It keeps the same contract as the
 * Redis adapter (test/contract/tasks.cases.ts runs against both): inputs and results are stored as
 * JSON text, so a caller gets copies and sees exactly what would have survived a trip through Redis.
 *
 * Leases need no timer: a lapsed lease is found by the next dequeue, as on Redis. The TTL of finished
 * records is one unref'd timer for the oldest one (records finish in TTL order when every backend on
 * a state has the same TTL; `get` checks the expiry anyway).
 */
import { randomBytes } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import {
  CANCELLED_ERROR,
  checkDequeueOptions,
  checkLeaseMs,
  checkTaskId,
  closedError,
  encodeError,
  encodeNewTask,
  encodeProgress,
  encodeResult,
  LEASE_LAPSED_AT_MOST_ONCE,
  redeliveryExceeded,
  resolveBackendOptions,
  type FixedPart,
} from "./backend-shared.js";
import { IdQueue } from "./id-queue.js";
import type {
  DequeueOptions,
  Lease,
  LeasedWrite,
  NewTask,
  TaskBackend,
  TaskBackendOptions,
  TaskError,
  TaskOutcome,
  TaskProgress,
  TaskRecord,
  TaskStatus,
} from "./types.js";

interface Entry {
  readonly id: string;
  status: TaskStatus;
  deliveries: number;
  token: string;
  readonly created: number;
  started?: number;
  finished?: number;
  /** JSON texts, decoded on every read so callers never share an object with the store. */
  progress?: string;
  error?: string;
  result?: string;
  readonly fixed: string;
  leaseExpiry?: number;
  expiresAt?: number;
  /** What this record holds, about (JSON texts as UTF-16), counted in the state's byte budget. */
  bytes: number;
}

/** The data of one queue (internal). */
interface State {
  readonly records: Map<string, Entry>;
  /** Ids in queue order; may hold ids of tasks cancelled while queued, skipped when met. */
  readonly queue: IdQueue;
  /** Tasks actually queued (the queue minus the cancelled ids it still holds). */
  queued: number;
  /** Running tasks, in no particular order. */
  readonly running: Set<string>;
  /** Finished ids in the order they finished, for the TTL sweep. */
  readonly finished: IdQueue;
  sweepTimer?: NodeJS.Timeout | undefined;
  /** Dequeuers waiting for work; create and release wake them all. */
  readonly waiters: Set<() => void>;
  /** Sum of the records' `bytes`. */
  bytes: number;
}

declare const opaque: unique symbol;

/**
 * The data of one queue, shareable by several backends in one process (the API and the workers of an
 * embedded agent), as a Redis would be shared. Opaque: pass it to `createMemoryTaskBackend`.
 */
export interface MemoryTaskState {
  readonly [opaque]: true;
}

export function createMemoryTaskState(): MemoryTaskState {
  const state: State = { records: new Map(), queue: new IdQueue(), queued: 0, running: new Set(), finished: new IdQueue(), waiters: new Set(), bytes: 0 };
  return state as unknown as MemoryTaskState;
}

export interface MemoryTaskBackendOptions extends TaskBackendOptions {
  /** The clock of every timestamp, lease and TTL. @defaultValue Date.now */
  readonly now?: () => number;
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

/** Fixed overhead of a record beside its JSON texts. */
const RECORD_OVERHEAD = 200;

function sizeOf(entry: Pick<Entry, "fixed" | "progress" | "result" | "error">): number {
  return RECORD_OVERHEAD + 2 * (entry.fixed.length + (entry.progress?.length ?? 0) + (entry.result?.length ?? 0) + (entry.error?.length ?? 0));
}

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

function toRecord(entry: Entry): TaskRecord {
  const fixed = JSON.parse(entry.fixed) as FixedPart;
  const started = iso(entry.started);
  const finished = iso(entry.finished);
  return {
    task_id: entry.id,
    type: fixed.type,
    status: entry.status,
    input: fixed.input,
    timeout_ms: fixed.timeout_ms,
    ...(entry.progress === undefined ? {} : { progress: JSON.parse(entry.progress) as TaskProgress }),
    ...(entry.result === undefined || entry.result === "" ? {} : { result: JSON.parse(entry.result) as unknown }),
    ...(entry.error === undefined ? {} : { error: JSON.parse(entry.error) as TaskError }),
    created_at: new Date(entry.created).toISOString(),
    ...(started === undefined ? {} : { started_at: started }),
    ...(finished === undefined ? {} : { completed_at: finished }),
    deliveries: entry.deliveries,
    ...(fixed.trace === undefined ? {} : { trace: fixed.trace }),
  };
}

export function createMemoryTaskBackend(options: MemoryTaskBackendOptions = {}): TaskBackend {
  const { now = Date.now, state: given, maxRecords = 100_000, maxBytes = 64 * 1024 * 1024 } = options;
  for (const [name, value] of Object.entries({ maxRecords, maxBytes })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  }
  const { ttlMs, maxDeliveries, delivery } = resolveBackendOptions(options);
  const state = (given ?? createMemoryTaskState()) as unknown as State;
  const tokenPrefix = randomBytes(6).toString("hex");
  let tokens = 0;
  let closed = false;
  const ownWaiters = new Set<() => void>();

  const open = (): void => {
    if (closed) throw closedError();
  };

  const remove = (entry: Entry): void => {
    if (state.records.get(entry.id) !== entry) return;
    state.records.delete(entry.id);
    state.bytes -= entry.bytes;
  };

  /** Counts an entry's new size in the budget. */
  const resized = (entry: Entry): void => {
    const size = sizeOf(entry);
    state.bytes += size - entry.bytes;
    entry.bytes = size;
  };

  const overBudget = (): boolean => state.records.size > maxRecords || state.bytes > maxBytes;

  /** Evicts finished records, oldest first, while over budget; true when it got back within it. */
  const evictFinished = (): boolean => {
    while (overBudget()) {
      const id = state.finished.shift();
      if (id === undefined) return false;
      const entry = state.records.get(id);
      if (entry?.expiresAt !== undefined) remove(entry);
    }
    return true;
  };

  /** A record past its TTL is gone, whether or not the sweep has run yet. */
  const lookup = (id: string): Entry | undefined => {
    const entry = state.records.get(id);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      remove(entry);
      return undefined;
    }
    return entry;
  };

  const sweep = (): void => {
    state.sweepTimer = undefined;
    const t = now();
    for (;;) {
      const id = state.finished.shift();
      if (id === undefined) return;
      const entry = state.records.get(id);
      if (entry?.expiresAt === undefined) continue;
      if (entry.expiresAt > t) {
        state.finished.unshift(id);
        armSweep(entry.expiresAt - t);
        return;
      }
      remove(entry);
    }
  };

  const armSweep = (delayMs: number): void => {
    if (state.sweepTimer !== undefined) return;
    state.sweepTimer = setTimeout(sweep, Math.max(delayMs, 1));
    state.sweepTimer.unref();
  };

  const finish = (entry: Entry, status: TaskStatus, fields: { result?: string; error?: string }): void => {
    entry.status = status;
    entry.token = "";
    entry.finished = now();
    if (fields.result !== undefined) entry.result = fields.result;
    if (fields.error !== undefined) entry.error = fields.error;
    resized(entry);
    entry.expiresAt = entry.finished + ttlMs;
    delete entry.leaseExpiry;
    state.running.delete(entry.id);
    state.finished.push(entry.id);
    armSweep(ttlMs);
    // A large result may push the store over its budget: older finished records make room.
    evictFinished();
  };

  const wakeAll = (): void => {
    for (const wake of [...state.waiters]) wake();
  };

  const lease = (entry: Entry, leaseMs: number, t: number): Lease => {
    entry.status = "running";
    entry.deliveries += 1;
    entry.token = `${tokenPrefix}:${((tokens += 1)).toString(36)}`;
    entry.started ??= t;
    entry.leaseExpiry = t + leaseMs;
    state.running.add(entry.id);
    return { task: toRecord(entry), token: entry.token, expiresAt: entry.leaseExpiry };
  };

  /** Redeliveries of lapsed leases first (they have waited longest), then the head of the queue. */
  const take = ({ count, leaseMs }: DequeueOptions): Lease[] => {
    const t = now();
    const out: Lease[] = [];
    for (const id of state.running) {
      if (out.length >= count) break;
      const entry = state.records.get(id);
      if (entry === undefined || entry.status !== "running") {
        state.running.delete(id);
        continue;
      }
      if (entry.leaseExpiry === undefined || entry.leaseExpiry > t) continue;
      if (delivery === "at-most-once") finish(entry, "failed", { error: encodeError(LEASE_LAPSED_AT_MOST_ONCE) });
      else if (entry.deliveries >= maxDeliveries) finish(entry, "failed", { error: encodeError(redeliveryExceeded(maxDeliveries)) });
      else out.push(lease(entry, leaseMs, t));
    }
    while (out.length < count && state.queued > 0) {
      const id = state.queue.shift();
      if (id === undefined) break;
      const entry = state.records.get(id);
      if (entry?.status !== "queued") continue;
      state.queued -= 1;
      out.push(lease(entry, leaseMs, t));
    }
    return out;
  };

  const earliestLease = (): number | undefined => {
    let earliest: number | undefined;
    for (const id of state.running) {
      const expiry = state.records.get(id)?.leaseExpiry;
      if (expiry !== undefined && (earliest === undefined || expiry < earliest)) earliest = expiry;
    }
    return earliest;
  };

  /**
   * Resolves on a wake-up, the timeout or the signal. The timer is not unref'd: a caller waiting for
   * work is work in progress, and the wait is bounded by `blockMs`.
   */
  const wait = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        state.waiters.delete(done);
        ownWaiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(ms, 1));
      state.waiters.add(done);
      ownWaiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });

  const leased = (taskId: string, token: string): Entry | LeasedWrite => {
    const entry = lookup(taskId);
    if (entry === undefined) return "lost";
    if (entry.status === "cancelled") return "cancelled";
    return entry.status === "running" && entry.token === token ? entry : "lost";
  };

  const finishOne = (outcome: TaskOutcome): LeasedWrite => {
    const entry = leased(outcome.taskId, outcome.token);
    if (typeof entry === "string") return entry;
    if (outcome.status === "failed") {
      finish(entry, "failed", { error: encodeError(outcome.error) });
      return "ok";
    }
    const encoded = encodeResult(outcome.result);
    if ("error" in encoded) finish(entry, "failed", { error: encodeError(encoded.error) });
    else finish(entry, "completed", { result: encoded.json });
    return "ok";
  };

  return {
    create: async (task: NewTask) => {
      open();
      const fixed = encodeNewTask(task);
      if (lookup(task.task_id) !== undefined) throw new ManifoldError("TASK_EXISTS", `a task with id ${task.task_id} already exists`);
      const entry: Entry = { id: task.task_id, status: "queued", deliveries: 0, token: "", created: now(), fixed, bytes: 0 };
      state.records.set(entry.id, entry);
      resized(entry);
      if (!evictFinished()) {
        remove(entry);
        throw new ManifoldError(
          "UNAVAILABLE",
          `the embedded task store is full of live tasks (${maxRecords} records or ${Math.round(maxBytes / 1048576)} MiB); wait for some to finish, or configure Redis (REDIS_URL)`,
        );
      }
      state.queue.push(entry.id);
      state.queued += 1;
      wakeAll();
      return toRecord(entry);
    },
    get: async (taskId) => {
      open();
      checkTaskId(taskId);
      const entry = lookup(taskId);
      return entry === undefined ? undefined : toRecord(entry);
    },
    dequeue: async (options) => {
      open();
      checkDequeueOptions(options);
      const { blockMs, signal } = options;
      const deadline = performance.now() + blockMs;
      for (;;) {
        if (closed) return [];
        const leases = take(options);
        if (leases.length > 0 || signal?.aborted === true) return leases;
        const remaining = deadline - performance.now();
        if (remaining <= 0) return leases;
        const lapse = earliestLease();
        await wait(lapse === undefined ? remaining : Math.min(remaining, lapse - now() + 1), signal);
      }
    },
    extend: async (leases, leaseMs) => {
      open();
      checkLeaseMs(leaseMs);
      const t = now();
      const out = new Map<string, LeasedWrite>();
      for (const { taskId, token } of leases) {
        const entry = leased(taskId, token);
        if (typeof entry === "string") out.set(taskId, entry);
        else {
          entry.leaseExpiry = t + leaseMs;
          out.set(taskId, "ok");
        }
      }
      return out;
    },
    complete: async (taskId, token, result) => {
      open();
      return finishOne({ status: "completed", taskId, token, result });
    },
    fail: async (taskId, token, error) => {
      open();
      return finishOne({ status: "failed", taskId, token, error });
    },
    finishMany: async (outcomes) => {
      open();
      return outcomes.map(finishOne);
    },
    progress: async (taskId, token, progress) => {
      open();
      const entry = leased(taskId, token);
      if (typeof entry === "string") return entry;
      entry.progress = encodeProgress(progress);
      resized(entry);
      return "ok";
    },
    release: async (taskId, token) => {
      open();
      const entry = leased(taskId, token);
      if (typeof entry === "string") return entry;
      entry.status = "queued";
      entry.deliveries -= 1;
      entry.token = "";
      delete entry.leaseExpiry;
      state.running.delete(taskId);
      state.queue.unshift(taskId);
      state.queued += 1;
      wakeAll();
      return "ok";
    },
    cancel: async (taskId) => {
      open();
      checkTaskId(taskId);
      const entry = lookup(taskId);
      if (entry === undefined) return { outcome: "not_found" };
      if (entry.status !== "queued" && entry.status !== "running") return { outcome: "finished", task: toRecord(entry) };
      // A cancelled id stays in the queue until a dequeue meets and skips it: O(1) here.
      if (entry.status === "queued") state.queued -= 1;
      finish(entry, "cancelled", { error: encodeError(CANCELLED_ERROR) });
      return { outcome: "cancelled", task: toRecord(entry) };
    },
    depth: async () => {
      open();
      return state.queued;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const wake of [...ownWaiters]) wake();
      if (given === undefined) {
        clearTimeout(state.sweepTimer);
        state.sweepTimer = undefined;
      }
    },
  };
}
