import { createRequire } from "node:module";
import type { Redis } from "ioredis";
import { describeStore, resolveStoreConfig, type ClusterConfig, type RedisConfig, type StoreConfig } from "./config.js";
import { createKeyBuilder, type KeyBuilder } from "./keys.js";
import { readLuaScripts, type RedisClient } from "./scripts.js";

export type Log = (message: string) => void;

interface StoreBase {
  readonly namespace: string;
  readonly keys: KeyBuilder;
  /** For logs and errors: the URL with the password as `***`. */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * The embedded store. Its data is process-wide, like a Redis server's: two stores of one namespace
 * see the same slots, so every component of an `npm start` process shares one registry.
 */
export interface MemoryStore extends StoreBase {
  readonly kind: "memory";
  /** The module's state for this namespace, created on first use. */
  slot<T>(module: string, create: () => T): T;
}

export interface RedisStore extends StoreBase {
  readonly kind: "redis";
  readonly cluster: boolean;
  /** Shared by every module for short commands; bounded by `commandTimeoutMs`. */
  readonly client: RedisClient;
  /**
   * A connection of its own, for blocking commands (BLPOP, XREAD BLOCK) that would stall every other
   * command on the shared one; no command timeout. Closed by `close()` if the caller has not.
   */
  duplicate(): RedisClient;
  /** True once connected; false after `waitMs` without a connection. Never rejects. */
  whenReady(waitMs: number): Promise<boolean>;
  /** Called on every (re)connection; after a Redis restart the data may be gone. Returns an unsubscribe. */
  onReady(listener: () => void): () => void;
  /** Removes the password from text bound for a log or an error. */
  redact(text: string): string;
}

export type Store = MemoryStore | RedisStore;

export interface StoreOptions {
  /** @defaultValue resolved from `env` */
  readonly config?: StoreConfig;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** @defaultValue console.error */
  readonly log?: Log;
  /** A command on the shared connection fails after this long. @defaultValue 5000 */
  readonly commandTimeoutMs?: number;
  /** Longest pause between reconnection attempts. @defaultValue 2000 */
  readonly maxReconnectDelayMs?: number;
  /**
   * Let the process exit while the connection is open: for the process-wide default registry, whose
   * connection nobody closes (servers and workers keep the process alive, not the store).
   * @defaultValue false
   */
  readonly unref?: boolean;
}

const memoryData = new Map<string, Map<string, unknown>>();
let memoryAnnounced = false;

function createMemoryStore(namespace: string, log: Log): MemoryStore {
  if (!memoryAnnounced) {
    memoryAnnounced = true;
    log("manifold: no Redis configured (REDIS_URL / MANIFOLD_REDIS_*); using the embedded in-memory store");
  }
  let slots = memoryData.get(namespace);
  if (slots === undefined) memoryData.set(namespace, (slots = new Map()));
  const own = slots;
  return {
    kind: "memory",
    namespace,
    keys: createKeyBuilder(namespace),
    description: describeStore({ kind: "memory", namespace }),
    slot: <T>(module: string, create: () => T): T => {
      if (!own.has(module)) own.set(module, create());
      return own.get(module) as T;
    },
    close: async () => undefined,
  };
}

/**
 * ioredis (~50 modules) loads when a Redis store is created, not with every process that imports the
 * store: without a Redis URL nothing needs it (start-up time). It is CommonJS, so a synchronous require.
 */
const require = createRequire(import.meta.url);

function ioredis(): typeof import("ioredis") {
  return require("ioredis") as typeof import("ioredis");
}

/** Exponential from 50 ms, capped, with jitter so a fleet does not reconnect in lockstep. */
function backoff(maxMs: number): (times: number) => number {
  return (times) => Math.min(50 * 2 ** Math.min(times, 16), maxMs) * (0.8 + Math.random() * 0.4);
}

/**
 * `blocking` is for a duplicate() connection: no command timeout, and commands wait through any
 * number of reconnections. The shared connection instead fails a command after two failed
 * reconnection attempts (ioredis's default is 20, some seconds), so callers learn of an outage in
 * well under a second and can fall back (catalog cache) or retry (heartbeat).
 */
function connect(config: RedisConfig | ClusterConfig, commandTimeoutMs: number | undefined, maxDelayMs: number): RedisClient {
  const blocking = commandTimeoutMs === undefined;
  const shared = {
    maxRetriesPerRequest: blocking ? null : 2,
    ...(config.username === undefined ? {} : { username: config.username }),
    ...(config.password === undefined ? {} : { password: config.password }),
    ...(config.tls ? { tls: {} } : {}),
    ...(commandTimeoutMs === undefined ? {} : { commandTimeout: commandTimeoutMs }),
    connectTimeout: 5_000,
    connectionName: "manifold",
  };
  const { Cluster, Redis } = ioredis();
  if (config.kind === "cluster") {
    // Nodes are dialled at the addresses they announce: right on one network, the only safe default.
    return new Cluster(
      config.nodes.map(({ host, port }) => ({ host, port })),
      { clusterRetryStrategy: backoff(maxDelayMs), redisOptions: shared },
    );
  }
  return new Redis({ ...shared, host: config.endpoint.host, port: config.endpoint.port, db: config.db, retryStrategy: backoff(maxDelayMs) });
}

/** Sockets come and go with reconnections (and cluster nodes); each one is unref'd as it connects. */
function unrefSockets(client: RedisClient): void {
  const unrefOne = (redis: Redis): void => {
    redis.on("connect", () => (redis.stream as { unref?: () => void } | undefined)?.unref?.());
  };
  if (client instanceof ioredis().Cluster) client.on("+node", unrefOne);
  else unrefOne(client);
}

/**
 * A Redis that evicts keys under memory pressure silently drops queued tasks, schedules and sessions.
 * Managed services often refuse CONFIG: then nothing is said (the README names the setting).
 */
async function warnIfEvicting(client: RedisClient, description: string, log: Log): Promise<void> {
  try {
    const reply = (await client.config("GET", "maxmemory-policy")) as unknown as string[];
    const policy = reply[1];
    if (policy !== undefined && policy !== "noeviction") {
      log(
        `manifold: Redis at ${description} evicts keys under memory pressure (maxmemory-policy ${policy}); queued tasks, schedules and chat sessions can be lost: set maxmemory-policy noeviction`,
      );
    }
  } catch {
    // CONFIG disabled (managed Redis) or the connection dropped: nothing to say.
  }
}

/** The Redis addresses this process has named in its log already. */
const announced = new Set<string>();

/** Each feature opens its own store: the process says where its Redis is once, not once per feature. */
function announce(log: Log, where: string): void {
  if (announced.has(where)) return;
  announced.add(where);
  log(`manifold: using Redis at ${where}`);
}

function createRedisStore(config: RedisConfig | ClusterConfig, log: Log, commandTimeoutMs: number, maxDelayMs: number, unref: boolean): RedisStore {
  const description = describeStore(config);
  const secret = config.password;
  const redact = (text: string): string => (secret === undefined || secret === "" ? text : text.split(secret).join("***"));
  const client = connect(config, commandTimeoutMs, maxDelayMs);
  if (unref) unrefSockets(client);
  const duplicates = new Set<RedisClient>();
  const readyListeners = new Set<() => void>();
  let nextReady: Promise<true> | undefined;

  // One line per outage, not per reconnection attempt; also keeps ioredis from printing
  // "Unhandled error event" for every attempt.
  let down = false;
  const onError = (error: Error): void => {
    if (down) return;
    down = true;
    log(`manifold: Redis at ${description} unreachable (${redact(error.message)}); retrying`);
  };
  client.on("error", onError);
  let policyChecked = false;
  client.on("ready", () => {
    if (down) log(`manifold: Redis at ${description} reachable again`);
    down = false;
    for (const listener of readyListeners) listener();
    if (!policyChecked) {
      policyChecked = true;
      void warnIfEvicting(client, description, log);
    }
  });
  announce(log, `${description} (namespace ${config.namespace})`);

  return {
    kind: "redis",
    cluster: config.kind === "cluster",
    namespace: config.namespace,
    keys: createKeyBuilder(config.namespace),
    description,
    client,
    redact,
    duplicate: () => {
      const copy = connect(config, undefined, maxDelayMs);
      if (unref) unrefSockets(copy);
      copy.on("error", () => undefined); // the shared connection already reports outages
      copy.on("end", () => duplicates.delete(copy));
      duplicates.add(copy);
      return copy;
    },
    whenReady: (waitMs) => {
      if (client.status === "ready") return Promise.resolve(true);
      // One listener however many callers wait (a burst of calls at start-up would pile them up).
      nextReady ??= new Promise<true>((resolve) =>
        client.once("ready", () => {
          nextReady = undefined;
          resolve(true);
        }),
      );
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), waitMs);
        timer.unref();
      });
      return Promise.race([nextReady, timeout]).finally(() => clearTimeout(timer));
    },
    onReady: (listener) => {
      readyListeners.add(listener);
      return () => readyListeners.delete(listener);
    },
    close: async () => {
      readyListeners.clear();
      await Promise.all(
        [client, ...duplicates].map(async (c) => {
          // quit() waits for replies in flight, but on a connection that is down it would wait for a
          // reconnection that may never come.
          if (c.status === "ready") await c.quit().catch(() => c.disconnect());
          else c.disconnect();
        }),
      );
    },
  };
}

/**
 * The store a module should use: Redis (or Redis Cluster) when one is configured, else the embedded
 * in-memory store. See `resolveStoreConfig` for the environment it reads.
 */
export function createStore({
  config,
  env = process.env,
  log = (message) => console.error(message),
  commandTimeoutMs = 5_000,
  maxReconnectDelayMs = 2_000,
  unref = false,
}: StoreOptions = {}): Store {
  const resolved = config ?? resolveStoreConfig(env);
  if (resolved.kind === "memory") return createMemoryStore(resolved.namespace, log);
  // The Lua scripts are read on first use; with Redis configured, a missing one must fail here, at start.
  readLuaScripts();
  return createRedisStore(resolved, log, commandTimeoutMs, maxReconnectDelayMs, unref);
}
