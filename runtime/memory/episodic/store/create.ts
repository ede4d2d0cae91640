import { checkKeyName, createStore, type Store } from "../../../store/index.js";
import { resolveEpisodicSettings } from "../settings.js";
import { createMemoryEpisodeStore } from "./memory-store.js";
import { createRedisEpisodeStore } from "./redis-store.js";
import type { EpisodeStore } from "./types.js";

export interface EpisodeStoreOptions {
  /** The agent domain (`MANIFOLD_AGENT_DOMAIN`, else the manifest's, else the agent's name): a key segment. */
  readonly domain: string;
  /** @defaultValue `createStore({ env })`: Redis when configured, else memory (owned, and closed, by the episode store) */
  readonly store?: Store;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @defaultValue `MANIFOLD_EPISODES_MAX`, else 100,000 */
  readonly maxEpisodes?: number;
  /** @defaultValue `MANIFOLD_MEMORY_RETENTION`, else 30 days */
  readonly retentionMs?: number;
  /** Stamps `reflected_at`. @defaultValue Date.now */
  readonly clock?: () => number;
}

/**
 * The episode store of a domain: the Redis adapter on a Redis store, else the memory adapter, held
 * in the memory store's namespace so every agent (and dashboard) of one process reading a domain
 * shares it, as replicas share a Redis.
 */
export function createEpisodeStore({ domain, store: given, env = process.env, maxEpisodes, retentionMs, clock }: EpisodeStoreOptions): EpisodeStore {
  checkKeyName("domain", domain);
  const settings = maxEpisodes === undefined || retentionMs === undefined ? resolveEpisodicSettings(env) : undefined;
  const max = maxEpisodes ?? settings!.maxEpisodes;
  const store = given ?? createStore({ env });
  if (store.kind === "memory") {
    return store.slot(`episodes:${domain}:${max}`, () => createMemoryEpisodeStore({ domain, maxEpisodes: max, ...(clock && { clock }) }));
  }
  return createRedisEpisodeStore(store, {
    domain,
    maxEpisodes: max,
    retentionMs: retentionMs ?? settings!.retentionMs,
    ...(clock && { clock }),
    ownsStore: given === undefined,
  });
}
