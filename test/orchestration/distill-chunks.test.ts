/**
 * How a result is cut for distillation, by its shape: the strategy the spec names (`array`,
 * `wrapper`, `lines`, `bytes`), every chunk within the prompt room (escaping counted), as few chunks
 * as the room allows, and nothing left out (the fields around the bulk are read first).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { chunkResult, promptWeight, splitBytes } from "../../runtime/orchestration/natural/distill-chunks.js";
import { rowsOf } from "./distill-support.js";

const ROOM = 20_000;
const idsIn = (texts: readonly string[]): number[] => texts.flatMap((t) => [...t.matchAll(/"id":(\d+)/g)].map((m) => Number(m[1])));

test("a top-level array and an object whose one big field is an array are split by items: array", () => {
  const rows = rowsOf(1000, 50);
  for (const value of [rows, { total: 1000, rows }]) {
    const { strategy, chunks, json } = chunkResult(value, ROOM);
    assert.is(strategy, "array");
    assert.ok(json);
    assert.equal(
      idsIn(chunks.map((c) => c.text)),
      rows.map((r) => r.id),
      "every item once, in order",
    );
    assert.ok(chunks.every((c) => promptWeight(c.text) <= ROOM));
    const bytes = Buffer.byteLength(JSON.stringify(value));
    assert.ok(chunks.length <= Math.ceil((bytes * 1.05) / ROOM) + 1, `${chunks.length} chunks for ${bytes} bytes`);
  }
  const { chunks } = chunkResult({ total: 1000, rows }, ROOM);
  assert.match(chunks[0]!.label, /^the fields around the bulk, then items 1–\d+ of 1000$/);
  assert.match(chunks[0]!.text, /^"total": 1000\n/, "the envelope is read, first");
});

test("an object wrapping its bulk deeper, or of many fields, is split by that bulk: wrapper, with the envelope as context", () => {
  const wrapped = chunkResult({ data: { page: 2, rows: rowsOf(600, 50) } }, ROOM);
  assert.is(wrapped.strategy, "wrapper");
  assert.is(wrapped.context, '{"data.page":2}');
  assert.is(idsIn(wrapped.chunks.map((c) => c.text)).length, 600);
  const fields = chunkResult(Object.fromEntries(rowsOf(600, 50).map((r) => [`r${r.id}`, r])), ROOM);
  assert.is(fields.strategy, "wrapper");
  assert.match(fields.chunks[0]!.label, /^fields 1–\d+ of 600$/);
});

test("text is split at newlines (lines), a long line in bytes on character boundaries (bytes), nothing lost", () => {
  const text = Array.from({ length: 3000 }, (_, i) => `line ${i} é`).join("\n");
  const lines = chunkResult({ log: text }, ROOM);
  assert.is(lines.strategy, "lines");
  assert.not.ok(lines.json);
  assert.is(lines.chunks.map((c) => c.text).join("\n"), text);
  const long = "é€x".repeat(20_000);
  const bytes = chunkResult(long, ROOM);
  assert.is(bytes.strategy, "bytes");
  assert.is(bytes.chunks.map((c) => c.text).join(""), long, "cut between characters, joined back whole");
  assert.ok(bytes.chunks.every((c) => promptWeight(c.text) <= ROOM && !c.text.includes("\uFFFD")));
});

test("an item bigger than a chunk is cut in bytes across chunks; escaping is counted against the room", () => {
  const value = [{ id: 0, blob: "<".repeat(30_000) }, { id: 1 }];
  const { chunks } = chunkResult(value, ROOM);
  assert.ok(chunks.length >= 2);
  assert.ok(chunks.every((c) => promptWeight(c.text) <= ROOM));
  assert.is(
    chunks
      .map((c) => c.text)
      .join("")
      .replace('\n{"id":1}', ""),
    JSON.stringify(value[0]),
  );
  assert.equal(splitBytes("aéé", 4), ["aé", "é"], "4 bytes would cut the second é: 3");
});

test.run();
