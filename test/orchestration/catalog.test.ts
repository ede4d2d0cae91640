/**
 * The live catalog keeps one wire object per spec capability: what is compiled from a capability's
 * schema (the binding check's and recovery's validators, keyed by that object) is compiled once for
 * the process, not once per natural request. And while neither the specs nor the registrations
 * changed, every request gets the same catalog (not a rebuild), across the catalog cache's refreshes
 * of a Redis registry too; a change, a removal or a health change shows at the next read.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryRegistry, createRegistry, type ComponentRegistration } from "../../runtime/discovery/index.js";
import { withoutLastingEffects } from "../../runtime/orchestration/catalog.js";
import { readCatalog } from "../../runtime/orchestration/index.js";
import { sameCatalog } from "../../runtime/orchestration/natural/plan-check.js";
import type { CapabilityWire } from "../../runtime/spec/wire.js";
import { createStore } from "../../runtime/store/index.js";
import { createManualClock } from "../support/clock.js";
import { startRedisServer } from "../support/redis.js";
import { capability } from "./support.js";

const redis = await startRedisServer();

const wire = (name: string, extra: Partial<CapabilityWire> = {}): CapabilityWire => ({
  name,
  description: `does ${name}`,
  endpoint: `/api/capabilities/${name}`,
  type: "tool",
  internal: false,
  ...extra,
});

const component = (name: string, caps: readonly CapabilityWire[] = [wire("lookup")], rest: Partial<ComponentRegistration> = {}): ComponentRegistration => ({
  id: `${name}-1`,
  name,
  type: "tool",
  description: `the ${name}`,
  address: "127.0.0.1",
  port: 9000,
  metadata: {},
  capabilities: caps,
  health: "healthy",
  ...rest,
});

const names = (catalog: readonly { name: string; capabilities: readonly { name: string }[] }[]) =>
  catalog.map((c) => `${c.name}:${c.capabilities.map((w) => w.name).join(",")}`);

test("reading the catalog twice hands out the same capability objects for the same specs", async () => {
  const spec = {
    kind: "tool" as const,
    name: "adder",
    description: "adds",
    version: "1.0.0",
    capabilities: [capability("add", { required: [{ name: "a", type: "number" as const }], optional: [] })],
  };
  const [first] = await readCatalog(false, [spec]);
  const [second] = await readCatalog(false, [spec]);
  assert.ok(first!.capabilities[0] === second!.capabilities[0], "one wire object per spec capability");
  assert.equal(
    first!.capabilities[0]!.input_summary?.required_fields.map((f) => f.name),
    ["a"],
  );
});

test("the plan check's checker is kept while the catalog is the same objects, and rebuilt when a capability changes", async () => {
  const spec = (name: string) => ({
    kind: "tool" as const,
    name,
    description: "adds",
    version: "1.0.0",
    capabilities: [capability("add", { required: [{ name: "a", type: "number" as const }], optional: [] })],
  });
  const adder = spec("adder");
  assert.ok(sameCatalog(await readCatalog(false, [adder]), await readCatalog(false, [adder])), "two reads of the same specs");
  assert.not.ok(sameCatalog(await readCatalog(false, [adder]), await readCatalog(false, [spec("adder")])), "a new spec object is a new catalog");
  assert.not.ok(sameCatalog(await readCatalog(false, [adder]), await readCatalog(false, [adder, spec("other")])), "one more component");
});

test("the same registrations give the same catalog object; a change, a removal or an unhealthy beat shows at the next read", async () => {
  let now = 1_000_000;
  const registry = createMemoryRegistry({ now: () => now });
  for (const name of ["geo", "weather", "news"]) await registry.register(component(name), { ttlMs: 60_000 });
  const first = await readCatalog(registry);
  assert.ok((await readCatalog(registry)) === first, "nothing changed: the same catalog");
  now += 1_000;
  await registry.register(component("geo"), { ttlMs: 60_000 }); // a heartbeat: same record, new beat
  assert.ok((await readCatalog(registry)) === first, "a heartbeat changes nothing the catalog holds");
  assert.throws(() => (first as unknown[]).push({}), TypeError, "shared, so frozen");

  await registry.register(component("geo", [wire("lookup"), wire("reverse")]), { ttlMs: 60_000 });
  const changed = await readCatalog(registry);
  assert.ok(changed !== first);
  assert.equal(names(changed), ["geo:lookup,reverse", "news:lookup", "weather:lookup"]);
  assert.ok(changed[2]!.capabilities[0] === first[2]!.capabilities[0], "an unchanged registration keeps its capability objects");

  await registry.unregister("news-1");
  await registry.register(component("weather", [wire("lookup")], { health: "unhealthy" }), { ttlMs: 60_000 });
  assert.equal(names(await readCatalog(registry)), ["geo:lookup,reverse"]);
});

test("a Redis registry behind its catalog cache: a refresh with nothing changed keeps the catalog; a change shows at the next refresh", async () => {
  const clock = createManualClock();
  const store = createStore({ env: { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "catalog-identity" }, log: () => undefined });
  const writer = createRegistry({ store, env: {}, cache: false });
  const registry = createRegistry({ store, env: {}, cache: { freshMs: 1_000, now: clock.now } });
  try {
    for (const name of ["geo", "weather"]) await writer.register(component(name), { ttlMs: 60_000 });
    const first = await readCatalog(registry);
    await clock.advance(1_500); // the cache asks Redis again
    assert.ok((await readCatalog(registry)) === first, "the refresh read the same records: the same catalog");

    await writer.register(component("weather", [wire("forecast")]), { ttlMs: 60_000 });
    assert.ok((await readCatalog(registry)) === first, "still fresh: the cached answer");
    await clock.advance(1_500);
    const refreshed = await readCatalog(registry);
    assert.equal(names(refreshed), ["geo:lookup", "weather:forecast"]);
    assert.ok(refreshed[0]!.capabilities[0] === first[0]!.capabilities[0], "the unchanged component keeps its capability objects");

    await writer.unregister("geo-1");
    await clock.advance(1_500);
    assert.equal(names(await readCatalog(registry)), ["weather:forecast"]);
  } finally {
    await store.close();
  }
});

test("the planner's catalog: the same catalog and option give the same view; a lasting capability is left out unless allowed", async () => {
  const registry = createMemoryRegistry();
  await registry.register(component("calendar", [wire("list"), wire("schedule", { effects: "lasting" })]));
  await registry.register(component("geo"));
  const catalog = await readCatalog(registry);
  const allow = ["calendar.schedule"];
  const view = withoutLastingEffects(catalog, undefined);
  assert.ok(withoutLastingEffects(catalog, undefined) === view, "the same view for the same catalog");
  assert.equal(names(view), ["calendar:list", "geo:lookup"]);
  assert.ok(view[1] === catalog[1], "a component with nothing left out is the catalog's own");
  assert.equal(names(withoutLastingEffects(catalog, allow)), ["calendar:list,schedule", "geo:lookup"]);
  const allowed = withoutLastingEffects(catalog, allow);
  assert.ok(withoutLastingEffects(catalog, allow) === allowed, "the same view for the same catalog and option");
  assert.equal(names(withoutLastingEffects(catalog, true)), ["calendar:list,schedule", "geo:lookup"]);
});

test.after(() => redis.close());

test.run();
