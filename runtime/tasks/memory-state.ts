/**
 * The memory task backend's data and the bookkeeping every operation shares: a queue's state (which
 * several backends of one process may share, as a Redis would be shared), one backend's view of it
 * (its clock, budgets and delivery rules), and the records' lifecycle in the store: lookup with TTL,
 * the byte and record budget, finishing a task and the sweep of finished records.
 */
import type { FixedPart } from "./backend-shared.js";
import { IdQueue } from "./id-queue.js";
import type { Delivery, TaskError, TaskProgress, TaskRecord, TaskStatus } from "./types.js";
import type { Clock, ClockTimer } from "../util/index.js";

export interface Entry {
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
export interface State {
  readonly records: Map<string, Entry>;
  /** Ids in queue order; may hold ids of tasks cancelled while queued, skipped when met. */
  readonly queue: IdQueue;
  /** Tasks actually queued (the queue minus the cancelled ids it still holds). */
  queued: number;
  /** Running tasks, in no particular order. */
  readonly running: Set<string>;
  /** Finished ids in the order they finished, for the TTL sweep. */
  readonly finished: IdQueue;
  /** The pending sweep, with the clock it was armed on (the backends sharing a state may differ). */
  sweep?: { readonly clock: Clock; readonly timer: ClockTimer } | undefined;
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

/** One backend over a state: what its operations read (rules) and the little they own (tokens, waiters, closed). */
export interface MemoryBackend {
  readonly state: State;
  /** True when the state was created for this backend alone (its sweep timer is this backend's to clear). */
  readonly ownsState: boolean;
  readonly clock: Clock;
  readonly ttlMs: number;
  readonly maxDeliveries: number;
  readonly delivery: Delivery;
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** This backend's lease tokens: a random prefix and a counter. */
  readonly tokenPrefix: string;
  tokens: number;
  closed: boolean;
  /** This backend's own waiting dequeues, which its close ends. */
  readonly ownWaiters: Set<() => void>;
}

/** Fixed overhead of a record beside its JSON texts. */
const RECORD_OVERHEAD = 200;

function sizeOf(entry: Pick<Entry, "fixed" | "progress" | "result" | "error">): number {
  return RECORD_OVERHEAD + 2 * (entry.fixed.length + (entry.progress?.length ?? 0) + (entry.result?.length ?? 0) + (entry.error?.length ?? 0));
}

const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

export function toRecord(entry: Entry): TaskRecord {
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

export function removeEntry(state: State, entry: Entry): void {
  if (state.records.get(entry.id) !== entry) return;
  state.records.delete(entry.id);
  state.bytes -= entry.bytes;
}

/** Counts an entry's new size in the budget. */
export function resize(state: State, entry: Entry): void {
  const size = sizeOf(entry);
  state.bytes += size - entry.bytes;
  entry.bytes = size;
}

/** Evicts finished records, oldest first, while over budget; true when it got back within it. */
export function evictFinished({ state, maxRecords, maxBytes }: MemoryBackend): boolean {
  while (state.records.size > maxRecords || state.bytes > maxBytes) {
    const id = state.finished.shift();
    if (id === undefined) return false;
    const entry = state.records.get(id);
    if (entry?.expiresAt !== undefined) removeEntry(state, entry);
  }
  return true;
}

/** A record past its TTL is gone, whether or not the sweep has run yet. */
export function lookup({ state, clock }: MemoryBackend, id: string): Entry | undefined {
  const entry = state.records.get(id);
  if (entry?.expiresAt !== undefined && entry.expiresAt <= clock.now()) {
    removeEntry(state, entry);
    return undefined;
  }
  return entry;
}

/** Removes finished records past their TTL, oldest first, and arms the next sweep for the first one left. */
function sweepExpired(backend: MemoryBackend): void {
  const { state, clock } = backend;
  state.sweep = undefined;
  const t = clock.now();
  for (;;) {
    const id = state.finished.shift();
    if (id === undefined) return;
    const entry = state.records.get(id);
    if (entry?.expiresAt === undefined) continue;
    if (entry.expiresAt > t) {
      state.finished.unshift(id);
      armSweep(backend, entry.expiresAt - t);
      return;
    }
    removeEntry(state, entry);
  }
}

/** One timer per state, for the oldest finished record; never keeps the process alive (the clock's timers do not). */
function armSweep(backend: MemoryBackend, delayMs: number): void {
  const { state, clock } = backend;
  if (state.sweep !== undefined) return;
  state.sweep = { clock, timer: clock.setTimeout(() => sweepExpired(backend), Math.max(delayMs, 1)) };
}

export function clearSweep(state: State): void {
  state.sweep?.clock.clearTimeout(state.sweep.timer);
  state.sweep = undefined;
}

/** running | queued → a finished status: the lease is dropped and the record starts its TTL. */
export function finishEntry(backend: MemoryBackend, entry: Entry, status: TaskStatus, fields: { result?: string; error?: string }): void {
  const { state, clock, ttlMs } = backend;
  entry.status = status;
  entry.token = "";
  entry.finished = clock.now();
  if (fields.result !== undefined) entry.result = fields.result;
  if (fields.error !== undefined) entry.error = fields.error;
  resize(state, entry);
  entry.expiresAt = entry.finished + ttlMs;
  delete entry.leaseExpiry;
  state.running.delete(entry.id);
  state.finished.push(entry.id);
  armSweep(backend, ttlMs);
  // A large result may push the store over its budget: older finished records make room.
  evictFinished(backend);
}

/** Wakes every dequeue waiting on the state (a create or a release: there may be work). */
export function wakeAll(state: State): void {
  for (const wake of [...state.waiters]) wake();
}
