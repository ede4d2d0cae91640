/**
 * The user fact store contract: one suite, run against every adapter (user-facts-memory.test.ts,
 * user-facts-redis.test.ts, user-facts-cluster.test.ts). Each test gets a fresh, empty store, a
 * `replica` over the same data (a second connection on Redis, the same store in memory) and an
 * `advance(ms)` that moves the store's time (the memory adapter's clock; every key's TTL on Redis).
 * No case is skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Fact, FactStore } from "../../runtime/memory/index.js";
import { rejection } from "../support/errors.js";

export interface FactsUnderTest {
  readonly facts: FactStore;
  /** Another store over the same data, as a second replica would hold. */
  readonly replica: FactStore;
  /** Moves the store's time forward: what has lived past its TTL is gone afterwards. */
  advance(ms: number): Promise<void>;
}

export type FactStoreFactory = (options: { readonly maxFacts?: number; readonly ttlMs?: number }) => Promise<FactsUnderTest>;

const AT = "2030-01-01T00:00:00.000Z";

export function fact(key: string, value: string, extra: Partial<Fact> = {}): Fact {
  return { key, value, source: { session_id: "s-1", message_id: "m-1", request_id: "r-1" }, created_at: AT, updated_at: AT, ...extra };
}

export function userFactsCases(name: string, create: FactStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite(`user fact store contract (${name})`);
  test.after(teardown);

  test("a user with nothing: no facts, revision 0, no summary, not listed", async () => {
    const { facts } = await create({});
    assert.equal(await facts.list("alice"), []);
    assert.is(await facts.get("alice", "home_city"), undefined);
    assert.is(await facts.revision("alice"), 0);
    assert.is(await facts.summary("alice"), undefined);
    assert.equal(await facts.users(), { users: [], truncated: false });
    assert.is(await facts.delete("alice", "home_city"), false);
    assert.is(await facts.clear("alice"), 0);
  });

  test("facts are kept per user, listed by key, each write bumping the revision by one; a put replaces its key", async () => {
    const { facts, replica } = await create({});
    await facts.put("alice", fact("home_city", "Lisbon"));
    const first = await facts.revision("alice");
    assert.ok(first > 0);
    await facts.put("alice", fact("diet", "vegetarian"));
    await facts.put("bob", fact("home_city", "Oslo"));
    assert.is(await facts.revision("alice"), first + 1);
    assert.equal(
      (await replica.list("alice")).map((f) => [f.key, f.value]),
      [
        ["diet", "vegetarian"],
        ["home_city", "Lisbon"],
      ],
    );
    assert.equal(await replica.get("alice", "home_city"), fact("home_city", "Lisbon"));
    assert.equal(
      (await facts.list("bob")).map((f) => f.value),
      ["Oslo"],
    );
    const replaced = fact("home_city", "Porto", { previous: "Lisbon", updated_at: "2030-01-02T00:00:00.000Z" });
    await facts.put("alice", replaced);
    assert.equal(await facts.get("alice", "home_city"), replaced);
    assert.is((await facts.list("alice")).length, 2);
    assert.is(await facts.revision("alice"), first + 2);
    assert.equal([...(await facts.users()).users].sort(), ["alice", "bob"]);
  });

  test("any owner key works, braces and spaces included; owners never see each other's facts", async () => {
    const { facts } = await create({});
    for (const owner of ["agent:planner", "{tag} with spaces", "ünïcode-user"]) await facts.put(owner, fact("k", owner));
    assert.equal(await Promise.all(["agent:planner", "{tag} with spaces", "ünïcode-user"].map(async (o) => (await facts.list(o)).map((f) => f.value))), [
      ["agent:planner"],
      ["{tag} with spaces"],
      ["ünïcode-user"],
    ]);
  });

  test("delete removes a fact at once and bumps the revision; a second delete finds nothing and bumps nothing", async () => {
    const { facts, replica } = await create({});
    await facts.put("alice", fact("home_city", "Lisbon"));
    await facts.put("alice", fact("diet", "vegan"));
    const before = await facts.revision("alice");
    assert.is(await facts.delete("alice", "home_city"), true);
    assert.is(await replica.get("alice", "home_city"), undefined);
    assert.equal(
      (await replica.list("alice")).map((f) => f.key),
      ["diet"],
    );
    assert.is(await facts.revision("alice"), before + 1);
    assert.is(await replica.delete("alice", "home_city"), false);
    assert.is(await facts.delete("alice", "Not A Key"), false);
    assert.is(await facts.revision("alice"), before + 1);
  });

  test("clear removes every fact and the summary, says how many, and moves the revision on (never back to an old one)", async () => {
    const { facts } = await create({});
    await facts.put("alice", fact("a", "1"));
    await facts.put("alice", fact("b", "2"));
    const revision = await facts.revision("alice");
    await facts.setSummary("alice", { text: "Likes numbers.", revision, updated_at: AT });
    assert.is(await facts.clear("alice"), 2);
    assert.equal(await facts.list("alice"), []);
    assert.is(await facts.summary("alice"), undefined);
    const cleared = await facts.revision("alice");
    assert.ok(cleared > revision, `${cleared} > ${revision}`);
    await facts.put("alice", fact("a", "other"));
    assert.ok((await facts.revision("alice")) > cleared);
    assert.equal((await facts.users()).users, ["alice"]);
    await facts.clear("alice");
    assert.equal((await facts.users()).users, []);
  });

  test("a summary is kept with the revision it was made from; none is kept for a user without facts", async () => {
    const { facts, replica } = await create({});
    await facts.setSummary("nobody", { text: "Nothing.", revision: 1, updated_at: AT });
    assert.is(await facts.summary("nobody"), undefined);
    await facts.put("alice", fact("home_city", "Lisbon"));
    const revision = await facts.revision("alice");
    await facts.setSummary("alice", { text: "Lives in Lisbon.", revision, updated_at: AT });
    assert.equal(await replica.summary("alice"), { text: "Lives in Lisbon.", revision, updated_at: AT });
    await facts.put("alice", fact("diet", "vegan"));
    assert.is((await facts.summary("alice"))!.revision, revision, "stale once the facts moved on; the caller compares");
    await replica.setSummary("alice", { text: "Lives in Lisbon, eats meat.", revision, updated_at: AT });
    assert.is((await facts.summary("alice"))!.text, "Lives in Lisbon.", "one made from facts that have moved on is not kept");
    assert.is((await rejection(facts.setSummary("alice", { text: "x".repeat(601), revision, updated_at: AT }))).code, "INVALID_INPUT");
  });

  test("deleting a fact deletes the summary that may quote it; the other facts stay", async () => {
    const { facts, replica } = await create({});
    await facts.put("alice", fact("home_city", "Lisbon"));
    await facts.put("alice", fact("diet", "vegan"));
    await facts.setSummary("alice", { text: "A vegan in Lisbon.", revision: await facts.revision("alice"), updated_at: AT });
    assert.is(await replica.delete("alice", "home_city"), true);
    assert.is(await facts.summary("alice"), undefined);
    assert.equal(
      (await facts.list("alice")).map((f) => f.key),
      ["diet"],
    );
  });

  test("keys and values out of bounds are INVALID_INPUT and store nothing", async () => {
    const { facts } = await create({});
    for (const bad of [fact("Home City", "x"), fact("1st", "x"), fact(`k${"a".repeat(64)}`, "x"), fact("ok", ""), fact("ok", "v".repeat(501))]) {
      const error = await rejection(facts.put("alice", bad));
      assert.is(error.code, "INVALID_INPUT");
      assert.not.match(error.message, /v{20}/, "the value is never quoted");
    }
    await facts.put("alice", fact("ok", "é".repeat(500)));
    assert.is((await facts.list("alice")).length, 1);
  });

  test("past the per-user count a new key is LIMIT_EXCEEDED; replacing a kept key still works; a delete makes room", async () => {
    const { facts } = await create({ maxFacts: 3 });
    for (const key of ["a", "b", "c"]) await facts.put("alice", fact(key, key));
    const revision = await facts.revision("alice");
    assert.is((await rejection(facts.put("alice", fact("d", "d")))).code, "LIMIT_EXCEEDED");
    assert.is(await facts.revision("alice"), revision, "a refused put changes nothing");
    await facts.put("alice", fact("a", "again"));
    await facts.put("bob", fact("d", "d"));
    await facts.delete("alice", "b");
    await facts.put("alice", fact("d", "d"));
    assert.equal(
      (await facts.list("alice")).map((f) => f.key),
      ["a", "c", "d"],
    );
  });

  test("two concurrent puts of one key leave one whole fact and a revision bumped twice", async () => {
    const { facts, replica } = await create({});
    await facts.put("alice", fact("home_city", "Lisbon"));
    for (let round = 0; round < 20; round++) {
      const before = await facts.revision("alice");
      const [a, b] = [fact("home_city", `Porto ${round}`, { previous: "x" }), fact("home_city", `Braga ${round}`)];
      await Promise.all([facts.put("alice", a), replica.put("alice", b)]);
      const kept = await facts.get("alice", "home_city");
      assert.ok(JSON.stringify(kept) === JSON.stringify(a) || JSON.stringify(kept) === JSON.stringify(b), JSON.stringify(kept));
      assert.is(await facts.revision("alice"), before + 2);
      assert.is((await facts.list("alice")).length, 1);
    }
  });

  test("a delete racing a put: the fact is either gone or the put's, the count stays right (the limit holds exactly)", async () => {
    const { facts, replica } = await create({ maxFacts: 4 });
    for (let round = 0; round < 20; round++) {
      await facts.put("alice", fact("home_city", "Lisbon"));
      const before = await facts.revision("alice");
      const [deleted] = await Promise.all([facts.delete("alice", "home_city"), replica.put("alice", fact("home_city", `Porto ${round}`))]);
      assert.ok(deleted, "the fact was there for the delete, before or after the put");
      const kept = await facts.get("alice", "home_city");
      assert.ok(kept === undefined || kept.value === `Porto ${round}`);
      assert.is(await facts.revision("alice"), before + 2);
    }
    await facts.put("alice", fact("home_city", "Lisbon"));
    for (const key of ["a", "b", "c"]) await facts.put("alice", fact(key, key));
    assert.is((await rejection(facts.put("alice", fact("e", "e")))).code, "LIMIT_EXCEEDED", "four facts, counted once each");
  });

  test("a user's facts expire a TTL after their last write; each write refreshes it; users() lists only users with facts", async () => {
    const { facts, advance } = await create({ ttlMs: 60_000 });
    await facts.put("kept", fact("a", "1"));
    await facts.put("lapsed", fact("a", "1"));
    await advance(40_000);
    await facts.put("kept", fact("b", "2"));
    await advance(30_000);
    assert.equal(
      (await facts.list("kept")).map((f) => f.key),
      ["a", "b"],
      "the write refreshed the user's TTL",
    );
    assert.equal(await facts.list("lapsed"), []);
    assert.is(await facts.revision("lapsed"), 0);
    assert.equal(await facts.users(), { users: ["kept"], truncated: false });
  });

  test("users() is bounded: truncated when there are more", async () => {
    const { facts } = await create({});
    for (let i = 0; i < 5; i++) await facts.put(`u${i}`, fact("a", "1"));
    const page = await facts.users(3);
    assert.is(page.users.length, 3);
    assert.is(page.truncated, true);
    assert.equal((await facts.users(5)).truncated, false);
  });

  test.run();
}
