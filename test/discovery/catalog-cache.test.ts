import { test } from "uvu";
import * as assert from "uvu/assert";
import { withCatalogCache } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { registration } from "../contract/registry.cases.js";
import { createScriptedRegistry } from "./support.js";

function setup() {
  let now = 1_000_000;
  const inner = createScriptedRegistry();
  let reads = 0;
  const byName = inner.byName;
  inner.byName = async (...args) => {
    reads += 1;
    return byName(...args);
  };
  const cached = withCatalogCache(inner, { freshMs: 1_000, staleMs: 5_000, now: () => now });
  return { inner, cached, reads: () => reads, advance: (ms: number) => (now += ms) };
}

test("a fresh answer is served without asking the store", async () => {
  const { inner, cached, reads, advance } = setup();
  const c = registration();
  await inner.register(c);
  assert.is((await cached.byName(c.name)).length, 1);
  advance(900);
  assert.is((await cached.byName(c.name)).length, 1);
  assert.is(reads(), 1);
  advance(200);
  await cached.byName(c.name);
  assert.is(reads(), 2, "asked again once the answer is older than freshMs");
});

test("the store unreachable: the last answer is served for staleMs, then UNAVAILABLE", async () => {
  const { inner, cached, advance } = setup();
  const c = registration();
  await inner.register(c);
  await cached.byName(c.name);
  inner.down = true;
  advance(4_000);
  assert.equal(
    (await cached.byName(c.name)).map((e) => e.id),
    [c.id],
    "stale but served",
  );
  advance(1_500);
  try {
    await cached.byName(c.name);
    assert.unreachable("too old");
  } catch (error) {
    assert.is((error as ManifoldError).code, "UNAVAILABLE");
  }
  try {
    await cached.byName("never-asked");
    assert.unreachable("nothing cached");
  } catch (error) {
    assert.is((error as ManifoldError).code, "UNAVAILABLE");
  }
});

test("only UNAVAILABLE falls back; other errors pass through", async () => {
  const { inner, cached } = setup();
  await inner.register(registration());
  await cached.byName("weather-service");
  inner.byName = async () => {
    throw new ManifoldError("INVALID_INPUT", "bad");
  };
  try {
    await cached.byName("weather-service", { health: ["unknown"] });
    assert.unreachable("not cached under other options, and not UNAVAILABLE");
  } catch (error) {
    assert.is((error as ManifoldError).code, "INVALID_INPUT");
  }
});

test("a write through the cache makes cached answers stale at once (a process sees its own registrations)", async () => {
  const { cached, reads } = setup();
  assert.equal(await cached.byName("weather-service"), []);
  const c = registration();
  await cached.register(c);
  assert.equal(
    (await cached.byName("weather-service")).map((e) => e.id),
    [c.id],
  );
  assert.is(reads(), 2);
  await cached.unregister(c.id);
  assert.equal(await cached.byName("weather-service"), []);
});

test("answers are copies: a caller sorting or emptying its array does not touch the cache", async () => {
  const { inner, cached } = setup();
  await Promise.all([inner.register(registration()), inner.register(registration())]);
  const first = await cached.byName("weather-service");
  first.length = 0;
  assert.is((await cached.byName("weather-service")).length, 2);
});

test.run();
