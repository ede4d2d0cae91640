/**
 * Step results trimmed to a byte budget before synthesis: small results pass untouched, large ones
 * are cut structurally with each cut marked, and the last resort cuts bytes on a character boundary.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { trimResults } from "../../runtime/orchestration/index.js";

test("results within the budget are the JSON text, untouched", () => {
  const result = trimResults({ s1: { output: { city: "Paris" } } }, 1024);
  assert.equal([result.method, result.content_lost, result.original_bytes === result.trimmed_bytes], ["none", false, true]);
  assert.equal(JSON.parse(result.text), { s1: { output: { city: "Paris" } } });
});

test("long strings and arrays are cut structurally, each cut marked in place, and the text fits", () => {
  const big = { s1: { output: { text: "x".repeat(5000), items: Array.from({ length: 300 }, (_, i) => ({ id: i })) } } };
  const result = trimResults(big, 4096);
  assert.is(result.method, "structural");
  assert.is(result.content_lost, true);
  assert.ok(result.trimmed_bytes <= 4096, String(result.trimmed_bytes));
  assert.ok(result.original_bytes > 10_000);
  const parsed = JSON.parse(result.text) as { s1: { output: { text: string; items: unknown[] } } };
  assert.match(parsed.s1.output.text, /…\(\d+ more characters\)$/);
  assert.match(String(parsed.s1.output.items.at(-1)), /…\(\d+ more items\)/);
  assert.ok(result.fields_dropped > 0 && result.fields_kept > 0);
});

test("when no structural level fits, bytes are cut on a character boundary", () => {
  const wide = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`key_${i}`, "é€"]));
  const result = trimResults(wide, 300);
  assert.is(result.method, "bytes");
  assert.ok(result.text.endsWith("…(truncated)"));
  assert.not.ok(result.text.includes("\uFFFD"), "no broken character");
  assert.ok(Buffer.byteLength(result.text) <= 300 + Buffer.byteLength("…(truncated)"));
});

test.run();
