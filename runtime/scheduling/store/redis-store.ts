import { ManifoldError } from "../../errors/index.js";
import { loadLuaScript, runScript, type RedisStore } from "../../store/index.js";
import {
  checkDueLimit,
  checkListOptions,
  checkScheduleId,
  DEFAULT_MAX_SCHEDULES,
  type AdvanceItem,
  type DueRecord,
  type ScheduleRecord,
  type ScheduleRef,
  type ScheduleStore,
} from "./types.js";

const lua = (file: string) => loadLuaScript("schedules", new URL(`./lua/${file}`, import.meta.url));
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
  const { client, keys } = store;
  const defs = keys.tagged("schedules", "defs");
  const fireCount = keys.tagged("schedules", "fire-count");
  const lastFired = keys.tagged("schedules", "last-fired");
  const due = keys.tagged("schedules", "due");
  const agentIndex = (agent: string): string => keys.tagged("schedules", "agent", agent);
  const allKeys = (ref: ScheduleRef): string[] => [defs, fireCount, lastFired, due, agentIndex(ref.target_agent)];

  const advanceMany = async (items: readonly AdvanceItem[]): Promise<boolean[]> => {
    if (items.length === 0) return [];
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
    const results = (await runScript(client, ADVANCE, keyList, args)) as number[];
    return results.map((applied) => applied === 1);
  };

  /** One transaction per batch of ids: definition, due score and fire state of each. */
  const read = async (ids: readonly string[]): Promise<ScheduleRecord[]> => {
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
  };

  return {
    kind: "redis",
    create: async (record) => {
      checkScheduleId(record.schedule_id);
      const outcome = await runScript(
        client,
        CREATE,
        [defs, due, agentIndex(record.target_agent)],
        [record.schedule_id, definitionOf(record), Date.parse(record.next_run_at), maxSchedules],
      );
      if (outcome === "EXISTS") throw new ManifoldError("CONFLICT", `schedule ${record.schedule_id} already exists`);
      if (outcome === "FULL") throw new ManifoldError("UNAVAILABLE", `the scheduler holds its maximum of ${maxSchedules} schedules; cancel some first`);
    },
    get: async (id) => (await read([checkScheduleId(id)]))[0],
    list: async (options) => {
      const { limit, offset, target_agent } = checkListOptions(options);
      const ids = await client.zrange(target_agent === undefined ? due : agentIndex(target_agent), String(offset), String(offset + limit - 1));
      return read(ids);
    },
    update: async (record, { retime = true } = {}) => {
      checkScheduleId(record.schedule_id);
      const dueMs = retime ? Date.parse(record.next_run_at) : "";
      return (await runScript(client, UPDATE, [defs, due, agentIndex(record.target_agent)], [record.schedule_id, definitionOf(record), dueMs])) === 1;
    },
    delete: async (id) => {
      const [record] = await read([checkScheduleId(id)]);
      if (record === undefined) return false;
      return (await runScript(client, DELETE, allKeys(record), [id])) === 1;
    },
    dueRecords: async (nowMs, limit) => {
      const flat = (await runScript(client, DUE_RECORDS, [due, defs, fireCount, lastFired], [nowMs, checkDueLimit(limit)])) as string[];
      const found: DueRecord[] = [];
      for (let i = 0; i < flat.length; i += 5) {
        const dueMs = Number(flat[i + 1]);
        found.push({ record: compose(flat[i + 2]!, dueMs, flat[i + 3]!, flat[i + 4]!), dueMs });
      }
      return found;
    },
    nextDue: async () => {
      const [, score] = await client.zrange(due, "0", "0", "WITHSCORES");
      return score === undefined ? undefined : Number(score);
    },
    advance: async (schedule, dueMs, nextMs, firedAt) => (await advanceMany([{ schedule, dueMs, nextMs, firedAt }]))[0]!,
    advanceMany,
    count: async () => client.hlen(defs),
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}
