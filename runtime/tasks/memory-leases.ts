/**
 * The memory task backend's leases: taking tasks (lapsed leases first, then the head of the queue),
 * the lease check every write makes, and the writes that need a lease (finish, extend, release).
 * Leases need no timer: a lapsed lease is found by the next dequeue, as on Redis.
 */
import { encodeError, encodeResult, LEASE_LAPSED_AT_MOST_ONCE, redeliveryExceeded } from "./backend-shared.js";
import { type Entry, finishEntry, lookup, type MemoryBackend, toRecord, wakeAll } from "./memory-state.js";
import type { DequeueOptions, Lease, LeasedWrite, TaskOutcome } from "./types.js";

/** queued (or lapsed) → running for this backend: a new token, one more delivery, the first start kept. */
function leaseEntry(backend: MemoryBackend, entry: Entry, leaseMs: number, t: number): Lease {
  entry.status = "running";
  entry.deliveries += 1;
  entry.token = `${backend.tokenPrefix}:${((backend.tokens += 1)).toString(36)}`;
  entry.started ??= t;
  entry.leaseExpiry = t + leaseMs;
  backend.state.running.add(entry.id);
  return { task: toRecord(entry), token: entry.token, expiresAt: entry.leaseExpiry };
}

/**
 * Running tasks whose lease lapsed, up to `count`, each redelivered or (at most once, or out of
 * deliveries) failed. Running ids whose record is gone or finished are dropped as they are met.
 */
export function takeLapsed(backend: MemoryBackend, count: number, leaseMs: number, t: number): Lease[] {
  const { state, delivery, maxDeliveries } = backend;
  const out: Lease[] = [];
  for (const id of state.running) {
    if (out.length >= count) break;
    const entry = state.records.get(id);
    if (entry === undefined || entry.status !== "running") {
      state.running.delete(id);
      continue;
    }
    if (entry.leaseExpiry === undefined || entry.leaseExpiry > t) continue;
    if (delivery === "at-most-once") finishEntry(backend, entry, "failed", { error: encodeError(LEASE_LAPSED_AT_MOST_ONCE) });
    else if (entry.deliveries >= maxDeliveries) finishEntry(backend, entry, "failed", { error: encodeError(redeliveryExceeded(maxDeliveries)) });
    else out.push(leaseEntry(backend, entry, leaseMs, t));
  }
  return out;
}

/** Redeliveries of lapsed leases first (they have waited longest), then the head of the queue. */
export function takeLeases(backend: MemoryBackend, { count, leaseMs }: DequeueOptions): Lease[] {
  const { state } = backend;
  const t = backend.clock.now();
  const out = takeLapsed(backend, count, leaseMs, t);
  while (out.length < count && state.queued > 0) {
    const id = state.queue.shift();
    if (id === undefined) break;
    const entry = state.records.get(id);
    if (entry?.status !== "queued") continue;
    state.queued -= 1;
    out.push(leaseEntry(backend, entry, leaseMs, t));
  }
  return out;
}

/** When the first running lease lapses (a blocked dequeue wakes for it); undefined when none runs. */
export function earliestLease({ state }: MemoryBackend): number | undefined {
  let earliest: number | undefined;
  for (const id of state.running) {
    const expiry = state.records.get(id)?.leaseExpiry;
    if (expiry !== undefined && (earliest === undefined || expiry < earliest)) earliest = expiry;
  }
  return earliest;
}

/** The entry when `token` holds its lease, else why not. */
export function leasedEntry(backend: MemoryBackend, taskId: string, token: string): Entry | LeasedWrite {
  const entry = lookup(backend, taskId);
  if (entry === undefined) return "lost";
  if (entry.status === "cancelled") return "cancelled";
  return entry.status === "running" && entry.token === token ? entry : "lost";
}

/** One outcome of `finishMany`; a result JSON cannot carry fails the task instead. */
export function finishOutcome(backend: MemoryBackend, outcome: TaskOutcome): LeasedWrite {
  const entry = leasedEntry(backend, outcome.taskId, outcome.token);
  if (typeof entry === "string") return entry;
  if (outcome.status === "failed") {
    finishEntry(backend, entry, "failed", { error: encodeError(outcome.error) });
    return "ok";
  }
  const encoded = encodeResult(outcome.result);
  if ("error" in encoded) finishEntry(backend, entry, "failed", { error: encodeError(encoded.error) });
  else finishEntry(backend, entry, "completed", { result: encoded.json });
  return "ok";
}

export function extendLeases(
  backend: MemoryBackend,
  leases: readonly { readonly taskId: string; readonly token: string }[],
  leaseMs: number,
): Map<string, LeasedWrite> {
  const t = backend.clock.now();
  const out = new Map<string, LeasedWrite>();
  for (const { taskId, token } of leases) {
    const entry = leasedEntry(backend, taskId, token);
    if (typeof entry === "string") out.set(taskId, entry);
    else {
      entry.leaseExpiry = t + leaseMs;
      out.set(taskId, "ok");
    }
  }
  return out;
}

/** running → queued at the head, its delivery not counted (graceful shutdown), waking the waiting dequeuers. */
export function releaseLease(backend: MemoryBackend, taskId: string, token: string): LeasedWrite {
  const { state } = backend;
  const entry = leasedEntry(backend, taskId, token);
  if (typeof entry === "string") return entry;
  entry.status = "queued";
  entry.deliveries -= 1;
  entry.token = "";
  delete entry.leaseExpiry;
  state.running.delete(taskId);
  state.queue.unshift(taskId);
  state.queued += 1;
  wakeAll(state);
  return "ok";
}
