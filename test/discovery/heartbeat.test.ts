import { test } from "uvu";
import * as assert from "uvu/assert";
import { startHeartbeat, type ComponentRegistration } from "../../runtime/discovery/index.js";
import { nextBeatDelay } from "../../runtime/discovery/heartbeat.js";
import { createManualClock } from "../support/clock.js";
import { eventually, sleep, within } from "../support/wait.js";
import { createScriptedRegistry } from "./support.js";

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

const gapsOf = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

test("beats at the heartbeat period ± 10% jitter, writing the full record each time", async () => {
  const clock = createManualClock();
  const registry = createScriptedRegistry(clock);
  const hb = startHeartbeat(registry, component, { ttlMs: 600, heartbeatMs: 100, clock });
  assert.is(await hb.ready, true);
  await clock.advance(1_250);
  await hb.stop();
  const gaps = gapsOf(registry.registrations.map((r) => r.at));
  assert.ok(gaps.length >= 9, `${gaps.length} beats`);
  // On the clock the timer was set on: never early, never late beyond the jitter.
  assert.ok(
    gaps.every((g) => g >= 90 && g <= 110),
    `gaps ${gaps.join(", ")}`,
  );
  assert.ok(new Set(gaps).size > 1, "jittered, not a fixed period");
  assert.ok(registry.registrations.every((r) => r.component.capabilities !== undefined && r.component.description === "weather"));
  assert.equal(registry.unregistered, [component.id]);
});

test("the default period is a third of the TTL", async () => {
  const clock = createManualClock();
  const registry = createScriptedRegistry(clock);
  const hb = startHeartbeat(registry, component, { ttlMs: 450, jitter: 0, clock });
  await hb.ready;
  await clock.advance(500);
  await hb.stop();
  const gaps = gapsOf(registry.registrations.map((r) => r.at));
  assert.equal(gaps, [150, 150, 150]);
});

test("the next beat's delay: the period, a backoff from 250 ms while failing, capped at the period; ± the jitter", () => {
  assert.is(nextBeatDelay(1_000, 0, 0.1, 0.5), 1_000);
  assert.is(nextBeatDelay(1_000, 0, 0.1, 0), 900);
  assert.is(nextBeatDelay(1_000, 0, 0.1, 1), 1_100);
  assert.equal(
    [1, 2, 3, 4].map((failures) => nextBeatDelay(1_000, failures, 0.1, 0.5)),
    [250, 500, 1_000, 1_000],
  );
});

test("an outage: the component is told once, beats retry with backoff, and one line says it is back", async () => {
  const clock = createManualClock();
  const registry = createScriptedRegistry(clock);
  registry.down = true;
  const logs: string[] = [];
  const hb = startHeartbeat(registry, component, { ttlMs: 3_000, heartbeatMs: 1_000, log: (m) => logs.push(m), clock });
  assert.is(await hb.ready, false, "the first beat failed, and ready says so without rejecting");
  await clock.advance(1_200); // retries at ~250, 500, 1000 ms
  assert.equal(logs, [`weather-service (${component.id}) not registered (registry unavailable: scripted outage); serving anyway, retrying`]);
  registry.down = false;
  await clock.advance(1_500);
  assert.ok(registry.registrations.length > 0, "registered once the registry is back, within one period of backoff");
  assert.is(logs.length, 2);
  assert.match(logs[1]!, /registered after \d+ failed attempts/);
  await hb.stop();
});

test("a reconnect signal beats at once instead of at the next period", async () => {
  const clock = createManualClock();
  const registry = createScriptedRegistry(clock);
  const hb = startHeartbeat(registry, component, { ttlMs: 60_000, clock });
  await hb.ready;
  assert.is(registry.registrations.length, 1);
  const started = clock.now();
  registry.reconnect();
  await eventually("a beat on reconnect", () => registry.registrations.length === 2);
  assert.is(clock.now(), started, "no time passed: the period did not bring it");
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
  const clock = createManualClock();
  const registry = createScriptedRegistry(clock);
  let release: () => void = () => undefined;
  const slow = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  const hb = startHeartbeat(registry, component, {
    ttlMs: 300,
    heartbeatMs: 50,
    clock,
    health: async () => {
      calls += 1;
      if (calls === 2) await slow;
      return "healthy";
    },
  });
  await hb.ready;
  await clock.advance(60);
  await eventually("the second beat", () => calls === 2);
  const stopped = hb.stop();
  await sleep(50);
  assert.equal(registry.unregistered, [], "not before the beat in flight ends");
  release();
  await within("stop", stopped);
  assert.equal(registry.unregistered, [component.id]);
  assert.is(await registry.get(component.id), undefined, "the late beat did not bring it back");
  const count = registry.registrations.length;
  await clock.advance(1_000);
  assert.is(registry.registrations.length, count);
  assert.is(clock.pending(), 0, "no timer left behind");
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

test("an unregistration that never answers is given up after stopTimeoutMs on the clock", async () => {
  const clock = createManualClock();
  const registry = createScriptedRegistry(clock);
  const hb = startHeartbeat(registry, component, { ttlMs: 10_000, stopTimeoutMs: 2_000, clock });
  await hb.ready;
  registry.unregister = () => new Promise(() => undefined);
  let done = false;
  const stopping = hb.stop().then(() => {
    done = true;
  });
  await eventually("stop's limit on the clock", () => clock.pending() === 1);
  await clock.advance(1_999);
  assert.is(done, false, "still waiting for the unregistration");
  await clock.advance(1);
  await within("stop", stopping);
  assert.is(done, true);
});

test.run();
