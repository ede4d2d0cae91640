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
  isCheckpointId,
  matches,
  notFound,
  refused,
  tooLate,
} from "./records.js";
import { createSortedIndex } from "./sorted-index.js";
import {
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_RETENTION_MS,
  isTerminal,
  MAX_LIST_SCAN,
  transitionOf,
  type Checkpoint,
  type CheckpointEvent,
  type CheckpointStatus,
  type CheckpointStore,
  type DefaultAction,
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
  /** When retention drops the record: expiry plus retention while pending, retention after each change. */
  purgeMs: number;
  bytes: number;
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
  const records = new Map<string, Held>();
  const pending = createSortedIndex<number>();
  const listing = createSortedIndex<string>();
  const purging = createSortedIndex<number>();
  let bytes = 0;

  const drop = (held: Held): void => {
    records.delete(held.id);
    bytes -= held.bytes;
    if (held.status === "pending") pending.delete(held.expiresMs, held.id);
    listing.delete(held.member, held.id);
    purging.delete(held.purgeMs, held.id);
  };

  /** Records past their retention are gone, as their Redis keys would have expired. */
  const sweep = (): void => {
    const now = clock();
    for (let first = purging.first(); first !== undefined && first.key <= now; first = purging.first()) drop(records.get(first.id)!);
  };

  const overBudget = (extraCount: number, extraBytes: number): boolean => records.size + extraCount > maxCheckpoints || bytes + extraBytes > maxBytes;

  /** Evicts terminal records, earliest purge first, until `extra` fits; false when undecided ones alone fill the store. */
  const makeRoom = (extraBytes: number): boolean => {
    if (!overBudget(1, extraBytes)) return true;
    const terminal = [...purging.ascending()].filter(({ id }) => isTerminal(records.get(id)!.status));
    for (const { id } of terminal) {
      drop(records.get(id)!);
      if (!overBudget(1, extraBytes)) return true;
    }
    return false;
  };

  const lookup = (id: string): Held | undefined => {
    sweep();
    return isCheckpointId(id) ? records.get(id) : undefined;
  };

  const view = (held: Held): Checkpoint => decodeCheckpoint(held.body, held.status, held.resolution, held.resumedAt);

  /** The one write path of a status change, after the caller's checks. */
  const move = (held: Held, to: CheckpointStatus, changes: { resolution?: string; resumedAt?: string }): Checkpoint => {
    if (held.status === "pending") pending.delete(held.expiresMs, held.id);
    purging.delete(held.purgeMs, held.id);
    const added = heapBytes(changes.resolution ?? "") + heapBytes(changes.resumedAt ?? "");
    held.status = to;
    if (changes.resolution !== undefined) held.resolution = changes.resolution;
    if (changes.resumedAt !== undefined) held.resumedAt = changes.resumedAt;
    held.bytes += added;
    bytes += added;
    held.purgeMs = clock() + retentionMs;
    purging.add(held.purgeMs, held.id);
    return view(held);
  };

  const transition = (id: string, event: CheckpointEvent, now: number, changes: { resolution?: string; resumedAt?: string }): Checkpoint => {
    const held = lookup(id);
    if (held === undefined) throw notFound(id);
    const to = transitionOf(held.status, event);
    if (to === undefined) throw refused(id, held.status, event);
    if ((event === "approve" || event === "reject") && now >= held.expiresMs) throw tooLate(id, held.status, event, held.expiresMs);
    return move(held, to, changes);
  };

  return {
    kind: "memory",
    create: async (checkpoint) => {
      const encoded = encodeCheckpoint(checkpoint, maxRecordBytes);
      sweep();
      if (records.has(encoded.checkpoint_id)) throw new ManifoldError("CONFLICT", `checkpoint ${encoded.checkpoint_id} already exists`);
      const size = heapBytes(encoded.body);
      if (!makeRoom(size)) {
        throw new ManifoldError(
          "UNAVAILABLE",
          `the embedded checkpoint store is full of undecided checkpoints (${maxCheckpoints} or ${Math.round(maxBytes / 1048576)} MiB); decide some, or configure Redis (REDIS_URL)`,
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
        purgeMs: clock() + Math.max(0, encoded.expiresMs - encoded.createdMs) + retentionMs,
        bytes: size,
      };
      records.set(held.id, held);
      bytes += size;
      pending.add(held.expiresMs, held.id);
      listing.add(held.member, held.id);
      purging.add(held.purgeMs, held.id);
      return view(held);
    },
    get: async (id) => {
      const held = lookup(id);
      return held === undefined ? undefined : view(held);
    },
    command: async (id, action, { reason, now, parameters }) => {
      const event = checkAction(action);
      const at = checkNow(now);
      return transition(id, event, at, { resolution: commandResolution(event, reason, at, parameters) });
    },
    claimResume: async (id, now) => {
      const at = checkNow(now);
      return transition(id, "resume", at, { resumedAt: new Date(at).toISOString() });
    },
    expireDue: async (now, limit) => {
      checkNow(now);
      checkExpireLimit(limit);
      sweep();
      const due: Held[] = [];
      for (const { key, id } of pending.ascending()) {
        if (key > now || due.length >= limit) break;
        due.push(records.get(id)!);
      }
      const resolution = expiryResolution(now);
      return due.map((held) => {
        const to = transitionOf(held.status, held.defaultAction === "approve" ? "expire_approve" : "expire_reject")!;
        return move(held, to, { resolution });
      });
    },
    nextExpiry: async () => {
      sweep();
      return pending.first()?.key;
    },
    list: async (options) => {
      const checked = checkListOptions(options);
      sweep();
      const found: { member: string; checkpoint: Checkpoint }[] = [];
      let scanned = 0;
      let last: string | undefined;
      for (const { key, id } of listing.descending(checked.cursor)) {
        const held = records.get(id)!;
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
    },
    close: async () => undefined,
  };
}
