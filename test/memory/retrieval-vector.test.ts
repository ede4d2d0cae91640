/**
 * The in-process vector index: cosine similarity over unit vectors, best first, and its bounds: a
 * scope past its vector count drops its oldest vectors, and past the scope or byte bound the least
 * recently used scope (read or written) goes whole, with a log line and a word to its owner.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryVectorIndex } from "../../runtime/memory/retrieval/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";

const ids = (ranked: readonly { id: string }[]): string[] => ranked.map((r) => r.id);
const unit = (...v: number[]): number[] => v.map((x) => x / Math.hypot(...v));

function logged(): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ write: (line) => lines.push(line), level: "debug", pretty: false, env: {} }) };
}

test("nearest first by cosine; equal scores by id; an unknown scope has nothing", async () => {
  const index = createMemoryVectorIndex();
  assert.is(index.kind, "memory");
  await index.upsert("u1", "east", unit(1, 0));
  await index.upsert("u1", "north", unit(0, 1));
  await index.upsert("u1", "northeast", unit(1, 1));
  await index.upsert("u1", "also-east", unit(1, 0));
  const ranked = await index.query("u1", unit(1, 0.2), 10);
  assert.equal(ids(ranked), ["also-east", "east", "northeast", "north"]);
  assert.ok(Math.abs(ranked[0]!.score - unit(1, 0.2)[0]!) < 1e-6, "the score is the cosine");
  assert.equal(ids(await index.query("u1", unit(1, 0.2), 2)), ["also-east", "east"]);
  assert.equal(await index.query("u2", unit(1, 0), 10), []);
  await index.close();
});

test("vectors of another size than the scope's are refused; so are non-numbers", async () => {
  const index = createMemoryVectorIndex();
  await index.upsert("u1", "a", unit(1, 0));
  try {
    await index.upsert("u1", "b", unit(1, 0, 0));
    assert.unreachable();
  } catch (error) {
    assert.instance(error, RangeError);
    assert.match((error as Error).message, /3 dimensions in a scope of 2/);
  }
  for (const bad of [[], [Number.NaN, 1]]) {
    try {
      await index.upsert("u1", "c", bad);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, RangeError);
    }
  }
  // Another scope keeps its own size.
  await index.upsert("u2", "b", unit(1, 0, 0));
  assert.equal(ids(await index.query("u2", unit(1, 0, 0), 5)), ["b"]);
});

test("remove and clear take vectors out at once", async () => {
  const index = createMemoryVectorIndex();
  await index.upsert("u1", "a", unit(1, 0));
  await index.upsert("u1", "b", unit(1, 1));
  await index.remove("u1", "a");
  assert.equal(ids(await index.query("u1", unit(1, 0), 5)), ["b"]);
  await index.clear("u1");
  assert.equal(await index.query("u1", unit(1, 0), 5), []);
});

test("a scope past maxVectorsPerScope drops its oldest vectors (a rewritten one counts as new)", async () => {
  const { lines, log } = logged();
  const index = createMemoryVectorIndex({ maxVectorsPerScope: 3, log });
  for (const id of ["a", "b", "c"]) await index.upsert("u1", id, unit(1, 0));
  await index.upsert("u1", "a", unit(1, 0));
  await index.upsert("u1", "d", unit(1, 0));
  assert.equal(ids(await index.query("u1", unit(1, 0), 10)), ["a", "c", "d"]);
  assert.ok(lines.some((line) => line.includes("oldest vectors were dropped")));
});

test("past maxScopes the least recently used scope goes whole (a query counts as use), and its owner is told", async () => {
  const { lines, log } = logged();
  const dropped: string[] = [];
  const index = createMemoryVectorIndex({ maxScopes: 2, log, onDrop: (scope) => dropped.push(scope) });
  await index.upsert("u1", "a", unit(1, 0));
  await index.upsert("u2", "a", unit(1, 0));
  await index.query("u1", unit(1, 0), 1);
  await index.upsert("u3", "a", unit(1, 0));
  assert.equal(dropped, ["u2"]);
  assert.equal(await index.query("u2", unit(1, 0), 1), []);
  assert.equal(ids(await index.query("u1", unit(1, 0), 1)), ["a"]);
  assert.equal(ids(await index.query("u3", unit(1, 0), 1)), ["a"]);
  assert.ok(lines.some((line) => line.includes("least recently used scope")));
  assert.not.ok(
    lines.some((line) => line.includes("u2")),
    "scope names (user ids) stay out of the log",
  );
});

test("past maxBytes the least recently used scopes go; the scope being written is spared while another can go", async () => {
  const dropped: string[] = [];
  // Each 256-dimension vector with a 1-character id costs 4 × 256 + 2 + 64 = 1090 bytes.
  const index = createMemoryVectorIndex({ maxBytes: 3 * 1090, onDrop: (scope) => dropped.push(scope) });
  const v = unit(...Array.from({ length: 256 }, (_, i) => i + 1));
  await index.upsert("u1", "a", v);
  await index.upsert("u2", "a", v);
  await index.upsert("u3", "a", v);
  assert.equal(dropped, []);
  await index.upsert("u3", "b", v);
  assert.equal(dropped, ["u1"]);
  await index.upsert("u3", "c", v);
  assert.equal(dropped, ["u1", "u2"]);
  await index.upsert("u3", "d", v);
  // Alone and still past the bound: its own oldest vector goes.
  assert.equal(ids(await index.query("u3", v, 10)), ["b", "c", "d"]);
  try {
    await createMemoryVectorIndex({ maxBytes: 100 }).upsert("u", "a", v);
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /larger than the index's byte bound/);
  }
});

test.run();
