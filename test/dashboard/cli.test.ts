/**
 * `manifold dashboard` as a user runs it: a real process reading a real Redis, printing its URL,
 * answering its API, and stopping on SIGTERM; a bad setting is a one-line message and exit 2.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { withTimeout } from "../runtime/support.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { eventually } from "../support/wait.js";
import { get, registration } from "./support.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let redis: RedisServer;

function manifold(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, "generator/bin.ts", ...args], {
    cwd: root,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (part: string) => (out += part));
  child.stderr.setEncoding("utf8").on("data", (part: string) => (err += part));
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
  return { child, exited, out: () => out, err: () => err };
}

test.before(async () => {
  redis = await startRedisServer();
});

test.after(async () => {
  await redis?.close();
});

test("manifold dashboard serves the API over the network's Redis and stops on SIGTERM", async () => {
  const env = { REDIS_URL: redis.url };
  const store = createStore({ env });
  const registry = createRegistry({ store, cache: false });
  const tool = registration({ name: "geocoding-service" });
  await registry.register(tool);
  const run = manifold(["dashboard"], env);
  try {
    await withTimeout(
      eventually("the URL", async () => /dashboard listening on http:\/\/127\.0\.0\.1:\d+/.test(run.out())),
      25_000,
      "manifold dashboard",
    );
    const url = /listening on (\S+)/.exec(run.out())![1]!;
    const services = await get(`${url}/api/services`);
    assert.is(services.status, 200);
    assert.equal(
      services.body.map((s: { id: string }) => s.id),
      [tool.id],
    );
    assert.is((await get(`${url}/`)).status, 200);
    run.child.kill("SIGTERM");
    assert.is(await withTimeout(run.exited, 10_000, "exit on SIGTERM"), 0);
  } finally {
    run.child.kill("SIGKILL");
    await registry.close();
    await store.close();
  }
});

test("a bad setting is one line naming the variable, exit 2; --help describes the command", async () => {
  const bad = manifold(["dashboard"], { REDIS_URL: redis.url, MANIFOLD_VIEWER_MEMORY_DOMAINS: "ok,not ok" });
  assert.is(await withTimeout(bad.exited, 20_000, "exit"), 2);
  assert.match(bad.err(), /^manifold: MANIFOLD_VIEWER_MEMORY_DOMAINS must be 1-64 letters/m);
  assert.not.match(bad.err(), /\n\s+at /, "no stack trace");
  const help = manifold(["dashboard", "--help"], {});
  assert.is(await withTimeout(help.exited, 20_000, "exit"), 0);
  assert.match(help.out(), /^Usage: manifold dashboard\n/);
  assert.match(help.out(), /MANIFOLD_VIEWER_MEMORY_DOMAINS/);
});

test.run();
