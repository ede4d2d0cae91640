import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { registration } from "../contract/registry.cases.js";
import { countingCatalog } from "./support.js";

/** `refreshAheadMs` 0 unless given: most cases are about what is fresh and what is stale, not about reading ahead. */
const setup = ({ refreshAheadMs = 0 }: { refreshAheadMs?: number } = {}) => countingCatalog({ refreshAheadMs });

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

/** Lets a read started behind a lookup settle (it is a chain of promises on the in-memory registry). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

test("an answer used in the last quarter of its fresh life is read again behind the lookup: a name looked up steadily never waits for the store, and sees its changes", async () => {
  const { inner, cached, reads, advance } = setup({ refreshAheadMs: 250 });
  const first = registration();
  await inner.register(first);
  assert.equal(
    (await cached.byName(first.name)).map((e) => e.id),
    [first.id],
  );
  const second = registration();
  await inner.register(second); // straight into the store, as another process would
  advance(700);
  assert.equal(
    (await cached.byName(first.name)).map((e) => e.id),
    [first.id],
    "fresh, not in its last quarter: not read again",
  );
  assert.is(reads(), 1);
  advance(100);
  assert.equal(
    (await cached.byName(first.name)).map((e) => e.id),
    [first.id],
    "in its last quarter: the cached answer at once",
  );
  assert.equal(
    (await cached.byName(first.name)).map((e) => e.id),
    [first.id],
  );
  await settled();
  assert.is(reads(), 2, "one read behind the lookups, however many used the answer meanwhile");

  inner.byName = async () => {
    throw new ManifoldError("INVALID_INPUT", "the store was asked");
  };
  advance(900); // 1,700 ms after the first read, 900 after the one behind the lookup
  assert.equal(
    (await cached.byName(first.name)).map((e) => e.id).sort(),
    [first.id, second.id].sort(),
    "the answer read behind the lookup: the store's change, without asking the store now",
  );
  await settled(); // the read this lookup started behind it failed: nothing changes, nothing is thrown
  advance(200);
  try {
    await cached.byName(first.name);
    assert.unreachable("past freshMs the lookup reads the store itself");
  } catch (error) {
    assert.is((error as ManifoldError).code, "INVALID_INPUT");
  }
});

test("reading ahead keeps the cache's promises: a write through it is seen at once, and no answer older than freshMs is served", async () => {
  const { inner, cached, advance } = setup({ refreshAheadMs: 250 });
  const first = registration();
  await inner.register(first);
  await cached.byName(first.name);
  advance(800);
  const pending = cached.byName(first.name); // starts a read behind it
  const second = registration();
  await cached.register(second); // during that read: its answer must not be kept as fresh
  await pending;
  await settled();
  assert.equal((await cached.byName(first.name)).map((e) => e.id).sort(), [first.id, second.id].sort());
  inner.down = true;
  advance(1_000);
  const stale = await cached.byName(first.name); // the store is down: staleMs applies as before
  assert.is(stale.length, 2);
});

test.run();
