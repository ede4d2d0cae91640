/**
 * The compact catalog index stays cheap (issue 28 item 2): built once per catalog version, from the
 * real readCatalog over specs and over a registry behind the catalog cache. Repeated requests over an
 * unchanged catalog build nothing (the same index object, no entry built); a registration changes
 * the version and the index is built again.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryRegistry, withCatalogCache, type ComponentRegistration } from "../../runtime/discovery/index.js";
import { readCatalog } from "../../runtime/orchestration/catalog.js";
import { createCatalogIndexer, fitIndex, rankByRelevance } from "../../runtime/orchestration/natural/catalog-index.js";
import { capabilityWire } from "../../runtime/spec/index.js";
import { manyComponents } from "./selection-support.js";

test("over the same specs, every request after the first builds nothing", async () => {
  const specs = manyComponents(100);
  const indexer = createCatalogIndexer();
  const first = indexer(await readCatalog(false, specs));
  assert.equal(indexer.built, { indexes: 1, entries: 1_000 });
  for (let i = 0; i < 5; i += 1) assert.is(indexer(await readCatalog(false, specs)), first, "the same index object");
  assert.equal(indexer.built, { indexes: 1, entries: 1_000 });
  assert.is(first.entries.length, 1_000);
  assert.is(
    first.byKey.get("geo-svc-1.search_geo_records")!.line,
    "geo-svc-1.search_geo_records — Search geo records of region 1 by a free-text query. [tool]",
  );
});

const registration = (n: number): ComponentRegistration => {
  const [spec] = manyComponents(n + 1).slice(n);
  return {
    id: `${spec!.name}-0000000${n % 10}`,
    name: spec!.name,
    type: "tool",
    description: spec!.description,
    address: "127.0.0.1",
    port: 10_000 + n,
    metadata: {},
    capabilities: spec!.capabilities.map(capabilityWire),
    health: "healthy",
  };
};

test("over a registry behind the catalog cache, nothing is rebuilt while the catalog is fresh; a registration is a new version", async () => {
  let now = 1_000_000;
  const store = createMemoryRegistry({ now: () => now });
  const registry = withCatalogCache(store, { now: () => now, freshMs: 1_000 });
  for (let n = 0; n < 20; n += 1) await registry.register(registration(n));
  const indexer = createCatalogIndexer();
  const first = indexer(await readCatalog(registry));
  assert.equal(indexer.built, { indexes: 1, entries: 200 });
  now += 500;
  assert.is(indexer(await readCatalog(registry)), first, "a fresh catalog: the same index");
  assert.equal(indexer.built, { indexes: 1, entries: 200 });
  await registry.register(registration(20));
  const second = indexer(await readCatalog(registry));
  assert.is.not(second, first);
  assert.is(second.entries.length, 210);
  assert.is(indexer.built.indexes, 2);
  assert.ok(second.byKey.has("hotels-svc-19.export_hotels_records") && second.byKey.has("weather-svc-20.lookup_weather_records"));
});

test("internal capabilities are not in the index; relevance puts a capability's own name first, numbers aside", async () => {
  const [tool] = manyComponents(1);
  const internal = { ...tool!.capabilities[0]!, name: "secret_weather", internal: true };
  const indexer = createCatalogIndexer();
  const index = indexer(await readCatalog(false, [{ ...tool!, capabilities: [...tool!.capabilities, internal] }]));
  assert.not.ok(index.byKey.has("weather-svc-0.secret_weather"));
  assert.equal(
    rankByRelevance(index, "convert 20 records", 1).map((e) => e.key),
    ["weather-svc-0.convert_weather_records"],
  );
  const cut = fitIndex(index, "summarize the weather", 200);
  assert.is(cut.shown, 1);
  assert.match(cut.text, /^weather-svc-0\.summarize_weather_records — [^\n]+$/);
  const two = fitIndex(index, "summarize the weather", 250);
  assert.is(two.shown, 2);
  assert.ok(Buffer.byteLength(two.text) <= 250);
  assert.match(two.text, /\nweather-svc-0\.summarize_weather_records — /, "kept in catalog order");
});

test.run();
