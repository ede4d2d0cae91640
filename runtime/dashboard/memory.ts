/**
 * The Memory view's data, from the dashboard's own store namespace (the same environment as the
 * agents): users' facts and summaries (`FactStore`), their chat sessions, and per agent memory
 * domain (`MANIFOLD_AGENT_DOMAIN`) the episodes, activity digest and knowledge (`EpisodeStore`).
 * The domains are `MANIFOLD_VIEWER_MEMORY_DOMAINS`, else the registered agents' names (an agent's
 * domain defaults to its name).
 */
import type { Cluster, Redis } from "ioredis";
import type { ChatSessionStore } from "../chat/index.js";
import { ManifoldError } from "../errors/index.js";
import type { EpisodeStore, FactStore } from "../memory/index.js";
import { KEY_PREFIX, type Store } from "../store/index.js";
import { MAX_MEMORY_DOMAINS } from "./settings.js";

/** Users listed at most; a larger set says it was cut. */
export const MAX_USERS = 200;
/** SCAN rounds per listing: about this many times SCAN_COUNT keys looked at, whatever the Redis holds. */
const SCAN_ROUNDS = 50;
const SCAN_COUNT = 1000;
/** Episode stores kept open at once: domains come and go with the registry, the oldest opened is closed first. */
const MAX_OPEN_DOMAINS = MAX_MEMORY_DOMAINS * 2;

export interface UserList {
  readonly users: readonly string[];
  /** A listing stopped before it had seen everything, or at MAX_USERS. */
  readonly truncated: boolean;
  /** Why the list may be missing users (nothing in this process can list them). */
  readonly note?: string;
}

export interface DomainList {
  readonly domains: readonly string[];
  /** `configured`: MANIFOLD_VIEWER_MEMORY_DOMAINS; `registry`: the registered agents' names. */
  readonly source: "configured" | "registry";
}

export interface MemorySources {
  /** Chat sessions of the dashboard's namespace. */
  readonly sessions: ChatSessionStore;
  readonly facts: FactStore;
  domains(): Promise<DomainList>;
  /** The domain's episode store; NOT_FOUND for a domain the view does not offer. */
  episodes(domain: string): Promise<EpisodeStore>;
  /** Users with facts or chat sessions, sorted, at most MAX_USERS. */
  users(): Promise<UserList>;
  close(): Promise<void>;
}

/**
 * Why the embedded store lists no user. The embedded store is per process: a dashboard beside the
 * agents (as `npm start` runs it) reads theirs, and users appear once one has facts; a dashboard in a
 * process of its own has an empty store, which no user id would change.
 */
export const NO_USERS_YET =
  "no user memory yet: agents keep facts for identified callers (a verified bearer token's subject, or X-User-ID from a trusted gateway; never anonymous ones), and each user is listed here once a chat turn stores one";
export const OWN_EMBEDDED_STORE =
  "this dashboard has an embedded store of its own and no agent runs in its process, so it sees no agent's memory: start it beside the agents (npm start does) or give the dashboard and the agents the same REDIS_URL";

/** The users with a session index in the namespace (`…:sessions:index:<user>`), by a bounded SCAN of each master. */
async function scanSessionUsers(store: Store, limit: number): Promise<{ users: string[]; truncated: boolean }> {
  // The embedded session store keeps no user index another module can read: its users come from the facts.
  if (store.kind === "memory") return { users: [], truncated: false };
  const prefix = `${KEY_PREFIX}:${store.namespace}:sessions:index:`;
  // Glob characters in the prefix would widen the match; namespaces cannot hold any (checkKeyName).
  const pattern = `${prefix}*`;
  const users = new Set<string>();
  let truncated = false;
  const nodes = store.cluster ? (store.client as Cluster).nodes("master") : [store.client as Redis];
  for (const node of nodes) {
    let cursor = "0";
    let rounds = 0;
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
      for (const key of keys) if (users.size < limit) users.add(key.slice(prefix.length));
      cursor = next;
      rounds += 1;
    } while (cursor !== "0" && rounds < SCAN_ROUNDS && users.size < limit);
    if (cursor !== "0") truncated = true;
  }
  return { users: [...users], truncated };
}

export interface MemorySourcesOptions {
  /** The dashboard's store: sessions and the user index are read from its namespace. */
  readonly store: Store;
  readonly sessions: ChatSessionStore;
  readonly facts: FactStore;
  /** Opens one domain's episode store (closed with the dashboard, or when evicted). */
  readonly openEpisodes: (domain: string) => EpisodeStore;
  /** MANIFOLD_VIEWER_MEMORY_DOMAINS; empty: `agents()`. */
  readonly configured: readonly string[];
  /** The registered agents' names (an agent's domain defaults to its name). */
  readonly agents: () => Promise<readonly string[]>;
}

export function createMemorySources({ store, sessions, facts, openEpisodes, configured, agents }: MemorySourcesOptions): MemorySources {
  const open = new Map<string, EpisodeStore>();

  const domains = async (): Promise<DomainList> => {
    if (configured.length > 0) return { domains: configured, source: "configured" };
    const names = [...new Set(await agents())].sort().slice(0, MAX_MEMORY_DOMAINS);
    return { domains: names, source: "registry" };
  };

  return {
    sessions,
    facts,
    domains,
    async episodes(domain) {
      const offered = (await domains()).domains;
      if (!offered.includes(domain)) {
        const listed = offered.length === 0 ? "none (no agent is registered; set MANIFOLD_VIEWER_MEMORY_DOMAINS)" : offered.join(", ");
        throw new ManifoldError("NOT_FOUND", `no memory domain ${JSON.stringify(domain.slice(0, 80))}; offered: ${listed}`);
      }
      const held = open.get(domain);
      if (held !== undefined) return held;
      // Opened and set before any await: two requests for a new domain share one store, none is left unclosed.
      const episodes = openEpisodes(domain);
      open.set(domain, episodes);
      if (open.size > MAX_OPEN_DOMAINS) {
        const [oldest, evicted] = open.entries().next().value!;
        open.delete(oldest);
        await evicted.close();
      }
      return episodes;
    },
    async users() {
      const [withFacts, withSessions] = await Promise.all([facts.users(MAX_USERS), scanSessionUsers(store, MAX_USERS)]);
      const all = [...new Set([...withFacts.users, ...withSessions.users])].sort();
      const truncated = withFacts.truncated || withSessions.truncated || all.length > MAX_USERS;
      const users = all.slice(0, MAX_USERS);
      if (users.length > 0 || store.kind !== "memory") return { users, truncated };
      // The embedded registry is per process too: agents registered here share this store.
      return { users, truncated, note: (await agents()).length > 0 ? NO_USERS_YET : OWN_EMBEDDED_STORE };
    },
    async close() {
      for (const episodes of open.values()) await episodes.close();
      open.clear();
    },
  };
}
