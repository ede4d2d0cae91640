import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Redis } from "ioredis";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startProcess, type Started } from "../support/processes.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { eventually, sleep, within } from "../support/wait.js";

const PASSWORD = "pw-Zq81-not-in-logs";
let server: RedisServer;
const stores: RedisStore[] = [];

function open(env: Record<string, string>, logs: string[] = [], options: { commandTimeoutMs?: number } = {}): RedisStore {
  const store = createStore({ env, log: (m) => logs.push(m), maxReconnectDelayMs: 200, ...options }) as RedisStore;
  stores.push(store);
  return store;
}

test.before(async () => {
  server = await startRedisServer({ password: PASSWORD });
});
test.after(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await server.close();
});

test("no Redis configured: the memory store, announced by one log line per process; its data is process-wide per namespace", () => {
  const logs: string[] = [];
  const a = createStore({ env: {}, log: (m) => logs.push(m) });
  const b = createStore({ env: {}, log: (m) => logs.push(m) });
  const other = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "other" }, log: (m) => logs.push(m) });
  assert.equal(logs, ["manifold: no Redis configured (REDIS_URL / MANIFOLD_REDIS_*); using the embedded in-memory store"]);
  assert.ok(a.kind === "memory" && b.kind === "memory" && other.kind === "memory");
  if (a.kind !== "memory" || b.kind !== "memory" || other.kind !== "memory") return;
  const state = a.slot("registry", () => ({ n: 1 }));
  assert.is(
    b.slot("registry", () => ({ n: 2 })),
    state,
  );
  assert.is.not(
    other.slot("registry", () => ({ n: 3 })),
    state,
  );
});

test("a Redis store connects with the password and never prints it", async () => {
  const logs: string[] = [];
  const store = open({ REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "conn" }, logs);
  assert.is(await store.client.ping(), "PONG");
  assert.is(store.description, `redis://:***@127.0.0.1:${server.port}/0`);
  assert.equal(logs, [`manifold: using Redis at redis://:***@127.0.0.1:${server.port}/0 (namespace conn)`]);
  assert.is(store.redact(`x ${PASSWORD} y`), "x *** y");
});

test("several stores of one process on the same Redis and namespace announce it once (each feature opens its own)", async () => {
  const logs: string[] = [];
  const env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "once" };
  for (let i = 0; i < 3; i += 1) open(env, logs);
  open({ ...env, MANIFOLD_REDIS_NAMESPACE: "twice" }, logs);
  assert.equal(logs, [
    `manifold: using Redis at redis://:***@127.0.0.1:${server.port}/0 (namespace once)`,
    `manifold: using Redis at redis://:***@127.0.0.1:${server.port}/0 (namespace twice)`,
  ]);
});

test("a Redis that evicts keys under memory pressure is named at start, once; noeviction is not", async () => {
  const evicting = await startRedisServer({ args: ["--maxmemory-policy", "allkeys-lru"] });
  try {
    const logs: string[] = [];
    const store = open({ REDIS_URL: evicting.url }, logs);
    assert.ok(await store.whenReady(2_000));
    await eventually("the eviction warning's two lines", () => logs.length >= 2, { describe: () => logs.join("\n") });
    assert.is(logs.filter((l) => l.includes("maxmemory-policy allkeys-lru")).length, 1, logs.join("\n"));
    assert.match(logs[1]!, /set maxmemory-policy noeviction/);
  } finally {
    await evicting.close();
  }
  const quiet: string[] = [];
  const store = open({ REDIS_URL: server.url }, quiet);
  assert.ok(await store.whenReady(2_000));
  await sleep(200);
  assert.is(quiet.length, 1, quiet.join("\n"));
});

test("a wrong password: reported once, without either password", async () => {
  const logs: string[] = [];
  const wrong = "wrong-Pw-77";
  const store = open({ MANIFOLD_REDIS_HOST: "127.0.0.1", MANIFOLD_REDIS_PORT: String(server.port), MANIFOLD_REDIS_PASSWORD: wrong }, logs);
  assert.is(await store.whenReady(1_500), false);
  const text = logs.join("\n");
  assert.match(text, /unreachable/);
  assert.not.ok(text.includes(wrong) || text.includes(PASSWORD), text);
  assert.is(logs.filter((l) => l.includes("unreachable")).length, 1, "once, not per attempt");
});

test("duplicate(): a connection of its own without the command timeout, for blocking commands", async () => {
  const store = open({ REDIS_URL: server.url }, [], { commandTimeoutMs: 300 });
  const blocking = store.duplicate() as Redis;
  const [mainId, dupId] = await Promise.all([(store.client as Redis).client("ID"), blocking.client("ID")]);
  assert.is.not(mainId, dupId);
  // The shared connection keeps answering while the duplicate blocks: a BLPOP with no time limit, seen
  // blocked by Redis, then a PING (queued behind it, it would hit the 300 ms command timeout and throw).
  const key = `manifold:v1:conn:release-${process.pid}`;
  const held = blocking.blpop(key, 0);
  await eventually("the duplicate's BLPOP blocked in Redis", async () => /^blocked_clients:[1-9]/m.test(await store.client.info("clients")));
  assert.is(await store.client.ping(), "PONG", "not queued behind the BLPOP");
  await store.client.rpush(key, "go");
  assert.equal(await within("the BLPOP released by the push", held), [key, "go"]);
  const popped = blocking.blpop("manifold:v1:conn:nothing", 0.8);
  assert.is(await popped, null, "a 0.8 s BLPOP outlives the 300 ms command timeout on a duplicate");
  try {
    await store.client.blpop("manifold:v1:conn:nothing", 0.8);
    assert.unreachable("the shared connection's timeout applies");
  } catch (error) {
    assert.match((error as Error).message, /timed out/i);
  }
});

test("Redis restarted: the store reconnects by itself, logs the outage once and its end once, and tells listeners", async () => {
  const logs: string[] = [];
  const store = open({ REDIS_URL: server.url }, logs);
  await store.whenReady(2_000);
  let readies = 0;
  store.onReady(() => (readies += 1));
  await server.stop();
  await sleep(1_000); // several reconnection attempts at 200 ms
  await server.start();
  assert.ok(await store.whenReady(5_000), "reconnected");
  assert.is(await store.client.ping(), "PONG");
  assert.is(logs.filter((l) => l.includes("unreachable")).length, 1, logs.join("\n"));
  assert.is(logs.filter((l) => l.includes("reachable again")).length, 1, logs.join("\n"));
  assert.is(readies, 1);
});

/** test/store/fixtures/open-store.ts, started and past its one command. */
function openStoreFixture(unref: boolean): Promise<Started> {
  return startProcess({
    name: `open-store UNREF=${unref}`,
    entry: "test/store/fixtures/open-store.ts",
    env: { REDIS_URL: server.url, UNREF: String(unref) },
    ready: { line: /^pinged$/ },
  });
}

test("unref: an open connection does not keep the process alive (it does without)", async () => {
  const [unref, ref] = await Promise.all([openStoreFixture(true), openStoreFixture(false)]);
  assert.equal(await within("the unref'd fixture to exit by itself", unref.exited), { code: 0, signal: null });
  assert.is(unref.stdout(), "pinged\n");
  // Still running well after its one command: the connection holds the process open.
  await sleep(1_500);
  assert.is(ref.exit(), undefined, "the ref'd connection keeps the process alive");
  assert.is(ref.stdout(), "pinged\n");
  await ref.kill();
});

test.run();
