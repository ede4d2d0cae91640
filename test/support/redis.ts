/**
 * A real `redis-server` for a suite, through one import: a free loopback port, no persistence, a
 * temporary folder, and control over its life (stop, restart on the same port with its data gone).
 * The cluster variant starts three masters and joins them with `redis-cli --cluster create`. Every
 * process is killed when the suite's process exits, even on a crash.
 *
 *     const redis = await startRedisServer();          // { port, url, stop, start, restart, cli, close }
 *     const cluster = await startRedisCluster();       // { nodes, nodesEnv, close }
 *
 * A missing `redis-server` fails the suite with a loud message, locally and in CI alike (DESIGN §7:
 * nothing is skipped for lack of a part).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.js";
import { eventually } from "./wait.js";

const children = new Set<ChildProcess>();
const folders = new Set<string>();

process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Throws (with a banner on stderr) when `redis-server` or `redis-cli` is not installed. */
function requireRedis(): void {
  const missing = ["redis-server", "redis-cli"].filter((bin) => spawnSync(bin, ["--version"], { stdio: "ignore" }).error !== undefined);
  if (missing.length === 0) return;
  const where = process.env["CI"] === "true" ? "CI" : "this machine";
  const message = `${missing.join(" and ")} not found on ${where}: the Redis suites need a real Redis (apt-get install redis-server). They fail rather than skip.`;
  console.error(`\n${"!".repeat(100)}\n!! ${message}\n${"!".repeat(100)}\n`);
  throw new Error(message);
}

/** Sends one inline command and resolves with the raw reply (enough for PING and CLUSTER INFO). */
function rawCommand(port: number, command: string, timeoutMs = 1_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no reply to ${command} on port ${port}`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(`${command}\r\n`));
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      const complete = bulk === null ? reply.endsWith("\r\n") : reply.length >= bulk[0].length + Number(bulk[1]) + 2;
      if (complete) {
        clearTimeout(timer);
        socket.end();
        resolve(reply);
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Whether `command`'s reply matches; a refused connection counts as not yet (for `eventually`). */
function replies(port: number, command: string, pattern: RegExp): Promise<boolean> {
  return rawCommand(port, command).then(
    (reply) => pattern.test(reply),
    () => false,
  );
}

/** A throwaway redis-server's flags: loopback only, nothing persisted, its files in `dir`. */
export function redisServerArgs(port: number, dir: string): string[] {
  return ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
}

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` (with the password, if one was set). */
  readonly url: string;
  /** Killed at once (SIGKILL, like a crash): clients see the connection drop. */
  stop(): Promise<void>;
  /** Starts again on the same port, empty. */
  start(): Promise<void>;
  /** stop() then start(): a crash and a restart, with every key lost. */
  restart(): Promise<void>;
  /** Runs `redis-cli` against this server and returns its stdout. */
  cli(...args: string[]): string;
  close(): Promise<void>;
}

export interface RedisServerOptions {
  readonly port?: number;
  /** Sets `requirepass`. */
  readonly password?: string;
  /** Extra `redis-server` arguments, e.g. `["--cluster-enabled", "yes"]`. */
  readonly args?: readonly string[];
  /** Leave it stopped; call `start()` later (to test a Redis that is down at start). */
  readonly stopped?: boolean;
}

export async function startRedisServer({ port: wanted, password, args = [], stopped = false }: RedisServerOptions = {}): Promise<RedisServer> {
  requireRedis();
  const port = wanted ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "manifold-redis-"));
  folders.add(dir);
  let child: ChildProcess | undefined;
  let log = "";

  const start = async (): Promise<void> => {
    if (child !== undefined) throw new Error(`redis-server on ${port} is already running`);
    rmSync(join(dir, "nodes.conf"), { force: true });
    const spawned = spawn(
      "redis-server",
      [...redisServerArgs(port, dir), "--protected-mode", "no", ...(password === undefined ? [] : ["--requirepass", password]), ...args],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child = spawned;
    children.add(spawned);
    spawned.stdout!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4_000)));
    spawned.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4_000)));
    spawned.once("exit", () => {
      children.delete(spawned);
      if (child === spawned) child = undefined;
    });
    try {
      await eventually(`redis-server on ${port} answering PING`, () => replies(port, "PING", /^\+PONG|^-NOAUTH/), { intervalMs: 50 });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${log}`);
    }
  };

  const stop = async (): Promise<void> => {
    const current = child;
    if (current === undefined) return;
    const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
    current.kill("SIGKILL");
    await exited;
    child = undefined;
  };

  if (!stopped) await start();
  const auth = password === undefined ? "" : `:${encodeURIComponent(password)}@`;
  return {
    port,
    url: `redis://${auth}127.0.0.1:${port}`,
    start,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    cli: (...cliArgs) => {
      const result = spawnSync("redis-cli", ["-p", String(port), ...(password === undefined ? [] : ["--no-auth-warning", "-a", password]), ...cliArgs], {
        encoding: "utf8",
      });
      if (result.status !== 0) throw new Error(`redis-cli ${cliArgs.join(" ")} failed: ${result.stderr}`);
      return result.stdout;
    },
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
      folders.delete(dir);
    },
  };
}

export interface RedisCluster {
  readonly nodes: readonly RedisServer[];
  /** `127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`, the value of MANIFOLD_REDIS_CLUSTER_NODES. */
  readonly nodesEnv: string;
  close(): Promise<void>;
}

/** Three masters, no replicas, all 16384 slots assigned; resolves once `cluster_state:ok` on every node. */
export async function startRedisCluster(): Promise<RedisCluster> {
  requireRedis();
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < 3; i += 1) nodes.push(await startRedisServer({ args: ["--cluster-enabled", "yes", "--cluster-node-timeout", "2000"] }));
    const create = spawnSync("redis-cli", ["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "0", "--cluster-yes"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
    for (const node of nodes) {
      await eventually(`cluster_state:ok on ${node.port}`, () => replies(node.port, "CLUSTER INFO", /cluster_state:ok/), { intervalMs: 50 });
    }
  } catch (error) {
    await Promise.all(nodes.map((n) => n.close()));
    throw error;
  }
  return {
    nodes,
    nodesEnv: nodes.map((n) => `127.0.0.1:${n.port}`).join(","),
    close: async () => {
      await Promise.all(nodes.map((n) => n.close()));
    },
  };
}
