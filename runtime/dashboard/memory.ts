/**
 * The Memory view's data: chat sessions per user, for each configured domain. A domain is a store
 * namespace (`MANIFOLD_REDIS_NAMESPACE` of the agents whose memory it is), so one dashboard can read
 * the sessions of several deployments sharing a Redis.
 */
import type { Cluster, Redis } from "ioredis";
import { createSessionStore, type ChatSessionStore } from "../chat/index.js";
import { ManifoldError } from "../errors/index.js";
import { createStore, KEY_PREFIX, NAMESPACE_ENV, type Store } from "../store/index.js";

/** Users listed per domain at most; a larger set says it was cut. */
export const MAX_USERS = 200;
/** SCAN rounds per listing: about this many times SCAN_COUNT keys looked at, whatever the Redis holds. */
const SCAN_ROUNDS = 50;
const SCAN_COUNT = 1000;

export interface UserList {
  readonly users: readonly string[];
  /** The listing stopped before it had seen every key, or at MAX_USERS. */
  readonly truncated: boolean;
  /** Why there is no listing at all (the embedded store cannot be searched from another process). */
  readonly note?: string;
}

export interface MemoryDomain {
  readonly name: string;
  readonly sessions: ChatSessionStore;
  users(): Promise<UserList>;
}

export interface MemoryDomains {
  readonly names: readonly string[];
  /** NOT_FOUND for a domain that is not configured. */
  get(name: string): MemoryDomain;
  close(): Promise<void>;
}

/** The users with a session index in the namespace (`…:sessions:index:<user>`), by a bounded SCAN of each master. */
async function scanUsers(store: Store): Promise<UserList> {
  if (store.kind === "memory") {
    return { users: [], truncated: false, note: "the embedded store holds no user index this process can search: enter a user id" };
  }
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
      for (const key of keys) if (users.size < MAX_USERS) users.add(key.slice(prefix.length));
      cursor = next;
      rounds += 1;
    } while (cursor !== "0" && rounds < SCAN_ROUNDS && users.size < MAX_USERS);
    if (cursor !== "0") truncated = true;
  }
  return { users: [...users].sort(), truncated };
}

export interface MemoryDomainsOptions {
  readonly domains: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A store already open for one namespace, used for that domain instead of a new connection. */
  readonly store?: Store;
}

/** Session stores per domain, each opened on first use and closed with the dashboard. */
export function createMemoryDomains({ domains, env, store: given }: MemoryDomainsOptions): MemoryDomains {
  const open = new Map<string, { store: Store; owned: boolean; domain: MemoryDomain }>();
  const names = [...domains];
  return {
    names,
    get(name) {
      if (!names.includes(name)) throw new ManifoldError("NOT_FOUND", `no memory domain ${JSON.stringify(name.slice(0, 80))}; configured: ${names.join(", ")}`);
      let entry = open.get(name);
      if (entry === undefined) {
        const shared = given !== undefined && given.namespace === name;
        const store = shared ? given : createStore({ env: { ...env, [NAMESPACE_ENV]: name } });
        const sessions = createSessionStore({ store });
        entry = { store, owned: !shared, domain: { name, sessions, users: () => scanUsers(store) } };
        open.set(name, entry);
      }
      return entry.domain;
    },
    async close() {
      for (const { store, owned, domain } of open.values()) {
        await domain.sessions.close();
        if (owned) await store.close();
      }
      open.clear();
    },
  };
}
