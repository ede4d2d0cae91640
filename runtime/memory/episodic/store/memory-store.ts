/**
 * The embedded episode store: one domain's episodes, digest and knowledge in this process's heap,
 * bounded by count and bytes (the oldest episodes go first). Every method runs without an await
 * between its read and its write, so calls interleaving in one process see each change whole: a
 * digest compare-and-set or a reflection claim is atomic here as a Lua script is on Redis.
 */
import { checkInteger } from "../../../util/index.js";
import {
  checkDigest,
  checkEntity,
  checkEpisode,
  checkFragment,
  checkLimit,
  checkLease,
  checkPassId,
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_MAX_EPISODES,
  encodeEpisode,
  idBound,
  invalid,
  isRecordId,
  MAX_CLAIM_LIMIT,
  MAX_FRAGMENTS,
  MAX_KNOWLEDGE_LIMIT,
  MAX_READ_LIMIT,
  MAX_SWEEP_LIMIT,
} from "./records.js";
import { createSortedIds, type SortedIds } from "./sorted-ids.js";
import type { ActivityDigest, Episode, EpisodeStore, KnowledgeFragment } from "./types.js";

export interface MemoryEpisodeStoreOptions {
  readonly domain: string;
  /** Episodes kept; the oldest go past it. @defaultValue 100,000 */
  readonly maxEpisodes?: number;
  /** Episodes held in this process's heap (as JSON, about); the oldest go past it. @defaultValue 64 MiB */
  readonly maxBytes?: number;
  /** The time `completeReflection` stamps on `reflected_at`, and claims' leases run on. @defaultValue Date.now */
  readonly clock?: () => number;
}

interface Held {
  readonly episode: Episode;
  readonly bytes: number;
  reflectedAt: string | undefined;
}

/** A reflection pass's claim on an episode, until its lease ends (ms). */
interface Claim {
  readonly passId: string;
  readonly until: number;
}

interface Domain {
  readonly name: string;
  readonly maxEpisodes: number;
  readonly maxBytes: number;
  readonly clock: () => number;
  readonly episodes: Map<string, Held>;
  readonly all: SortedIds;
  readonly byEntity: Map<string, SortedIds>;
  readonly unreflected: SortedIds;
  /** Episode id → the pass that claimed it, while it has not completed. */
  readonly claims: Map<string, Claim>;
  readonly fragments: Map<string, KnowledgeFragment>;
  readonly allFragments: SortedIds;
  readonly fragmentsByEntity: Map<string, SortedIds>;
  digest: ActivityDigest | undefined;
  bytes: number;
}

export function createMemoryEpisodeStore({
  domain,
  maxEpisodes = DEFAULT_MAX_EPISODES,
  maxBytes = 64 * 1024 * 1024,
  clock = Date.now,
}: MemoryEpisodeStoreOptions): EpisodeStore {
  const state: Domain = {
    name: domain,
    maxEpisodes: checkInteger("maxEpisodes", maxEpisodes, { min: 1 }),
    maxBytes: checkInteger("maxBytes", maxBytes, { min: 1 }),
    clock,
    episodes: new Map(),
    all: createSortedIds(),
    byEntity: new Map(),
    unreflected: createSortedIds(),
    claims: new Map(),
    fragments: new Map(),
    allFragments: createSortedIds(),
    fragmentsByEntity: new Map(),
    digest: undefined,
    bytes: 0,
  };
  return {
    kind: "memory",
    domain,
    append: async (episode) => append(state, episode),
    recent: async ({ limit, after, entity }) => {
      checkLimit("limit", limit, MAX_READ_LIMIT);
      if (after !== undefined && typeof after !== "string") throw invalid("after is an episode id");
      const index = entity === undefined ? state.all : state.byEntity.get(checkEntity(entity));
      return (index?.newest(limit, after) ?? []).map((id) => view(state.episodes.get(id)!));
    },
    recentIds: async ({ limit, after }) => {
      checkLimit("limit", limit, MAX_READ_LIMIT);
      if (after !== undefined && typeof after !== "string") throw invalid("after is an episode id");
      return state.all.newest(limit, after);
    },
    get: async (id) => {
      const held = isRecordId(id) ? state.episodes.get(id) : undefined;
      return held === undefined ? undefined : view(held);
    },
    digest: async () => state.digest,
    setDigest: async (digest, expectedThrough) => {
      checkDigest(digest);
      if (state.digest?.through !== expectedThrough) return false;
      state.digest = { text: digest.text, through: digest.through, episodes: digest.episodes, updated_at: digest.updated_at };
      return true;
    },
    claimForReflection: async (passId, before, limit, leaseMs = DEFAULT_CLAIM_LEASE_MS) => claim(state, passId, before, limit, leaseMs),
    completeReflection: async (passId, episodeIds, fragments) => complete(state, passId, episodeIds, fragments),
    knowledge: async ({ entity, limit }) => {
      checkLimit("limit", limit, MAX_KNOWLEDGE_LIMIT);
      const index = entity === undefined ? state.allFragments : state.fragmentsByEntity.get(checkEntity(entity));
      return (index?.newest(limit) ?? []).map((id) => state.fragments.get(id)!);
    },
    sweep: async (before, limit) => {
      checkLimit("limit", limit, MAX_SWEEP_LIMIT);
      const bound = idBound(before);
      const episodes = state.all.oldest(limit, bound);
      for (const id of episodes) drop(state, id);
      const fragments = state.allFragments.oldest(limit - episodes.length, bound);
      for (const id of fragments) dropFragment(state, id);
      return episodes.length + fragments.length;
    },
    close: async () => undefined,
  };
}

const view = (held: Held): Episode => (held.reflectedAt === undefined ? held.episode : { ...held.episode, reflected_at: held.reflectedAt });

function indexOf(map: Map<string, SortedIds>, key: string): SortedIds {
  let index = map.get(key);
  if (index === undefined) map.set(key, (index = createSortedIds()));
  return index;
}

function unindex(map: Map<string, SortedIds>, key: string, id: string): void {
  const index = map.get(key);
  if (index === undefined) return;
  index.delete(id);
  if (index.size === 0) map.delete(key);
}

function append(state: Domain, episode: Episode): void {
  checkEpisode(episode, state.name);
  if (state.episodes.has(episode.id)) return;
  const body = encodeEpisode(episode);
  const held: Held = { episode: JSON.parse(body) as Episode, bytes: body.length * 2, reflectedAt: episode.reflected_at };
  state.episodes.set(episode.id, held);
  state.bytes += held.bytes;
  state.all.add(episode.id);
  for (const entity of episode.entities) indexOf(state.byEntity, entity).add(episode.id);
  if (held.reflectedAt === undefined) state.unreflected.add(episode.id);
  while (state.all.size > state.maxEpisodes || (state.bytes > state.maxBytes && state.all.size > 1)) {
    const [oldest] = state.all.oldest(1, "~");
    if (oldest === undefined) break;
    drop(state, oldest);
  }
}

function drop(state: Domain, id: string): void {
  const held = state.episodes.get(id);
  if (held === undefined) return;
  state.episodes.delete(id);
  state.bytes -= held.bytes;
  state.all.delete(id);
  state.unreflected.delete(id);
  state.claims.delete(id);
  for (const entity of held.episode.entities) unindex(state.byEntity, entity, id);
}

function dropFragment(state: Domain, id: string): void {
  const fragment = state.fragments.get(id);
  if (fragment === undefined) return;
  state.fragments.delete(id);
  state.allFragments.delete(id);
  unindex(state.fragmentsByEntity, fragment.entity, id);
}

function claim(state: Domain, passId: string, before: string, limit: number, leaseMs: number): Episode[] {
  checkPassId(passId);
  checkLimit("limit", limit, MAX_CLAIM_LIMIT);
  checkLease(leaseMs);
  const bound = idBound(before);
  const now = state.clock();
  // Claims live only until their pass completes, so this walk is over the passes under way (or dead).
  const expired: string[] = [];
  for (const [id, held] of state.claims) if (held.until <= now && expired.length < limit) expired.push(id);
  const fresh = state.unreflected.oldest(limit - expired.length, bound);
  for (const id of fresh) state.unreflected.delete(id);
  const ids = [...expired, ...fresh].sort();
  for (const id of ids) state.claims.set(id, { passId, until: now + leaseMs });
  return ids.map((id) => view(state.episodes.get(id)!));
}

function complete(state: Domain, passId: string, episodeIds: readonly string[], fragments: readonly KnowledgeFragment[]): void {
  checkPassId(passId);
  if (!Array.isArray(episodeIds) || episodeIds.length > MAX_CLAIM_LIMIT) throw invalid(`at most ${MAX_CLAIM_LIMIT} episodes per reflection`);
  if (!Array.isArray(fragments) || fragments.length > MAX_CLAIM_LIMIT) throw invalid(`at most ${MAX_CLAIM_LIMIT} fragments per reflection`);
  // Everything is checked before anything changes: the step is whole or nothing.
  for (const fragment of fragments) checkFragment(fragment, state.name);
  const at = new Date(state.clock()).toISOString();
  const own = new Set<string>();
  for (const id of episodeIds) {
    // Only this pass's own claims: a pass that lost its episodes (swept, or taken over after its lease) marks nothing of them.
    if (state.claims.get(id)?.passId !== passId) continue;
    state.claims.delete(id);
    own.add(id);
    const held = state.episodes.get(id);
    if (held !== undefined) held.reflectedAt = at;
  }
  for (const fragment of fragments) {
    // A fragment of episodes another pass now holds would be that pass's knowledge twice.
    if (state.fragments.has(fragment.id) || !fragment.episode_ids.every((id: string) => own.has(id))) continue;
    state.fragments.set(fragment.id, { ...fragment, episode_ids: [...fragment.episode_ids] });
    state.allFragments.add(fragment.id);
    indexOf(state.fragmentsByEntity, fragment.entity).add(fragment.id);
  }
  while (state.allFragments.size > MAX_FRAGMENTS) {
    const [oldest] = state.allFragments.oldest(1, "~");
    if (oldest === undefined) break;
    dropFragment(state, oldest);
  }
}
