import { ManifoldError } from "../../errors/index.js";
import { defineLuaScript, runScript, type RedisStore } from "../../store/index.js";
import {
  checkAction,
  checkExpireLimit,
  checkListOptions,
  checkNow,
  commandResolution,
  decodeCheckpoint,
  encodeCheckpoint,
  expiryResolution,
  idOfMember,
  checkRelease,
  isCheckpointId,
  matches,
  notFound,
  refused,
  staleRelease,
  tooLate,
} from "./records.js";
import {
  CHECKPOINT_STATUSES,
  DEFAULT_MAX_RECORD_BYTES,
  DEFAULT_RETENTION_MS,
  legalFor,
  MAX_EXPIRE_LIMIT,
  MAX_LIST_SCAN,
  type Checkpoint,
  type CheckpointAction,
  type CheckpointEvent,
  type CheckpointListOptions,
  type CheckpointPage,
  type CheckpointStatus,
  type CheckpointStore,
  type CommandOptions,
  type NewCheckpoint,
  type ReleaseOptions,
} from "./types.js";

const lua = (file: string) => defineLuaScript("checkpoints", new URL(`./lua/${file}`, import.meta.url));
const CREATE = lua("create-5.lua");
const COMMAND = lua("command-3.lua");
const RESUME = lua("resume-3.lua");
const RELEASE = lua("release-3.lua");
const EXPIRE_DUE = lua("expire-due-2.lua");
const PURGE = lua("purge-3.lua");

/** Index entries read per round trip while listing. */
const LIST_WINDOW = 100;

export interface RedisCheckpointStoreOptions {
  /** How long a decided checkpoint is kept (its key's TTL). @defaultValue 24 h */
  readonly retentionMs?: number;
  /** Largest checkpoint, as UTF-8 JSON; a larger one is PAYLOAD_TOO_LARGE. @defaultValue 256 KiB */
  readonly maxRecordBytes?: number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
}

/** The table's rows for an event, flat, as the scripts take them (from, to, from, to, …). */
const rows = (event: CheckpointEvent): string[] => legalFor(event).flatMap(({ from, to }) => [from, to]);
const onlyRow = (event: CheckpointEvent): [string, string] => {
  const [row, ...more] = legalFor(event);
  if (row === undefined || more.length > 0) throw new Error(`internal: ${event} must have exactly one row in CHECKPOINT_TRANSITIONS`);
  return [row.from, row.to];
};

/** HGETALL's flat array (from a script) as the record it holds. */
function fromFlat(flat: readonly string[]): Checkpoint {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  return decodeCheckpoint(fields.get("body")!, fields.get("status")!, fields.get("resolution"), fields.get("resumed_at"), fields.get("attempts"));
}

type Outcome = ["ok", string[]] | ["refused", CheckpointStatus] | ["late", CheckpointStatus, string] | ["stale", CheckpointStatus, string] | ["not_found"];

/** The Redis adapter's state: the client, its key names, its limits and the expiry rows. */
interface RedisCheckpoints {
  readonly client: RedisStore["client"];
  readonly recordPrefix: string;
  readonly statusPrefix: string;
  readonly expiry: string;
  readonly all: string;
  readonly purge: string;
  readonly retentionMs: number;
  readonly maxRecordBytes: number;
  /** The expiry rows, flat (approve's, then reject's), as `expire-due` takes them. */
  readonly expireRows: readonly string[];
}

/**
 * Every key shares the `{checkpoints}` hash tag, so each script's keys sit in one Cluster slot:
 * `…:{checkpoints}:cp:<id>` (hash: the checkpoint's JSON in `body`, never decoded by Lua, beside
 * `status`, `expires_ms`, `default_action`, `member`, `resolution`, `resumed_at`), `…:expiry`
 * (sorted set: pending ids by expiry ms), `…:all` and `…:status:<status>` (lexicographic sorted
 * sets of `<created ms>:<id>`, newest last, for `list`) and `…:purge` (the same members by the time
 * retention ends). Every status change is one Lua script given the table's rows; reads are
 * transactions (one slot), so a record is never seen half-moved.
 */
export function createRedisCheckpointStore(
  store: RedisStore,
  { retentionMs = DEFAULT_RETENTION_MS, maxRecordBytes = DEFAULT_MAX_RECORD_BYTES, ownsStore = false }: RedisCheckpointStoreOptions = {},
): CheckpointStore {
  for (const [name, value] of Object.entries({ retentionMs, maxRecordBytes })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  }
  const { client, keys } = store;
  const state: RedisCheckpoints = {
    client,
    recordPrefix: `${keys.tagged("checkpoints", "cp")}:`,
    statusPrefix: `${keys.tagged("checkpoints", "status")}:`,
    expiry: keys.tagged("checkpoints", "expiry"),
    all: keys.tagged("checkpoints", "all"),
    purge: keys.tagged("checkpoints", "purge"),
    retentionMs,
    maxRecordBytes,
    expireRows: [...onlyRow("expire_approve"), ...onlyRow("expire_reject")],
  };
  return {
    kind: "redis",
    create: (checkpoint) => createRecord(state, checkpoint),
    get: async (id) => (isCheckpointId(id) ? (await read(state, [id]))[0] : undefined),
    command: (id, action, options) => command(state, id, action, options),
    claimResume: (id, now) => claimResume(state, id, now),
    releaseResume: (id, options) => releaseResume(state, id, checkRelease(options)),
    expireDue: (now, limit) => expireDue(state, now, limit),
    nextExpiry: async () => {
      const [, score] = await client.zrange(state.expiry, "0", "0", "WITHSCORES");
      return score === undefined ? undefined : Number(score);
    },
    list: (options) => listPage(state, options),
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}

const recordKey = (state: RedisCheckpoints, id: string): string => `${state.recordPrefix}${id}`;

/** One transaction: the records of these ids (missing ones, past retention, left out). */
async function read(state: RedisCheckpoints, ids: readonly string[]): Promise<(Checkpoint | undefined)[]> {
  if (ids.length === 0) return [];
  const multi = state.client.multi();
  for (const id of ids) multi.hmget(recordKey(state, id), "body", "status", "resolution", "resumed_at", "attempts");
  const replies = (await multi.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    const [body, status, resolution, resumedAt, attempts] = value as (string | null)[];
    return body == null || status == null ? undefined : decodeCheckpoint(body, status, resolution ?? undefined, resumedAt ?? undefined, attempts ?? undefined);
  });
}

/** A script's outcome as the record, or the error it stands for. */
function settle(id: string, event: CheckpointEvent, outcome: Outcome): Checkpoint {
  switch (outcome[0]) {
    case "ok":
      return fromFlat(outcome[1]);
    case "refused":
      throw refused(id, outcome[1], event);
    case "late":
      throw tooLate(id, outcome[1], event, Number(outcome[2]));
    case "stale":
      throw staleRelease(id, outcome[1], Number(outcome[2]));
    default:
      throw notFound(id);
  }
}

async function createRecord(state: RedisCheckpoints, checkpoint: NewCheckpoint): Promise<Checkpoint> {
  const encoded = encodeCheckpoint(checkpoint, state.maxRecordBytes);
  const lifetime = Math.max(0, encoded.expiresMs - encoded.createdMs) + state.retentionMs;
  const outcome = await runScript(
    state.client,
    CREATE,
    [recordKey(state, encoded.checkpoint_id), state.expiry, state.all, `${state.statusPrefix}pending`, state.purge],
    [encoded.checkpoint_id, encoded.body, encoded.expiresMs, encoded.defaultAction, encoded.member, lifetime],
  );
  if (outcome === "EXISTS") throw new ManifoldError("CONFLICT", `checkpoint ${encoded.checkpoint_id} already exists`);
  return decodeCheckpoint(encoded.body, "pending", undefined, undefined);
}

async function command(state: RedisCheckpoints, id: string, action: CheckpointAction, { reason, now, parameters }: CommandOptions): Promise<Checkpoint> {
  const event = checkAction(action);
  const at = checkNow(now);
  const resolution = commandResolution(event, reason, at, parameters);
  if (!isCheckpointId(id)) throw notFound(id);
  const outcome = (await runScript(
    state.client,
    COMMAND,
    [recordKey(state, id), state.expiry, state.purge],
    [id, state.statusPrefix, at, resolution, state.retentionMs, ...rows(event)],
  )) as Outcome;
  return settle(id, event, outcome);
}

async function claimResume(state: RedisCheckpoints, id: string, now: number): Promise<Checkpoint> {
  const at = checkNow(now);
  if (!isCheckpointId(id)) throw notFound(id);
  const outcome = (await runScript(
    state.client,
    RESUME,
    [recordKey(state, id), state.expiry, state.purge],
    [id, state.statusPrefix, new Date(at).toISOString(), state.retentionMs, ...rows("resume")],
  )) as Outcome;
  return settle(id, "resume", outcome);
}

async function releaseResume(state: RedisCheckpoints, id: string, { attempts, maxAttempts }: ReleaseOptions): Promise<Checkpoint> {
  if (!isCheckpointId(id)) throw notFound(id);
  const outcome = (await runScript(
    state.client,
    RELEASE,
    [recordKey(state, id), state.expiry, state.purge],
    [id, state.statusPrefix, attempts, maxAttempts, state.retentionMs, ...onlyRow("fail"), ...rows("release")],
  )) as Outcome;
  return settle(id, "release", outcome);
}

/** Moves due pending records by their default action (one script), then purges records past retention. */
async function expireDue(state: RedisCheckpoints, now: number, limit: number): Promise<Checkpoint[]> {
  checkNow(now);
  checkExpireLimit(limit);
  const moved = (await runScript(
    state.client,
    EXPIRE_DUE,
    [state.expiry, state.purge],
    [state.recordPrefix, state.statusPrefix, now, limit, expiryResolution(now), state.retentionMs, ...state.expireRows],
  )) as string[][];
  await runScript(
    state.client,
    PURGE,
    [state.purge, state.expiry, state.all],
    [state.recordPrefix, state.statusPrefix, MAX_EXPIRE_LIMIT, ...CHECKPOINT_STATUSES],
  );
  return moved.map(fromFlat);
}

/** One page of the list, newest first: index windows read by lex range, records by transaction, at most MAX_LIST_SCAN entries. */
async function listPage(state: RedisCheckpoints, options: CheckpointListOptions | undefined): Promise<CheckpointPage> {
  const checked = checkListOptions(options);
  const index = checked.status === undefined ? state.all : `${state.statusPrefix}${checked.status}`;
  const found: { member: string; checkpoint: Checkpoint }[] = [];
  let scanned = 0;
  let last: string | undefined;
  let start = checked.cursor === undefined ? "+" : `(${checked.cursor}`;
  while (found.length <= checked.limit && scanned < MAX_LIST_SCAN) {
    const window = Math.min(LIST_WINDOW, MAX_LIST_SCAN - scanned);
    const members = await state.client.zrange(index, start, "-", "BYLEX", "REV", "LIMIT", 0, window);
    if (members.length === 0) break;
    const records = await read(state, members.map(idOfMember));
    for (const [i, member] of members.entries()) {
      if (found.length > checked.limit) break;
      scanned += 1;
      last = member;
      // Gone (retention ended; the purge pass drops the entry) or moved since the index was read.
      const checkpoint = records[i];
      if (checkpoint !== undefined && matches(checkpoint, checked)) found.push({ member, checkpoint });
    }
    if (members.length < window) break;
    start = `(${members.at(-1)!}`;
  }
  const page = found.slice(0, checked.limit);
  const more = found.length > checked.limit ? page.at(-1)?.member : scanned >= MAX_LIST_SCAN ? last : undefined;
  return { checkpoints: page.map((f) => f.checkpoint), ...(more === undefined ? {} : { next_cursor: more }) };
}
