import { test } from "uvu";
import * as assert from "uvu/assert";
import { baseUrlOf, createMemoryRegistry, discover } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { registration } from "../contract/registry.cases.js";
import { createScriptedRegistry } from "./support.js";

test("round-robin over the healthy replicas", async () => {
  const registry = createMemoryRegistry();
  const replicas = [registration({ port: 9101 }), registration({ port: 9102 }), registration({ port: 9103, health: "degraded" })];
  await Promise.all(replicas.map((c) => registry.register(c)));
  const next = discover(registry, "weather-service");
  const urls = await Promise.all(Array.from({ length: 4 }, () => next()));
  assert.equal(urls.sort(), ["http://127.0.0.1:9101", "http://127.0.0.1:9101", "http://127.0.0.1:9102", "http://127.0.0.1:9102"]);
});

test("random picks among the healthy replicas only", async () => {
  const registry = createMemoryRegistry();
  await Promise.all(
    [registration({ port: 9201 }), registration({ port: 9202 }), registration({ port: 9203, health: "unhealthy" })].map((c) => registry.register(c)),
  );
  const next = discover(registry, "weather-service", { strategy: "random" });
  const seen = new Set(await Promise.all(Array.from({ length: 60 }, () => next())));
  assert.equal([...seen].sort(), ["http://127.0.0.1:9201", "http://127.0.0.1:9202"]);
});

test("no healthy replica: a degraded one is used; none at all: UNAVAILABLE, retryable, naming the component", async () => {
  const registry = createMemoryRegistry();
  await registry.register(registration({ port: 9301, health: "degraded" }));
  assert.is(await discover(registry, "weather-service")(), "http://127.0.0.1:9301");
  await registry.register(registration({ name: "broken", port: 9302, health: "unhealthy" }));
  try {
    await discover(registry, "broken")();
    assert.unreachable("nothing usable");
  } catch (error) {
    assert.instance(error, ManifoldError);
    assert.is((error as ManifoldError).code, "UNAVAILABLE");
    assert.is((error as ManifoldError).retryable, true);
    assert.match(
      (error as ManifoldError).message,
      /^no healthy replica of broken is registered: start it with the same store settings .*REDIS_URL.*baseUrls in clients\(\)/,
    );
  }
});

test("the registry failing or empty: the last replicas found are used for staleMs, then UNAVAILABLE", async () => {
  const registry = createScriptedRegistry();
  let now = 0;
  await registry.register(registration({ port: 9401 }));
  const next = discover(registry, "weather-service", { staleMs: 10_000, now: () => now });
  assert.is(await next(), "http://127.0.0.1:9401");
  registry.down = true;
  now = 5_000;
  assert.is(await next(), "http://127.0.0.1:9401", "registry down");
  registry.down = false;
  await registry.unregister(registry.registrations[0]!.component.id);
  now = 9_000;
  assert.is(await next(), "http://127.0.0.1:9401", "registry back but empty (restarted, not re-registered yet)");
  now = 10_001;
  try {
    await next();
    assert.unreachable("stale window over");
  } catch (error) {
    assert.is((error as ManifoldError).code, "UNAVAILABLE");
  }
  registry.down = true;
  try {
    await next();
    assert.unreachable("stale window over");
  } catch (error) {
    assert.match((error as ManifoldError).message, /^cannot find weather-service: registry unavailable/);
  }
});

test("base URLs bracket IPv6 addresses", () => {
  assert.is(baseUrlOf({ address: "::1", port: 80 }), "http://[::1]:80");
  assert.is(baseUrlOf({ address: "10.1.2.3", port: 8080 }), "http://10.1.2.3:8080");
  assert.throws(() => discover(createMemoryRegistry(), "a b"), /invalid component name/);
});

test.run();
