import { ManifoldError } from "../../errors/index.js";
import { heapBytes } from "../../util/index.js";
import {
  checkAction,
  checkExpireLimit,
  checkListOptions,
  checkNow,
  commandResolution,
  decodeCheckpoint,
  encodeCheckpoint,
  expiryResolution,
  checkRelease,
  isCheckpointId,
  matches,
  notFound,
  refused,
  staleRelease,
  tooLate,
} from "./records.js";
import { createSortedIndex, type SortedIndex } from "./sorted-index.js";
import {
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_RETENTION_MS,
  isTerminal,
  MAX_LIST_SCAN,
  transitionOf,
  type Checkpoint,
  type CheckpointEvent,
  type CheckpointListOptions,
  type CheckpointPage,
  type CheckpointStatus,
  type CheckpointStore,
  type DefaultAction,
  type NewCheckpoint,
  type ReleaseOptions,
} from "./types.js";

export interface MemoryCheckpointStoreOptions {
  /** How long a decided checkpoint is kept. @defaultValue 24 h */
  readonly retentionMs?: number;
  /** Largest checkpoint, as UTF-8 JSON; a larger one is PAYLOAD_TOO_LARGE. @defaultValue 256 KiB */
  readonly maxRecordBytes?: number;
  /** Most checkpoints held. Past it (or `maxBytes`) terminal ones are evicted oldest first; when undecided ones fill it, a create is UNAVAILABLE. @defaultValue 10,000 */
  readonly maxCheckpoints?: number;
  /** Checkpoints held in this process's heap (records as JSON, about). @defaultValue 64 MiB */
  readonly maxBytes?: number;
  /** The clock of retention (decisions use the caller's `now`). @defaultValue Date.now */
  readonly clock?: () => number;
}

interface Held {
  readonly id: string;
  readonly body: string;
  readonly member: string;
  readonly expiresMs: number;
  readonly defaultAction: DefaultAction;
  status: CheckpointStatus;
  resolution: string | undefined;
  resumedAt: string | undefined;
  /** Failed resumes so far, and the status the last claim came from (where a release returns it). */
  attempts: number;
  resumedFrom: CheckpointStatus | undefined;
  /** When retention drops the record: expiry plus retention while pending, retention after each change. */
  purgeMs: number;
  bytes: number;
}

/** The embedded store's state: its records and three sorted indexes, as the Redis adapter keeps. */
interface MemoryCheckpoints {
  readonly records: Map<string, Held>;
  /** Pending records by expiry. */
  readonly pending: SortedIndex<number>;
  /** All records by list order. */
  readonly listing: SortedIndex<string>;
  /** All records by purge time. */
  readonly purging: SortedIndex<number>;
  bytes: number;
  readonly retentionMs: number;
  readonly maxRecordBytes: number;
  readonly maxCheckpoints: number;
  readonly maxBytes: number;
  readonly clock: () => number;
}

/**
 * The embedded adapter: a Map of records (so an id like `__proto__` is just a key) and three sorted
 * indexes, as the Redis adapter keeps: pending by expiry, all by list order, all by purge time.
 * Records are kept as JSON text and parsed on every read, so callers get copies. Every method is
 * synchronous from check to write, so concurrent calls cannot interleave: each status change is a
 * compare-and-set by construction.
 */
export function createMemoryCheckpointStore({
  retentionMs = DEFAULT_RETENTION_MS,
  maxRecordBytes = DEFAULT_MAX_RECORD_BYTES,
  maxCheckpoints = 10_000,
  maxBytes = 64 * 1024 * 1024,
  clock = Date.now,
}: MemoryCheckpointStoreOptions = {}): CheckpointStore {
  for (const [name, value] of Object.entries({ retentionMs, maxRecordBytes, maxCheckpoints, maxBytes })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  }
  const state: MemoryCheckpoints = {
    records: new Map(),
    pending: createSortedIndex<number>(),
    listing: createSortedIndex<string>(),
    purging: createSortedIndex<number>(),
    bytes: 0,
    retentionMs,
    maxRecordBytes,
    maxCheckpoints,
    maxBytes,
    clock,
  };
  return {
    kind: "memory",
    create: async (checkpoint) => createRecord(state, checkpoint),
    get: async (id) => {
      const held = lookup(state, id);
      return held === undefined ? undefined : view(held);
    },
    command: async (id, action, { reason, now, parameters }) => {
      const event = checkAction(action);
      const at = checkNow(now);
      return transition(state, id, event, at, { resolution: commandResolution(event, reason, at, parameters) });
    },
    claimResume: async (id, now) => {
      const at = checkNow(now);
      return transition(state, id, "resume", at, { resumedAt: new Date(at).toISOString() });
    },
    releaseResume: async (id, options) => release(state, id, checkRelease(options)),
    expireDue: async (now, limit) => expireDue(state, now, limit),
    nextExpiry: async () => {
      sweep(state);
      return state.pending.first()?.key;
    },
    list: async (options) => listPage(state, options),
    close: async () => undefined,
  };
}

function drop(state: MemoryCheckpoints, held: Held): void {
  state.records.delete(held.id);
  state.bytes -= held.bytes;
  if (held.status === "pending") state.pending.delete(held.expiresMs, held.id);
  state.listing.delete(held.member, held.id);
  state.purging.delete(held.purgeMs, held.id);
}

/** Records past their retention are gone, as their Redis keys would have expired. */
function sweep(state: MemoryCheckpoints): void {
  const now = state.clock();
  for (let first = state.purging.first(); first !== undefined && first.key <= now; first = state.purging.first()) drop(state, state.records.get(first.id)!);
}

function overBudget(state: MemoryCheckpoints, extraCount: number, extraBytes: number): boolean {
  return state.records.size + extraCount > state.maxCheckpoints || state.bytes + extraBytes > state.maxBytes;
}

/** Evicts terminal records, earliest purge first, until `extra` fits; false when undecided ones alone fill the store. */
function makeRoom(state: MemoryCheckpoints, extraBytes: number): boolean {
  if (!overBudget(state, 1, extraBytes)) return true;
  const terminal = [...state.purging.ascending()].filter(({ id }) => isTerminal(state.records.get(id)!.status));
  for (const { id } of terminal) {
    drop(state, state.records.get(id)!);
    if (!overBudget(state, 1, extraBytes)) return true;
  }
  return false;
}

function lookup(state: MemoryCheckpoints, id: string): Held | undefined {
  sweep(state);
  return isCheckpointId(id) ? state.records.get(id) : undefined;
}

function view(held: Held): Checkpoint {
  return decodeCheckpoint(held.body, held.status, held.resolution, held.resumedAt, held.attempts);
}

function createRecord(state: MemoryCheckpoints, checkpoint: NewCheckpoint): Checkpoint {
  const encoded = encodeCheckpoint(checkpoint, state.maxRecordBytes);
  sweep(state);
  if (state.records.has(encoded.checkpoint_id)) throw new ManifoldError("CONFLICT", `checkpoint ${encoded.checkpoint_id} already exists`);
  const size = heapBytes(encoded.body);
  if (!makeRoom(state, size)) {
    throw new ManifoldError(
      "UNAVAILABLE",
      `the embedded checkpoint store is full of undecided checkpoints (${state.maxCheckpoints} or ${Math.round(state.maxBytes / 1048576)} MiB); decide some, or configure Redis (REDIS_URL)`,
    );
  }
  const held: Held = {
    id: encoded.checkpoint_id,
    body: encoded.body,
    member: encoded.member,
    expiresMs: encoded.expiresMs,
    defaultAction: encoded.defaultAction,
    status: "pending",
    resolution: undefined,
    resumedAt: undefined,
    attempts: 0,
    resumedFrom: undefined,
    purgeMs: state.clock() + Math.max(0, encoded.expiresMs - encoded.createdMs) + state.retentionMs,
    bytes: size,
  };
  state.records.set(held.id, held);
  state.bytes += size;
  state.pending.add(held.expiresMs, held.id);
  state.listing.add(held.member, held.id);
  state.purging.add(held.purgeMs, held.id);
  return view(held);
}

/** The one write path of a status change, after the caller's checks. */
function move(state: MemoryCheckpoints, held: Held, to: CheckpointStatus, changes: { resolution?: string; resumedAt?: string }): Checkpoint {
  if (held.status === "pending") state.pending.delete(held.expiresMs, held.id);
  state.purging.delete(held.purgeMs, held.id);
  const added = heapBytes(changes.resolution ?? "") + heapBytes(changes.resumedAt ?? "");
  held.status = to;
  if (changes.resolution !== undefined) held.resolution = changes.resolution;
  if (changes.resumedAt !== undefined) held.resumedAt = changes.resumedAt;
  held.bytes += added;
  state.bytes += added;
  held.purgeMs = state.clock() + state.retentionMs;
  state.purging.add(held.purgeMs, held.id);
  return view(held);
}

/** A status change by compare-and-set: the table of legal transitions, and no decision after expiry. */
function transition(
  state: MemoryCheckpoints,
  id: string,
  event: CheckpointEvent,
  now: number,
  changes: { resolution?: string; resumedAt?: string },
): Checkpoint {
  const held = lookup(state, id);
  if (held === undefined) throw notFound(id);
  const to = transitionOf(held.status, event);
  if (to === undefined) throw refused(id, held.status, event);
  if ((event === "approve" || event === "reject") && now >= held.expiresMs) throw tooLate(id, held.status, event, held.expiresMs);
  if (event === "resume") held.resumedFrom = held.status;
  return move(state, held, to, changes);
}

/** `resumed` → where the claim came from, or `failed` at the cap: compare-and-set on status and attempts. */
function release(state: MemoryCheckpoints, id: string, { attempts, maxAttempts }: ReleaseOptions): Checkpoint {
  const held = lookup(state, id);
  if (held === undefined) throw notFound(id);
  if (transitionOf(held.status, "release") === undefined) throw refused(id, held.status, "release");
  if (held.attempts !== attempts) throw staleRelease(id, held.status, held.attempts);
  held.attempts += 1;
  // The failed claim's time goes with it (its bytes too): a resumable checkpoint has no resumed_at.
  const freed = heapBytes(held.resumedAt ?? "");
  held.bytes -= freed;
  state.bytes -= freed;
  held.resumedAt = undefined;
  const to = held.attempts >= maxAttempts ? transitionOf(held.status, "fail")! : (held.resumedFrom ?? "approved");
  return move(state, held, to, {});
}

/** Pending records whose expiry is due, oldest first, moved by their default action. */
function expireDue(state: MemoryCheckpoints, now: number, limit: number): Checkpoint[] {
  checkNow(now);
  checkExpireLimit(limit);
  sweep(state);
  const due: Held[] = [];
  for (const { key, id } of state.pending.ascending()) {
    if (key > now || due.length >= limit) break;
    due.push(state.records.get(id)!);
  }
  const resolution = expiryResolution(now);
  return due.map((held) => {
    const to = transitionOf(held.status, held.defaultAction === "approve" ? "expire_approve" : "expire_reject")!;
    return move(state, held, to, { resolution });
  });
}

/** One page of the list, newest first, scanning at most MAX_LIST_SCAN records as the Redis adapter does. */
function listPage(state: MemoryCheckpoints, options: CheckpointListOptions | undefined): CheckpointPage {
  const checked = checkListOptions(options);
  sweep(state);
  const found: { member: string; checkpoint: Checkpoint }[] = [];
  let scanned = 0;
  let last: string | undefined;
  for (const { key, id } of state.listing.descending(checked.cursor)) {
    const held = state.records.get(id)!;
    // The Redis adapter reads a per-status index: only the other filters count against the scan.
    if (checked.status !== undefined && held.status !== checked.status) continue;
    if (found.length > checked.limit || scanned >= MAX_LIST_SCAN) break;
    scanned += 1;
    last = key;
    const checkpoint = view(held);
    if (matches(checkpoint, checked)) found.push({ member: key, checkpoint });
  }
  const page = found.slice(0, checked.limit);
  const more = found.length > checked.limit ? page.at(-1)?.member : scanned >= MAX_LIST_SCAN ? last : undefined;
  return { checkpoints: page.map((f) => f.checkpoint), ...(more === undefined ? {} : { next_cursor: more }) };
}
