/**
 * The Redis episode store. Every key of a domain shares the hash tag `{episodes:<domain>}`, so each
 * script's keys (and the record keys a script derives from a prefix) sit in one Cluster slot:
 * `…:ep:<id>` (hash: the episode's JSON in `body`, its entities' digests in `ents`, `reflected_at`,
 * and `claim`, the reflection pass holding it), `…:idx`, `…:unreflected` and `…:ent:<digest>` (sorted
 * sets of ids, score 0, read by lex: ids sort by time), `…:leases` (sorted set: claimed episode →
 * the end of its claim's lease, ms), `…:digest` (hash: `through`, `body`), `…:kn:<id>`
 * (hash: a fragment's JSON and entity digest), `…:kidx` and `…:kent:<digest>`. Every change that two
 * replicas could race (append with its trim, the digest's compare-and-set, a claim, a reflection's
 * end, a sweep step) is one script; reads are single-slot pipelines over bounded windows.
 */
import { defineLuaScript, runScript, type RedisStore } from "../../../store/index.js";
import { checkInteger } from "../../../util/index.js";
import {
  checkDigest,
  checkEntity,
  checkEpisode,
  checkFragment,
  checkLimit,
  checkLease,
  checkPassId,
  decodeEpisode,
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_MAX_EPISODES,
  DEFAULT_RETENTION_MS,
  encodeEpisode,
  entityKey,
  idBound,
  invalid,
  isRecordId,
  MAX_CLAIM_LIMIT,
  MAX_FRAGMENTS,
  MAX_KNOWLEDGE_LIMIT,
  MAX_READ_LIMIT,
  MAX_SWEEP_LIMIT,
} from "./records.js";
import type { ActivityDigest, Episode, EpisodeStore, KnowledgeFragment } from "./types.js";

const lua = (file: string) => defineLuaScript("episodes", new URL(`./lua/${file}`, import.meta.url));
const APPEND = lua("append.lua");
const SET_DIGEST = lua("set-digest-1.lua");
const CLAIM = lua("claim-2.lua");
const COMPLETE = lua("complete.lua");
const SWEEP = lua("sweep-4.lua");

/** Records outlive their retention by this much, so the sweep (not the TTL) normally removes them, index entries and all. */
const TTL_GRACE_MS = 24 * 3_600_000;

export interface RedisEpisodeStoreOptions {
  readonly domain: string;
  /** Episodes kept; the oldest go past it. @defaultValue 100,000 */
  readonly maxEpisodes?: number;
  /** How long records are kept (their TTL, plus a day's grace for the sweep). @defaultValue 30 days */
  readonly retentionMs?: number;
  /** The time `completeReflection` stamps on `reflected_at`, and claims' leases run on. @defaultValue Date.now */
  readonly clock?: () => number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
}

interface Keys {
  readonly idx: string;
  readonly unreflected: string;
  readonly leases: string;
  readonly digest: string;
  readonly kidx: string;
  readonly ep: string;
  readonly ent: string;
  readonly kn: string;
  readonly kent: string;
}

interface RedisEpisodes {
  readonly client: RedisStore["client"];
  readonly domain: string;
  readonly keys: Keys;
  readonly maxEpisodes: number;
  readonly ttlMs: number;
  readonly clock: () => number;
}

export function createRedisEpisodeStore(
  store: RedisStore,
  { domain, maxEpisodes = DEFAULT_MAX_EPISODES, retentionMs = DEFAULT_RETENTION_MS, clock = Date.now, ownsStore = false }: RedisEpisodeStoreOptions,
): EpisodeStore {
  const tag = `episodes:${domain}`;
  const key = (part: string) => store.keys.tagged(tag, part);
  const state: RedisEpisodes = {
    client: store.client,
    domain,
    keys: {
      idx: key("idx"),
      unreflected: key("unreflected"),
      leases: key("leases"),
      digest: key("digest"),
      kidx: key("kidx"),
      ep: `${key("ep")}:`,
      ent: `${key("ent")}:`,
      kn: `${key("kn")}:`,
      kent: `${key("kent")}:`,
    },
    maxEpisodes: checkInteger("maxEpisodes", maxEpisodes, { min: 1 }),
    ttlMs: checkInteger("retentionMs", retentionMs, { min: 1 }) + TTL_GRACE_MS,
    clock,
  };
  const { keys } = state;
  return {
    kind: "redis",
    domain,
    append: (episode) => append(state, episode),
    recent: ({ limit, after, entity }) => {
      checkLimit("limit", limit, MAX_READ_LIMIT);
      if (after !== undefined && typeof after !== "string") throw invalid("after is an episode id");
      const index = entity === undefined ? keys.idx : `${keys.ent}${entityKey(checkEntity(entity))}`;
      return newest(state, index, limit, after).then((ids) => readEpisodes(state, ids));
    },
    recentIds: async ({ limit, after }) => {
      checkLimit("limit", limit, MAX_READ_LIMIT);
      if (after !== undefined && typeof after !== "string") throw invalid("after is an episode id");
      return newest(state, keys.idx, limit, after);
    },
    get: async (id) => (isRecordId(id) ? (await readEpisodes(state, [id]))[0] : undefined),
    digest: async () => {
      const body = await state.client.hget(keys.digest, "body");
      return body == null ? undefined : (JSON.parse(body) as ActivityDigest);
    },
    setDigest: async (digest, expectedThrough) => {
      const { text, through, episodes, updated_at } = checkDigest(digest);
      const body = JSON.stringify({ text, through, episodes, updated_at });
      const replaced = await runScript(state.client, SET_DIGEST, [keys.digest], [expectedThrough ?? "", through, body, state.ttlMs]);
      return replaced === 1;
    },
    claimForReflection: (passId, before, limit, leaseMs = DEFAULT_CLAIM_LEASE_MS) => claim(state, passId, before, limit, leaseMs),
    completeReflection: (passId, episodeIds, fragments) => complete(state, passId, episodeIds, fragments),
    knowledge: async ({ entity, limit }) => {
      checkLimit("limit", limit, MAX_KNOWLEDGE_LIMIT);
      const index = entity === undefined ? keys.kidx : `${keys.kent}${entityKey(checkEntity(entity))}`;
      const ids = await newest(state, index, limit, undefined);
      return (
        await hashFields(
          state,
          ids.map((id) => `${keys.kn}${id}`),
          ["body"],
        )
      ).flatMap(([body]) => (body == null ? [] : [JSON.parse(body) as KnowledgeFragment]));
    },
    sweep: async (before, limit) => {
      checkLimit("limit", limit, MAX_SWEEP_LIMIT);
      const deleted = await runScript(
        state.client,
        SWEEP,
        [keys.idx, keys.unreflected, keys.leases, keys.kidx],
        [idBound(before), limit, keys.ep, keys.ent, keys.kn, keys.kent],
      );
      return Number(deleted);
    },
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}

/** Newest first from a lexicographic id index, above `after` when given. */
function newest({ client }: RedisEpisodes, index: string, limit: number, after: string | undefined): Promise<string[]> {
  return client.zrange(index, "+", after === undefined ? "-" : `(${after}`, "BYLEX", "REV", "LIMIT", 0, limit);
}

/** One pipeline (one slot): these fields of each hash, nulls where a key is gone. */
async function hashFields({ client }: RedisEpisodes, keys: readonly string[], fields: readonly string[]): Promise<(string | null)[][]> {
  if (keys.length === 0) return [];
  const pipeline = client.pipeline();
  for (const key of keys) pipeline.hmget(key, ...fields);
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value as (string | null)[];
  });
}

/** The episodes of these ids, in order; ones whose key expired before the sweep reached them are left out. */
async function readEpisodes(state: RedisEpisodes, ids: readonly string[]): Promise<Episode[]> {
  const rows = await hashFields(
    state,
    ids.map((id) => `${state.keys.ep}${id}`),
    ["body", "reflected_at"],
  );
  return rows.flatMap(([body, reflectedAt]) => (body == null ? [] : [decodeEpisode(body, reflectedAt)]));
}

async function append(state: RedisEpisodes, episode: Episode): Promise<void> {
  checkEpisode(episode, state.domain);
  const { keys } = state;
  const digests = episode.entities.map(entityKey);
  await runScript(
    state.client,
    APPEND,
    [keys.idx, keys.unreflected, keys.leases, `${keys.ep}${episode.id}`, ...digests.map((d) => `${keys.ent}${d}`)],
    [episode.id, encodeEpisode(episode), digests.join(" "), episode.reflected_at ?? "", state.ttlMs, state.ttlMs, state.maxEpisodes, keys.ep, keys.ent],
  );
}

async function claim(state: RedisEpisodes, passId: string, before: string, limit: number, leaseMs: number): Promise<Episode[]> {
  checkPassId(passId);
  checkLimit("limit", limit, MAX_CLAIM_LIMIT);
  checkLease(leaseMs);
  const now = state.clock();
  const { keys } = state;
  const bodies = (await runScript(
    state.client,
    CLAIM,
    [keys.unreflected, keys.leases],
    [idBound(before), limit, passId, keys.ep, now, now + leaseMs, state.ttlMs],
  )) as string[];
  // Taken-over claims come first from the script: oldest first is by id.
  return bodies.map((body) => decodeEpisode(body, undefined)).sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function complete(state: RedisEpisodes, passId: string, episodeIds: readonly string[], fragments: readonly KnowledgeFragment[]): Promise<void> {
  checkPassId(passId);
  if (!Array.isArray(episodeIds) || episodeIds.length > MAX_CLAIM_LIMIT || !episodeIds.every(isRecordId))
    throw invalid(`a reflection completes at most ${MAX_CLAIM_LIMIT} episode ids`);
  if (!Array.isArray(fragments) || fragments.length > MAX_CLAIM_LIMIT) throw invalid(`at most ${MAX_CLAIM_LIMIT} fragments per reflection`);
  for (const fragment of fragments) checkFragment(fragment, state.domain);
  const { keys } = state;
  const digests = fragments.map((f) => entityKey(f.entity));
  await runScript(
    state.client,
    COMPLETE,
    [keys.leases, keys.kidx, ...digests.map((d) => `${keys.kent}${d}`)],
    [
      passId,
      new Date(state.clock()).toISOString(),
      keys.ep,
      keys.kn,
      keys.kent,
      state.ttlMs,
      state.ttlMs,
      MAX_FRAGMENTS,
      episodeIds.length,
      ...episodeIds,
      ...fragments.flatMap((f, i) => [
        f.id,
        JSON.stringify({
          id: f.id,
          domain: f.domain,
          entity: f.entity,
          text: f.text,
          episode_ids: f.episode_ids,
          pass_id: f.pass_id,
          created_at: f.created_at,
        }),
        digests[i]!,
        f.episode_ids.join(" "),
      ]),
    ],
  );
}
