/**
 * The lexical index memory recalls with: BM25 over stemmed, accent-folded words without stop words,
 * updated one document at a time (a removed document is really gone), best first with a stable order
 * among equals, only positive scores, and each document's terms bounded.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createTextIndex, stem, tokenize } from "../../runtime/memory/retrieval/index.js";

const ids = (ranked: readonly { id: string }[]): string[] => ranked.map((r) => r.id);

test("word forms meet: pack, packs, packing and packed are one term", () => {
  assert.equal(new Set(["pack", "packs", "packing", "packed"].map(stem)), new Set(["pack"]));
  assert.equal(stem("running"), "run");
  assert.equal(stem("falling"), "fall");
  assert.equal(stem("cities"), "city");
  assert.equal(stem("hoping"), stem("hope"));
  const index = createTextIndex();
  index.upsert({ id: "f1", text: "Prefers packing light for business trips" });
  index.upsert({ id: "f2", text: "Allergic to peanuts" });
  assert.equal(ids(index.search("what should I pack?", 5)), ["f1"]);
});

test("accents and case fold: café, CAFE and Café are the same word", () => {
  assert.equal(tokenize("Café CAFE cafe\u0301 İstanbul"), ["caf", "caf", "caf", "istanbul"]);
  const index = createTextIndex();
  index.upsert({ id: "a", text: "Meets clients at the Café de Flore" });
  index.upsert({ id: "b", text: "Works from home on Fridays" });
  assert.equal(ids(index.search("cafe", 5)), ["a"]);
});

test("stop words alone match nothing; an empty or all-stop-word query returns nothing", () => {
  const index = createTextIndex();
  index.upsert({ id: "a", text: "the cat is on the mat" });
  assert.equal(tokenize("what is the"), []);
  assert.equal(index.search("what is the", 5), []);
  assert.equal(index.search("", 5), []);
  assert.equal(index.search("   ?! ", 5), []);
  assert.equal(index.search("cat", 0), []);
});

test("BM25 ranks the rarer term and the shorter document higher; scores are positive, best first", () => {
  const index = createTextIndex();
  index.upsert({ id: "common", text: "flight booked" });
  index.upsert({ id: "rare", text: "flight to Lisbon" });
  index.upsert({ id: "long", text: "flight to Lisbon with a long layover in Madrid and a late dinner at the airport" });
  index.upsert({ id: "other", text: "flight cancelled" });
  const ranked = index.search("Lisbon flight", 10);
  assert.equal(ids(ranked), ["rare", "long", "common", "other"]);
  assert.ok(ranked.every((r) => r.score > 0));
  for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i - 1]!.score >= ranked[i]!.score);
  assert.equal(ids(index.search("Lisbon flight", 2)), ["rare", "long"]);
});

test("equal scores come out by id, whatever the insertion order", () => {
  for (const order of [
    ["c", "a", "b"],
    ["b", "c", "a"],
  ]) {
    const index = createTextIndex();
    for (const id of order) index.upsert({ id, text: "window seat" });
    assert.equal(ids(index.search("window", 10)), ["a", "b", "c"]);
    assert.equal(ids(index.search("window", 2)), ["a", "b"]);
  }
});

test("upsert replaces a document's text; remove really removes it (terms, size, ranking)", () => {
  const index = createTextIndex();
  index.upsert({ id: "a", text: "likes tea" });
  index.upsert({ id: "b", text: "likes coffee" });
  assert.equal(index.size, 2);
  index.upsert({ id: "a", text: "likes green juice" });
  assert.equal(index.size, 2);
  assert.equal(index.search("tea", 5), []);
  assert.equal(ids(index.search("juice", 5)), ["a"]);
  index.remove("b");
  index.remove("missing");
  assert.equal(index.size, 1);
  assert.equal(index.search("coffee", 5), []);
  assert.equal(ids(index.search("likes", 5)), ["a"]);
  index.remove("a");
  assert.equal(index.size, 0);
  assert.equal(index.search("likes", 5), []);
});

test("a long document is indexed up to its term cap: words past it do not match", () => {
  const index = createTextIndex({ maxTokensPerDoc: 8 });
  index.upsert({ id: "long", text: `${"filler ".repeat(20)}needle` });
  index.upsert({ id: "short", text: "needle in a haystack" });
  assert.equal(ids(index.search("needle", 5)), ["short"]);
  assert.equal(ids(index.search("filler", 5)), ["long"]);
  assert.throws(() => createTextIndex({ maxTokensPerDoc: 0 }), /maxTokensPerDoc/);
});

test("digits are words too, kept as written", () => {
  const index = createTextIndex();
  index.upsert({ id: "a", text: "Frequent flyer number 4417" });
  index.upsert({ id: "b", text: "Seat 12A preferred" });
  assert.equal(ids(index.search("4417", 5)), ["a"]);
  assert.equal(ids(index.search("12a", 5)), ["b"]);
});

test.run();
