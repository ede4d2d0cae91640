/**
 * The registry on a real Redis that goes away: down at start, restarted empty mid-run, flushed,
 * briefly unreachable. Short TTLs (2 s) keep it fast; test/e2e/discovery.test.ts repeats the
 * restart with real processes at the real 30 s TTL. How soon the records are back is a speed aim
 * (bench/discovery/recovery.ts); the cadence that guarantees it (a beat every TTL/3, a beat at once
 * on reconnect, a backoff capped at the period) is asserted on a manual clock in heartbeat.test.ts.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createClient, serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import { createRegistry, discover, type Registry } from "../../runtime/discovery/index.js";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { tool, toolSpec } from "../support/specs.js";
import { eventually, sleep, within } from "../support/wait.js";

const TTL = 2_000;
const spec = toolSpec(tool("ping-tool", { description: "answers", capabilities: { ping: { description: "pong" } } }));
type Caps = { ping: { input: object; output: { pong: number } } };

const cleanup: (() => Promise<void>)[] = [];
test.after(async () => {
  for (const step of cleanup.reverse()) await step();
});

function open(server: RedisServer, namespace = `r${randomBytes(3).toString("hex")}`): { store: RedisStore; registry: Registry } {
  const store = createStore({
    env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: namespace },
    log: () => undefined,
    maxReconnectDelayMs: 200,
  }) as RedisStore;
  const registry = createRegistry({ store });
  cleanup.push(() => store.close());
  return { store, registry };
}

async function serve(registry: Registry, logs: string[] = []): Promise<RunningComponent> {
  const running = await serveComponent<Caps>(spec, {
    port: 0,
    handleSignals: false,
    log: (m) => logs.push(m),
    handlers: { ping: () => ({ pong: Date.now() }) },
    registry,
    registration: { ttlMs: TTL },
  });
  cleanup.push(() => running.close());
  return running;
}

const idsOf = async (registry: Registry) => (await registry.byName("ping-tool")).map((e) => e.id).sort();

test("Redis down at start: the component serves anyway, says so once, and registers when Redis comes", async () => {
  const server = await startRedisServer({ stopped: true });
  cleanup.push(() => server.close());
  const logs: string[] = [];
  const { registry } = open(server);
  const running = await within("serve with Redis down", serve(registry, logs));
  assert.is(logs.filter((l) => l.includes("not registered")).length, 1, "start went ahead once the first registration failed");
  const client = createClient<Caps>(spec, { baseUrl: running.url });
  assert.type((await client.ping({})).pong, "number");
  await sleep(800); // several failed beats
  assert.is(logs.filter((l) => l.includes("not registered")).length, 1, logs.join("\n"));
  await server.start();
  await eventually("registered after Redis started", async () => (await idsOf(registry).catch((): string[] => [])).includes(running.id));
  // The record is visible to lookups a moment before the heartbeat's write resolves and logs.
  await eventually("the line saying it is registered", () => /registered after \d+ failed attempts/.test(logs.join("\n")), { describe: () => logs.join("\n") });
});

test("Redis restarted mid-run with its data lost: every live component is back within one TTL", async () => {
  const server = await startRedisServer();
  cleanup.push(() => server.close());
  const { registry } = open(server);
  const running = await Promise.all([serve(registry), serve(registry), serve(registry)]);
  const ids = running.map((r) => r.id).sort();
  assert.equal(await idsOf(registry), ids);
  await server.stop();
  await sleep(500);
  await server.start();
  await eventually("all three back", async () => JSON.stringify(await idsOf(registry).catch((): string[] => [])) === JSON.stringify(ids));
});

test("data lost without any reconnection (FLUSHALL): the heartbeat alone re-registers within one TTL", async () => {
  const server = await startRedisServer();
  cleanup.push(() => server.close());
  const { registry } = open(server);
  const running = await Promise.all([serve(registry), serve(registry)]);
  server.cli("FLUSHALL");
  await eventually("both back by heartbeat", async () => (await idsOf(registry)).length === 2);
  assert.equal(await idsOf(registry), running.map((r) => r.id).sort());
});

test("Redis briefly unreachable: lookups are served from the catalog cache, then fail UNAVAILABLE", async () => {
  const server = await startRedisServer();
  cleanup.push(() => server.close());
  const { registry } = open(server);
  const running = await serve(registry);
  assert.equal(await idsOf(registry), [running.id]);
  await server.stop();
  const stoppedAt = Date.now();
  assert.equal(await idsOf(registry), [running.id], "from the cache");
  await sleep(2_000);
  assert.equal(await idsOf(registry), [running.id], "still, 2 s into the outage");
  await sleep(Math.max(0, 5_300 - (Date.now() - stoppedAt))); // past the 5 s stale limit
  try {
    await registry.byName("ping-tool");
    assert.unreachable("past staleMs");
  } catch (error) {
    assert.is((error as ManifoldError).code, "UNAVAILABLE");
    // What failed, never where: no host or port reaches a caller.
    assert.is((error as ManifoldError).message, "registry unavailable: Redis is not connected");
  }
  await server.start();
});

test("calls through discovery keep succeeding while Redis restarts", async () => {
  const server = await startRedisServer();
  cleanup.push(() => server.close());
  const { store, registry } = open(server);
  const target = await serve(registry);
  // The caller has its own connection, as another process would.
  const caller = open(server, store.namespace).registry;
  const client = createClient<Caps>(spec, { baseUrl: discover(caller, "ping-tool"), timeoutMs: 2_000 });
  let ok = 0;
  const failures: string[] = [];
  let calling = true;
  const loop = (async () => {
    while (calling) {
      await client.ping({}).then(
        () => (ok += 1),
        (error: unknown) => failures.push(String(error)),
      );
      await sleep(50);
    }
  })();
  await sleep(300);
  await server.stop();
  await sleep(1_500);
  await server.start();
  await eventually("re-registered", async () => (await idsOf(caller).catch((): string[] => [])).includes(target.id));
  await sleep(500);
  calling = false;
  await loop;
  assert.equal(failures, []);
  assert.ok(ok > 30, `${ok} calls`);
});

test.run();
