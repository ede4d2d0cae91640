/**
 * Lookups never use KEYS (nor SCAN): the index sets are the catalog. Checked two ways on a real Redis,
 * by the server's command statistics and by MONITOR, over every registry operation including the
 * lazy cleanup of expired members.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Redis } from "ioredis";
import { createRedisRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { registration } from "../contract/registry.cases.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { sleep } from "../support/wait.js";

let server: RedisServer;
let store: RedisStore;
let registry: Registry;

test.before(async () => {
  server = await startRedisServer();
  store = createStore({ env: { REDIS_URL: server.url }, log: () => undefined }) as RedisStore;
  registry = createRedisRegistry(store, { connectWaitMs: 5_000 });
});
test.after(async () => {
  await store.close();
  await server.close();
});

/** Every registry operation, including reads that meet (and clean) expired members. */
async function exercise(): Promise<void> {
  server.cli("FLUSHALL");
  const list = Array.from({ length: 20 }, (_, i) => registration({ name: `svc-${i % 4}`, caps: [`cap_${i % 3}`, "common"] }));
  await Promise.all(list.map((c, i) => registry.register(c, { ttlMs: i % 2 === 0 ? 300 : 30_000 })));
  await registry.byName("svc-1");
  await registry.byType("tool");
  await registry.byCapability(["cap_1", "common"]);
  await registry.get(list[0]!.id);
  await registry.unregister(list[1]!.id);
  await sleep(400); // half of them expire
  assert.is((await registry.listAll()).length, 9);
  await registry.byCapability("common");
  await registry.byName("svc-0", { health: ["unknown", "healthy"] });
}

function commandStats(): Map<string, number> {
  const stats = new Map<string, number>();
  for (const [, name, calls] of server.cli("INFO", "commandstats").matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) stats.set(name!, Number(calls));
  return stats;
}

test("command statistics: no KEYS and no SCAN after every operation", async () => {
  server.cli("CONFIG", "RESETSTAT");
  await exercise();
  const stats = commandStats();
  assert.ok((stats.get("evalsha") ?? 0) + (stats.get("eval") ?? 0) > 20, `the scripts ran: ${[...stats.keys()].join(", ")}`);
  assert.ok((stats.get("smembers") ?? 0) > 0 && (stats.get("sinter") ?? 0) > 0, "index sets were read (commands inside scripts are counted)");
  assert.is(stats.get("keys"), undefined);
  assert.is(stats.get("scan"), undefined);
});

test("MONITOR: every command the server executed for the registry, none of them KEYS or SCAN", async () => {
  const monitor = await (store.client as Redis).monitor();
  const seen = new Set<string>();
  monitor.on("monitor", (_time: string, args: string[]) => seen.add(String(args[0]).toLowerCase()));
  monitor.on("error", () => undefined);
  try {
    await exercise();
    await sleep(100);
  } finally {
    monitor.disconnect();
  }
  assert.ok(seen.has("smembers") && seen.has("sinter") && seen.has("hmget"), `saw ${[...seen].sort().join(", ")}`);
  assert.not.ok(seen.has("keys"), "KEYS used");
  assert.not.ok(seen.has("scan"), "SCAN used");
});

test.run();
