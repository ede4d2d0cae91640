import { ManifoldError } from "../../errors/index.js";
import { defineLuaScript, runScript, type RedisStore } from "../../store/index.js";
import {
  checkDueLimit,
  checkListOptions,
  checkScheduleId,
  DEFAULT_MAX_SCHEDULES,
  type AdvanceItem,
  type DueRecord,
  type ScheduleRecord,
  type ScheduleStore,
} from "./types.js";

const lua = (file: string) => defineLuaScript("schedules", new URL(`./lua/${file}`, import.meta.url));
const CREATE = lua("create-3.lua");
const UPDATE = lua("update-3.lua");
const DELETE = lua("delete-5.lua");
const ADVANCE = lua("advance.lua");
const DUE_RECORDS = lua("due-records-4.lua");

export interface RedisScheduleStoreOptions {
  /** Most schedules held; a create beyond it is UNAVAILABLE. @defaultValue 100,000 */
  readonly maxSchedules?: number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
}

/** What the definitions hash holds: the record without its fire state, which has keys of its own. */
type Definition = Omit<ScheduleRecord, "next_run_at" | "fire_count" | "last_fired_at">;

function definitionOf(record: ScheduleRecord): string {
  const { next_run_at: _next, fire_count: _count, last_fired_at: _last, ...definition } = record;
  return JSON.stringify(definition);
}

/** A record from its stored parts; an absent count or last fire time is null (or '' from a script). */
function compose(text: string, dueMs: number, count: string | null, lastFired: string | null): ScheduleRecord {
  const definition = JSON.parse(text) as Definition;
  return {
    ...definition,
    next_run_at: new Date(dueMs).toISOString(),
    fire_count: count === null || count === "" ? 0 : Number(count),
    ...(lastFired === null || lastFired === "" ? {} : { last_fired_at: lastFired }),
  };
}

/** The store's keys and connection; the operations below are functions over it. */
interface Schedules {
  readonly client: RedisStore["client"];
  readonly defs: string;
  readonly fireCount: string;
  readonly lastFired: string;
  readonly due: string;
  readonly agentIndex: (agent: string) => string;
  readonly maxSchedules: number;
}

function keysOf({ client, keys }: RedisStore, maxSchedules: number): Schedules {
  return {
    client,
    defs: keys.tagged("schedules", "defs"),
    fireCount: keys.tagged("schedules", "fire-count"),
    lastFired: keys.tagged("schedules", "last-fired"),
    due: keys.tagged("schedules", "due"),
    agentIndex: (agent) => keys.tagged("schedules", "agent", agent),
    maxSchedules,
  };
}

/** The advance script's keys (the four shared ones, then each item's agent index) and arguments. */
export function advanceCall(
  { defs, fireCount, lastFired, due, agentIndex }: Pick<Schedules, "defs" | "fireCount" | "lastFired" | "due" | "agentIndex">,
  items: readonly AdvanceItem[],
): { keys: string[]; args: (string | number)[] } {
  const keyList = [defs, fireCount, lastFired, due];
  const args: (string | number)[] = [];
  // A batch is mostly one agent's (or a few agents') schedules: each index key is built once.
  const agentKeys = new Map<string, string>();
  for (const { schedule, dueMs, nextMs, firedAt } of items) {
    let agentKey = agentKeys.get(schedule.target_agent);
    if (agentKey === undefined) agentKeys.set(schedule.target_agent, (agentKey = agentIndex(schedule.target_agent)));
    keyList.push(agentKey);
    args.push(checkScheduleId(schedule.schedule_id), dueMs, nextMs ?? "", firedAt);
  }
  return { keys: keyList, args };
}

async function advanceMany(schedules: Schedules, items: readonly AdvanceItem[]): Promise<boolean[]> {
  if (items.length === 0) return [];
  const { keys, args } = advanceCall(schedules, items);
  const results = (await runScript(schedules.client, ADVANCE, keys, args)) as number[];
  return results.map((applied) => applied === 1);
}

/** One transaction per batch of ids: definition, due score and fire state of each. */
async function read({ client, defs, fireCount, lastFired, due }: Schedules, ids: readonly string[]): Promise<ScheduleRecord[]> {
  if (ids.length === 0) return [];
  const replies =
    (await client
      .multi()
      .hmget(defs, ...ids)
      .hmget(fireCount, ...ids)
      .hmget(lastFired, ...ids)
      .zmscore(due, ...ids)
      .exec()) ?? [];
  const failed = replies.find(([error]) => error !== null)?.[0];
  if (failed) throw failed;
  const [texts = [], counts = [], lasts = [], scores = []] = replies.map(([, value]) => value as (string | null)[]);
  const found: ScheduleRecord[] = [];
  ids.forEach((_, i) => {
    const text = texts[i];
    const score = scores[i];
    if (text != null && score != null) found.push(compose(text, Number(score), counts[i] ?? null, lasts[i] ?? null));
  });
  return found;
}

async function create({ client, defs, due, agentIndex, maxSchedules }: Schedules, record: ScheduleRecord): Promise<void> {
  checkScheduleId(record.schedule_id);
  const outcome = await runScript(
    client,
    CREATE,
    [defs, due, agentIndex(record.target_agent)],
    [record.schedule_id, definitionOf(record), Date.parse(record.next_run_at), maxSchedules],
  );
  if (outcome === "EXISTS") throw new ManifoldError("CONFLICT", `schedule ${record.schedule_id} already exists`);
  if (outcome === "FULL") throw new ManifoldError("UNAVAILABLE", `the scheduler holds its maximum of ${maxSchedules} schedules; cancel some first`);
}

async function remove(schedules: Schedules, id: string): Promise<boolean> {
  const [record] = await read(schedules, [checkScheduleId(id)]);
  if (record === undefined) return false;
  const { defs, fireCount, lastFired, due, agentIndex } = schedules;
  return (await runScript(schedules.client, DELETE, [defs, fireCount, lastFired, due, agentIndex(record.target_agent)], [id])) === 1;
}

/** The firing loop's read: one read-only script answering `[id, due, definition, count, last fired]…` flat. */
async function dueRecords({ client, due, defs, fireCount, lastFired }: Schedules, nowMs: number, limit: number): Promise<DueRecord[]> {
  const flat = (await runScript(client, DUE_RECORDS, [due, defs, fireCount, lastFired], [nowMs, checkDueLimit(limit)])) as string[];
  const found: DueRecord[] = [];
  for (let i = 0; i < flat.length; i += 5) {
    const dueMs = Number(flat[i + 1]);
    found.push({ record: compose(flat[i + 2]!, dueMs, flat[i + 3]!, flat[i + 4]!), dueMs });
  }
  return found;
}

/**
 * Every key shares the `{schedules}` hash tag, so each script's keys sit in one Cluster slot:
 * `…:{schedules}:defs` (hash id → definition JSON), `…:fire-count` and `…:last-fired` (hashes: the
 * fire state, written only by `advance`, so an update cannot undo a firing), `…:due` (sorted set:
 * id by due ms, the firing loop's index) and `…:agent:<name>` (the same, per agent, for
 * `list_schedules`). Writes are Lua scripts; reads are MULTI transactions (HMGET and ZMSCORE: Redis
 * 6.2 or later), or a read-only script for the firing loop's `dueRecords`, so a record is never seen
 * half-advanced. Definitions are stored as given and never decoded by Lua, so an empty array in
 * `input` stays an array.
 */
export function createRedisScheduleStore(
  store: RedisStore,
  { maxSchedules = DEFAULT_MAX_SCHEDULES, ownsStore = false }: RedisScheduleStoreOptions = {},
): ScheduleStore {
  const schedules = keysOf(store, maxSchedules);
  const { client, defs, due, agentIndex } = schedules;
  return {
    kind: "redis",
    create: (record) => create(schedules, record),
    get: async (id) => (await read(schedules, [checkScheduleId(id)]))[0],
    list: async (options) => {
      const { limit, offset, target_agent } = checkListOptions(options);
      const ids = await client.zrange(target_agent === undefined ? due : agentIndex(target_agent), String(offset), String(offset + limit - 1));
      return read(schedules, ids);
    },
    update: async (record, { retime = true } = {}) => {
      checkScheduleId(record.schedule_id);
      const dueMs = retime ? Date.parse(record.next_run_at) : "";
      return (await runScript(client, UPDATE, [defs, due, agentIndex(record.target_agent)], [record.schedule_id, definitionOf(record), dueMs])) === 1;
    },
    delete: (id) => remove(schedules, id),
    dueRecords: (nowMs, limit) => dueRecords(schedules, nowMs, limit),
    nextDue: async () => {
      const [, score] = await client.zrange(due, "0", "0", "WITHSCORES");
      return score === undefined ? undefined : Number(score);
    },
    advance: async (schedule, dueMs, nextMs, firedAt) => (await advanceMany(schedules, [{ schedule, dueMs, nextMs, firedAt }]))[0]!,
    advanceMany: (items) => advanceMany(schedules, items),
    count: async () => client.hlen(defs),
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}
