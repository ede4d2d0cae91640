import { test } from "uvu";
import * as assert from "uvu/assert";
import { startHeartbeat, type ComponentRegistration } from "../../runtime/discovery/index.js";
import { createScriptedRegistry, eventually, sleep } from "./support.js";

const component: Omit<ComponentRegistration, "health"> = {
  id: "weather-service-0000beef",
  name: "weather-service",
  type: "tool",
  description: "weather",
  address: "127.0.0.1",
  port: 9000,
  metadata: { version: "1.0.0" },
  capabilities: [],
};

test("beats at the heartbeat period ± 10% jitter, writing the full record each time", async () => {
  const registry = createScriptedRegistry();
  const hb = startHeartbeat(registry, component, { ttlMs: 600, heartbeatMs: 100 });
  assert.is(await hb.ready, true);
  await sleep(1_250);
  await hb.stop();
  const times = registry.registrations.map((r) => r.at);
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  assert.ok(gaps.length >= 9, `${gaps.length} beats`);
  // Never early; late only by timer delay on a busy machine.
  assert.ok(
    gaps.every((g) => g >= 85 && g < 250),
    `gaps ${gaps.join(", ")}`,
  );
  assert.ok(new Set(gaps).size > 1, "jittered, not a fixed period");
  assert.ok(registry.registrations.every((r) => r.component.capabilities !== undefined && r.component.description === "weather"));
  assert.equal(registry.unregistered, [component.id]);
});

test("the default period is a third of the TTL", async () => {
  const registry = createScriptedRegistry();
  const hb = startHeartbeat(registry, component, { ttlMs: 450, jitter: 0 });
  await hb.ready;
  await sleep(500);
  await hb.stop();
  const times = registry.registrations.map((r) => r.at);
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  assert.ok(gaps.length >= 2 && gaps.every((g) => g >= 148 && g < 250), `gaps ${gaps.join(", ")}`);
});

test("an outage: the component is told once, beats retry with backoff, and one line says it is back", async () => {
  const registry = createScriptedRegistry();
  registry.down = true;
  const logs: string[] = [];
  const hb = startHeartbeat(registry, component, { ttlMs: 3_000, heartbeatMs: 1_000, log: (m) => logs.push(m) });
  assert.is(await hb.ready, false, "the first beat failed, and ready says so without rejecting");
  await sleep(1_200); // retries at ~250, 500, 1000 ms
  assert.equal(logs, [`weather-service (${component.id}) not registered (registry unavailable: scripted outage); serving anyway, retrying`]);
  registry.down = false;
  await eventually(() => registry.registrations.length > 0, 1_500, "registered once the registry is back");
  assert.is(logs.length, 2);
  assert.match(logs[1]!, /registered after \d+ failed attempts/);
  await hb.stop();
});

test("a reconnect signal beats at once instead of at the next period", async () => {
  const registry = createScriptedRegistry();
  const hb = startHeartbeat(registry, component, { ttlMs: 60_000 });
  await hb.ready;
  assert.is(registry.registrations.length, 1);
  registry.reconnect();
  await eventually(() => registry.registrations.length === 2, 500, "beat on reconnect");
  await hb.stop();
});

test("the health hook's answer is what is registered", async () => {
  const registry = createScriptedRegistry();
  let state: "healthy" | "degraded" = "healthy";
  const hb = startHeartbeat(registry, component, { ttlMs: 60_000, health: async () => state });
  await hb.ready;
  state = "degraded";
  await hb.beat();
  assert.equal(
    registry.registrations.map((r) => r.component.health),
    ["healthy", "degraded"],
  );
  assert.is((await registry.get(component.id))!.health, "degraded");
  await hb.stop();
});

test("stop waits for a beat in flight, then unregisters; nothing beats afterwards", async () => {
  const registry = createScriptedRegistry();
  let release: () => void = () => undefined;
  const slow = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const hb = startHeartbeat(registry, component, {
    ttlMs: 300,
    heartbeatMs: 50,
    health: async () => {
      calls += 1;
      if (calls === 2) await slow;
      return "healthy";
    },
  });
  await hb.ready;
  await eventually(() => calls === 2, 1_000, "second beat started");
  const stopped = hb.stop();
  await sleep(50);
  assert.equal(registry.unregistered, [], "not before the beat in flight ends");
  release();
  await stopped;
  assert.equal(registry.unregistered, [component.id]);
  assert.is(await registry.get(component.id), undefined, "the late beat did not bring it back");
  const count = registry.registrations.length;
  await sleep(200);
  assert.is(registry.registrations.length, count);
});

test("a registry that cannot unregister does not hold up stop(): logged, bounded", async () => {
  const registry = createScriptedRegistry();
  const logs: string[] = [];
  const hb = startHeartbeat(registry, component, { ttlMs: 10_000, log: (m) => logs.push(m) });
  await hb.ready;
  registry.down = true;
  await hb.stop();
  assert.match(logs.join("\n"), /not unregistered \(registry unavailable: scripted outage\); it expires within 10000 ms/);
});

test.run();
