/**
 * The agent token end to end between two real processes (issue 32 M3): a scheduler process and this
 * process, holding the same MANIFOLD_REGISTRY_KEY and Redis, talk real HTTP. The travel agent's
 * generated client proves its name with the token its caller mints; the scheduler process verifies it
 * and makes the agent (registered, as the scheduler checks) the schedule's owner. A bare
 * X-Manifold-Agent-Name, or a token from another key, is 401 there.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { registration } from "../contract/registry.cases.js";
import { killAll, startFixture, type Fixture } from "../e2e/helpers.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";

const KEY = randomBytes(32).toString("hex");
let scheduler: Fixture;
let redis: RedisServer;
let store: Store;
let registry: Registry;

test.before(async () => {
  for (const name of ["REDIS_URL", "MANIFOLD_TRUST_IDENTITY_HEADERS"]) delete process.env[name];
  process.env["MANIFOLD_REGISTRY_KEY"] = KEY;
  redis = await startRedisServer();
  // The agent is registered (signed with the network key): the scheduler refuses schedules for an agent nobody registered.
  store = createStore({ env: { REDIS_URL: redis.url }, log: () => undefined });
  registry = createRegistry({ store, env: { MANIFOLD_REGISTRY_KEY: KEY } });
  await registry.register(registration({ name: "travel-agent", type: "agent", port: 9 }));
  scheduler = await startFixture("scheduling/scheduler.ts", { MANIFOLD_REGISTRY_KEY: KEY, REDIS_URL: redis.url, MANIFOLD_TRUST_IDENTITY_HEADERS: "" });
  await scheduler.waitFor((event) => event["event"] === "listening");
});

test.after(async () => {
  killAll();
  await registry.close();
  await store.close();
  await redis.close();
  delete process.env["MANIFOLD_REGISTRY_KEY"];
});

test("an agent's client proves its name to a scheduler in another process; the bare header and another key do not", async () => {
  const url = (await scheduler.waitFor((event) => event["event"] === "listening"))["url"] as string;
  const client = TravelAgent.clients({ baseUrls: { scheduler: url } }).scheduler;
  const made = await client.scheduleTask({ delay: "1h", instruction: "Morning brief", input: { destination: "Kyoto" } });
  assert.is(made.target_agent, "travel-agent");
  assert.equal(
    (await client.listSchedules({})).schedules.map((s) => s.schedule_id),
    [made.schedule_id],
  );

  const bare = await fetch(`${url}/api/capabilities/cancel_schedule`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-manifold-agent-name": "travel-agent" },
    body: JSON.stringify({ schedule_id: made.schedule_id }),
  });
  assert.is(bare.status, 401);
  const stranger = createCaller({
    agentName: "travel-agent",
    env: { MANIFOLD_REGISTRY_KEY: randomBytes(32).toString("hex") },
    log: { warn: () => undefined } as never,
  });
  const refused = await stranger
    .call({ url: `${url}/api/capabilities/cancel_schedule`, name: "cancel_schedule", target: "scheduler", body: { schedule_id: made.schedule_id } })
    .catch((error: { code: string }) => error.code);
  assert.is(refused, "UNAUTHORIZED");
  assert.is((await client.getSchedule({ schedule_id: made.schedule_id })).schedule_id, made.schedule_id, "still there");
  assert.equal(await client.cancelSchedule({ schedule_id: made.schedule_id }), { schedule_id: made.schedule_id, cancelled: true });
});

test.run();
