/**
 * Which store a process uses, from the environment. Redis is chosen only by an explicit setting;
 * with none, the embedded in-memory store. Bad values fail at start-up naming the variable, never
 * fall back silently (a typo in MANIFOLD_REDIS_PORT must not quietly give every replica its own
 * private in-memory registry).
 */
import { envFlag } from "../util/index.js";
import { resolveNamespace } from "./keys.js";

export interface RedisEndpoint {
  readonly host: string;
  readonly port: number;
}

interface Common {
  readonly namespace: string;
}

export interface MemoryConfig extends Common {
  readonly kind: "memory";
}

export interface RedisConfig extends Common {
  readonly kind: "redis";
  readonly endpoint: RedisEndpoint;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

export interface ClusterConfig extends Common {
  readonly kind: "cluster";
  readonly nodes: readonly RedisEndpoint[];
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

export type StoreConfig = MemoryConfig | RedisConfig | ClusterConfig;

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

function parseInteger(value: string, source: string, min: number, max: number): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max) throw new RangeError(`${source} must be an integer from ${min} to ${max}`);
  return n;
}

/** `host:port`, `[v6]:port`; the port is required, as a cluster node has no default one. */
function parseNode(text: string): RedisEndpoint {
  const match = /^(\[[^\]]+\]|[^:\s]+):(\d+)$/.exec(text.trim());
  if (match === null) throw new RangeError(`MANIFOLD_REDIS_CLUSTER_NODES must be a comma-separated list of host:port (got an entry "${text.trim()}")`);
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port: parseInteger(match[2]!, "MANIFOLD_REDIS_CLUSTER_NODES port", 1, 65535) };
}

/** The message must not quote the URL: it may hold a password. */
function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError("REDIS_URL is not a valid URL (expected redis://[user:password@]host[:port][/db])");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw new RangeError("REDIS_URL must start with redis:// or rediss://");
  if (url.hostname === "") throw new RangeError("REDIS_URL has no host");
  return url;
}

function credentials(username: string | undefined, password: string | undefined): { username?: string; password?: string } {
  return { ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }) };
}

const STRUCTURED = ["MANIFOLD_REDIS_HOST", "MANIFOLD_REDIS_PORT", "MANIFOLD_REDIS_DB", "MANIFOLD_REDIS_TLS"] as const;

/**
 * `MANIFOLD_REDIS_CLUSTER_NODES` (a cluster), else `REDIS_URL`, else `MANIFOLD_REDIS_HOST` (+ `_PORT`,
 * `_DB`, `_USERNAME`, `_PASSWORD`, `_TLS`), else memory. `MANIFOLD_REDIS_PASSWORD` may accompany any of
 * them, to keep the secret out of a URL. `MANIFOLD_REDIS_NAMESPACE` (default `default`) always applies.
 */
export function resolveStoreConfig(env: Env = process.env): StoreConfig {
  const namespace = resolveNamespace(undefined, env);
  const username = read(env, "MANIFOLD_REDIS_USERNAME");
  const password = read(env, "MANIFOLD_REDIS_PASSWORD");
  const tls = envFlag(env, "MANIFOLD_REDIS_TLS") ?? false;

  const clusterNodes = read(env, "MANIFOLD_REDIS_CLUSTER_NODES");
  const url = read(env, "REDIS_URL");
  const structured = STRUCTURED.filter((name) => read(env, name) !== undefined);

  if (clusterNodes !== undefined) {
    if (url !== undefined) throw new RangeError("set either MANIFOLD_REDIS_CLUSTER_NODES or REDIS_URL, not both");
    const stray = structured.filter((name) => name !== "MANIFOLD_REDIS_TLS");
    if (stray.length > 0)
      throw new RangeError(
        `${stray.join(", ")} cannot be combined with MANIFOLD_REDIS_CLUSTER_NODES (a cluster has no database number; list its nodes instead)`,
      );
    const nodes = clusterNodes
      .split(",")
      .filter((part) => part.trim() !== "")
      .map(parseNode);
    if (nodes.length === 0) throw new RangeError("MANIFOLD_REDIS_CLUSTER_NODES lists no node");
    return { kind: "cluster", namespace, nodes, tls, ...credentials(username, password) };
  }

  if (url !== undefined) {
    if (structured.length > 0) throw new RangeError(`set either REDIS_URL or ${structured.join(", ")}, not both`);
    const parsed = parseUrl(url);
    const urlPassword = parsed.password === "" ? undefined : decodeURIComponent(parsed.password);
    if (urlPassword !== undefined && password !== undefined)
      throw new RangeError("REDIS_URL holds a password and MANIFOLD_REDIS_PASSWORD is set too; keep one");
    const urlUser = parsed.username === "" ? undefined : decodeURIComponent(parsed.username);
    const path = parsed.pathname.replace(/^\//, "");
    return {
      kind: "redis",
      namespace,
      endpoint: { host: parsed.hostname.replace(/^\[|\]$/g, ""), port: parsed.port === "" ? 6379 : Number(parsed.port) },
      db: path === "" ? 0 : parseInteger(path, "the database number in REDIS_URL", 0, 10_000),
      tls: tls || parsed.protocol === "rediss:",
      ...credentials(urlUser ?? username, urlPassword ?? password),
    };
  }

  const host = read(env, "MANIFOLD_REDIS_HOST");
  if (host === undefined) {
    const orphan = [
      ...structured,
      ...(password === undefined ? [] : ["MANIFOLD_REDIS_PASSWORD"]),
      ...(username === undefined ? [] : ["MANIFOLD_REDIS_USERNAME"]),
    ];
    if (orphan.length > 0) throw new RangeError(`${orphan.join(", ")} set but MANIFOLD_REDIS_HOST is not`);
    return { kind: "memory", namespace };
  }
  const port = read(env, "MANIFOLD_REDIS_PORT");
  const db = read(env, "MANIFOLD_REDIS_DB");
  return {
    kind: "redis",
    namespace,
    endpoint: { host, port: port === undefined ? 6379 : parseInteger(port, "MANIFOLD_REDIS_PORT", 1, 65535) },
    db: db === undefined ? 0 : parseInteger(db, "MANIFOLD_REDIS_DB", 0, 10_000),
    tls,
    ...credentials(username, password),
  };
}

function hostPort({ host, port }: RedisEndpoint): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** What logs and errors may say about the store: never the password. */
export function describeStore(config: StoreConfig): string {
  if (config.kind === "memory") return "the embedded in-memory store";
  const scheme = config.tls ? "rediss" : "redis";
  const auth = config.password === undefined ? (config.username === undefined ? "" : `${config.username}@`) : `${config.username ?? ""}:***@`;
  if (config.kind === "cluster") return `Redis Cluster ${config.nodes.map((n) => `${scheme}://${auth}${hostPort(n)}`).join(",")}`;
  return `${scheme}://${auth}${hostPort(config.endpoint)}/${config.db}`;
}
