/**
 * Discovery end to end, at the real 30 s TTL: three tool processes (two weather-service replicas, one
 * geocoding-service) and one agent process register in a real Redis started by the harness. The
 * agent's typed clients find the tools by name. A tool killed with SIGKILL reads `unknown`, then
 * leaves the lookups once its TTL has passed; the Redis server killed and restarted empty gets every
 * survivor back, while calls made at a steady rate throughout all succeed; and data lost without a
 * reconnection (FLUSHALL) is rewritten by the next heartbeat. How long each took is printed (speed
 * aims live in bench/); the TTL and heartbeat cadence are asserted on manual clocks in the unit suites.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createClient } from "../../runtime/component/index.js";
import { createRedisRegistry, createRegistry, discover, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { TripPlannerSpec, type TripPlannerCapabilities } from "./fixtures/discovery-agent.js";
import { eventually, sleep } from "../support/wait.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

const HANG_GUARD_MS = 120_000;

let server: RedisServer;
let store: RedisStore;
/** Uncached: what the registry holds right now. */
let registry: Registry;
const weather: Fixture[] = [];
let geocoding: Fixture;
let agent: Fixture;

/**
 * Waits for `check` (a failing check counts as not yet). The limit is a hang guard, generous because
 * expiry takes a 30 s TTL; how soon things happen is printed, and the TTL logic itself is asserted on a
 * manual clock in the unit suites.
 */
async function until(what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  await eventually(what, () => check().catch(() => false), { limitMs: HANG_GUARD_MS, intervalMs: 250 });
  return Date.now() - started;
}

const runId = (): string => /run_id:(\w+)/.exec(server.cli("INFO", "server"))?.[1] ?? "";
const idsOf = async (name: string) => (await registry.byName(name)).map((e) => e.id).sort();
const idOf = new Map<Fixture, string>();
const fixtureId = (f: Fixture): string => idOf.get(f)!;

test.before(async () => {
  server = await startRedisServer();
  const env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "e2e" };
  store = createStore({ env, log: () => undefined, maxReconnectDelayMs: 500 }) as RedisStore;
  registry = createRedisRegistry(store, { connectWaitMs: 5_000 });
  const started = await Promise.all([
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "weather" }),
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "weather" }),
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "geocoding" }),
    startFixture("discovery-agent.ts", env),
  ]);
  for (const f of started) {
    const listening = await f.waitFor((e) => e["event"] === "listening");
    idOf.set(f, String(listening["id"]));
  }
  [weather[0], weather[1], geocoding, agent] = started as [Fixture, Fixture, Fixture, Fixture];
});

test.after(async () => {
  killAll();
  await store?.close();
  await server?.close();
});

test("all four register under their names and types, each replica with its own id", async () => {
  assert.equal(await idsOf("weather-service"), weather.map(fixtureId).sort());
  assert.equal(await idsOf("geocoding-service"), [fixtureId(geocoding)]);
  assert.equal(
    (await registry.byType("agent")).map((e) => e.id),
    [fixtureId(agent)],
  );
  assert.equal((await registry.byType("tool")).length, 3);
  assert.equal((await registry.byCapability(["get_current_weather", "get_forecast"])).length, 2);
  const entry = (await registry.get(fixtureId(agent)))!;
  assert.equal([entry.ttl_ms, entry.heartbeat_ms, entry.health, entry.address], [30_000, 10_000, "healthy", "127.0.0.1"]);
});

test("the agent, itself found by name, reaches the tools it found by name through its typed clients", async () => {
  const planner = createClient<TripPlannerCapabilities>(TripPlannerSpec, { baseUrl: discover(registry, "trip-planner") });
  const trip = await planner.planTrip({ destination: "Kyoto" });
  assert.equal({ lat: trip.lat, lon: trip.lon }, { lat: 35.0116, lon: 135.7681 });
  assert.type(trip.temperature, "number");
  for (let i = 0; i < 4; i += 1) assert.equal(await planner.planTrip({ destination: "Kyoto" }), trip, "same answer from either weather replica");
});

test("kill -9 of one tool: it reads unknown once its heartbeat is overdue, and is gone from lookups once its TTL has passed", async () => {
  const [victim, survivor] = weather as [Fixture, Fixture];
  const killedAt = Date.now();
  victim.child.kill("SIGKILL");
  let sawUnknown = false;
  await until("the killed replica gone", async () => {
    const entry = await registry.get(fixtureId(victim));
    if (entry?.health === "unknown") sawUnknown = true;
    return entry === undefined && !(await idsOf("weather-service")).includes(fixtureId(victim));
  });
  assert.ok(sawUnknown, "read as unknown between its missed heartbeats and its expiry");
  assert.equal(await idsOf("weather-service"), [fixtureId(survivor)]);
  assert.equal((await registry.listAll()).map((e) => e.id).sort(), [fixtureId(survivor), fixtureId(geocoding), fixtureId(agent)].sort());
  console.log(`  killed replica gone from lookups after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);
});

test("Redis killed and restarted empty: every survivor re-registers, and steady calls all succeed", async () => {
  // The caller finds the agent through its own cached registry, as another process would.
  const callerStore = createStore({ env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "e2e" }, log: () => undefined }) as RedisStore;
  const planner = createClient<TripPlannerCapabilities>(TripPlannerSpec, {
    baseUrl: discover(createRegistry({ store: callerStore }), "trip-planner"),
    timeoutMs: 5_000,
  });
  const survivors = [fixtureId(weather[1]!), fixtureId(geocoding), fixtureId(agent)].sort();
  const succeeded: number[] = [];
  const failures: string[] = [];
  let calling = true;
  const loop = (async () => {
    while (calling) {
      await planner.planTrip({ destination: "Paris" }).then(
        () => succeeded.push(Date.now()),
        (error: unknown) => failures.push(String(error)),
      );
      await sleep(100);
    }
  })();
  let down = { from: 0, to: 0 };
  try {
    await sleep(1_000);
    const runBefore = runId();
    await server.stop();
    const killedAt = Date.now();
    await sleep(3_000);
    await server.start();
    down = { from: killedAt, to: Date.now() };
    assert.is.not(runId(), runBefore, "a new server process, without persistence: every key is gone");
    const took = await until(
      "all survivors back",
      async () => JSON.stringify((await registry.listAll()).map((e) => e.id).sort()) === JSON.stringify(survivors),
    );
    console.log(
      `  survivors re-registered ${(took / 1000).toFixed(1)} s after Redis restarted (${((Date.now() - killedAt) / 1000).toFixed(1)} s after it was killed)`,
    );
    await sleep(2_000);
  } finally {
    calling = false;
    await loop;
    await callerStore.close();
  }
  assert.equal(failures, [], `${failures.length} of ${succeeded.length + failures.length} calls failed`);
  const duringOutage = succeeded.filter((t) => t > down.from && t < down.to).length;
  assert.ok(duringOutage >= 10, `${duringOutage} calls succeeded while Redis was down (${succeeded.length} in all)`);
  for (const f of [weather[1]!, geocoding, agent]) assert.is(f.child.exitCode, null, "still running");
});

test("data lost without a reconnection (FLUSHALL): each survivor's next heartbeat rewrites its full record", async () => {
  const survivors = [fixtureId(weather[1]!), fixtureId(geocoding), fixtureId(agent)].sort();
  server.cli("FLUSHALL");
  // No reconnection happens: only the periodic heartbeat (10 s ± 10 %) can bring them back.
  const took = await until("all survivors back", async () => JSON.stringify((await registry.listAll()).map((e) => e.id).sort()) === JSON.stringify(survivors));
  console.log(`  survivors back ${(took / 1000).toFixed(1)} s after FLUSHALL`);
  const entry = (await registry.get(fixtureId(agent)))!;
  assert.equal([entry.name, entry.capabilities.map((c) => c.name)], ["trip-planner", ["plan_trip"]], "the full record, not only a TTL");
});

test.run();
