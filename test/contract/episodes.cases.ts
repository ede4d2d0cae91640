/**
 * The episode store contract: one suite, run against every adapter (episodes-memory.test.ts,
 * episodes-redis.test.ts, episodes-cluster.test.ts). Each test gets a fresh, empty domain (a new
 * namespace on Redis). `replica()` is another agent on the same data: a second connection on Redis,
 * the same store in memory (whose concurrency is calls interleaving in one process). No case is
 * skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isManifoldError } from "../../runtime/errors/index.js";
import { newRecordId, type Episode, type EpisodeStore, type KnowledgeFragment } from "../../runtime/memory/episodic/index.js";

export interface EpisodesUnderTest {
  readonly episodes: EpisodeStore;
  /** Another store over the same domain, as a second replica would hold. */
  replica(): Promise<EpisodeStore>;
}
export interface EpisodeFactoryOptions {
  readonly maxEpisodes?: number;
  readonly clock?: () => number;
}
export type EpisodeStoreFactory = (options: EpisodeFactoryOptions) => Promise<EpisodesUnderTest>;

export const DOMAIN = "travel";
const BASE = Date.parse("2030-06-01T00:00:00.000Z");
const iso = (ms: number): string => new Date(ms).toISOString();

/** An episode created `minutes` after BASE, with every optional field set unless overridden. */
export function episodeAt(minutes: number, more: Partial<Episode> = {}): Episode {
  const ms = BASE + minutes * 60_000;
  return {
    id: newRecordId(ms),
    domain: DOMAIN,
    request_id: `req-${minutes}`,
    user: "user:alice",
    status: "completed",
    entities: ["destination:lisbon"],
    events: [
      { kind: "request", text: "Plan a weekend in Lisbon" },
      { kind: "step", capability: "weather-service.get_forecast", status: "completed", text: '{"summary":"sunny"}' },
      { kind: "answer", text: "Sunny: pack light." },
    ],
    summary: `Run ${minutes}: forecast for Lisbon was sunny.`,
    summary_outcome: "complete",
    created_at: iso(ms),
    ...more,
  };
}

function fragmentOf(entity: string, episodes: readonly Episode[], passId: string, minutes: number): KnowledgeFragment {
  const ms = BASE + minutes * 60_000;
  return {
    id: newRecordId(ms),
    domain: DOMAIN,
    entity,
    text: `What is known about ${entity}.`,
    episode_ids: episodes.map((e) => e.id),
    pass_id: passId,
    created_at: iso(ms),
  };
}

async function invalidInput(what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
    assert.unreachable(what);
  } catch (error) {
    assert.ok(isManifoldError(error) && error.code === "INVALID_INPUT", `${what}: ${String(error)}`);
  }
}

const ids = (list: readonly { id: string }[]): string[] => list.map((e) => e.id);

export function episodeStoreCases(name: string, factory: EpisodeStoreFactory, after?: () => Promise<void>): void {
  const test = suite(`episode store contract (${name})`);
  const opened: EpisodeStore[] = [];
  const open = async (options: EpisodeFactoryOptions = {}): Promise<EpisodesUnderTest> => {
    const made = await factory(options);
    opened.push(made.episodes);
    return made;
  };
  test.after.each(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  if (after !== undefined) test.after(after);

  test("an episode comes back as it went in; an id appended twice is kept once", async () => {
    const { episodes } = await open();
    const full = episodeAt(1);
    const bare = episodeAt(2, { entities: [], events: [], summary: "", summary_outcome: "llm_unavailable" });
    const { request_id: _r, user: _u, ...withoutOptional } = bare;
    await episodes.append(full);
    await episodes.append(withoutOptional);
    await episodes.append({ ...full, summary: "a second append of the same id" });
    assert.equal(await episodes.get(full.id), full);
    assert.equal(await episodes.get(bare.id), withoutOptional);
    assert.is(await episodes.get(newRecordId(BASE)), undefined);
    assert.is(await episodes.get("not-an-id"), undefined);
    assert.equal(ids(await episodes.recent({ limit: 10 })), [bare.id, full.id]);
  });

  test("recent: newest first within the limit, only those newer than `after`, or only those about an entity", async () => {
    const { episodes } = await open();
    const list = [
      episodeAt(1, { entities: ["destination:lisbon"] }),
      episodeAt(2, { entities: ["destination:kyoto"] }),
      episodeAt(3, { entities: ["destination:lisbon", "traveller:bob"] }),
      episodeAt(4, { entities: [] }),
    ];
    for (const e of [list[2]!, list[0]!, list[3]!, list[1]!]) await episodes.append(e);
    const [a, b, c, d] = ids(list);
    assert.equal(ids(await episodes.recent({ limit: 10 })), [d, c, b, a]);
    assert.equal(ids(await episodes.recent({ limit: 2 })), [d, c]);
    assert.equal(ids(await episodes.recent({ limit: 10, after: b! })), [d, c], "after is exclusive");
    assert.equal(ids(await episodes.recent({ limit: 10, entity: "destination:lisbon" })), [c, a]);
    assert.equal(ids(await episodes.recent({ limit: 1, entity: "destination:lisbon" })), [c]);
    assert.equal(ids(await episodes.recent({ limit: 10, entity: "destination:lisbon", after: a! })), [c]);
    assert.equal(await episodes.recent({ limit: 10, entity: "destination:nowhere" }), []);
    assert.equal(await episodes.recentIds({ limit: 10 }), [d, c, b, a], "recentIds: the same ids, without the episodes");
    assert.equal(await episodes.recentIds({ limit: 1, after: b! }), [d]);
  });

  test("past its count the oldest episodes go, from the entity index and reflection too", async () => {
    const { episodes } = await open({ maxEpisodes: 3 });
    const list = [1, 2, 3, 4, 5].map((m) => episodeAt(m));
    for (const e of list) await episodes.append(e);
    assert.equal(ids(await episodes.recent({ limit: 10 })), ids(list.slice(2)).reverse());
    assert.equal(ids(await episodes.recent({ limit: 10, entity: "destination:lisbon" })), ids(list.slice(2)).reverse());
    assert.is(await episodes.get(list[0]!.id), undefined);
    const claimed = await episodes.claimForReflection("reflect-00000000000000aa", iso(BASE + 3_600_000), 10);
    assert.equal(ids(claimed), ids(list.slice(2)), "oldest first, the trimmed ones gone");
  });

  test("the digest is one compare-and-set: none stored is expected as undefined; of two racing with the same expectation one wins", async () => {
    const { episodes, replica } = await open();
    const other = await replica();
    opened.push(other);
    const [e1, e2] = [episodeAt(1), episodeAt(2)];
    assert.is(await episodes.digest(), undefined);
    const first = { text: "One run about Lisbon.", through: e1.id, episodes: 1, updated_at: iso(BASE + 60_000) };
    assert.ok(await episodes.setDigest(first, undefined));
    assert.not.ok(await other.setDigest({ ...first, text: "stale" }, undefined), "someone set one: none is no longer what is stored");
    assert.equal(await other.digest(), first);
    const racers = await Promise.all(
      [episodes, other, episodes, other].map((store, i) =>
        store.setDigest({ text: `Two runs (${i}).`, through: e2.id, episodes: 2, updated_at: iso(BASE + 120_000) }, e1.id),
      ),
    );
    assert.is(racers.filter(Boolean).length, 1, "exactly one replaces it");
    const winner = racers.indexOf(true);
    assert.equal(await episodes.digest(), { text: `Two runs (${winner}).`, through: e2.id, episodes: 2, updated_at: iso(BASE + 120_000) });
    await invalidInput("a digest over its size", () => episodes.setDigest({ ...first, text: "x".repeat(2049) }, e2.id));
  });

  test("reflection claims: only episodes older than the bound, each to exactly one of two racing passes, never again", async () => {
    const { episodes, replica } = await open();
    const other = await replica();
    opened.push(other);
    const old = Array.from({ length: 30 }, (_, i) => episodeAt(i));
    const young = episodeAt(120);
    for (const e of [...old, young]) await episodes.append(e);
    const before = iso(BASE + 60 * 60_000);
    const [left, right] = await Promise.all([
      episodes.claimForReflection("reflect-0000000000000001", before, 20),
      other.claimForReflection("reflect-0000000000000002", before, 20),
    ]);
    const all = [...ids(left), ...ids(right)];
    assert.is(new Set(all).size, all.length, "no episode claimed twice");
    assert.equal(all.sort(), ids(old).sort(), "every old one claimed once, the young one not");
    assert.equal(await episodes.claimForReflection("reflect-0000000000000003", before, 20), [], "claimed ones are no one else's");
    assert.ok(left.every((e) => e.reflected_at === undefined));
  });

  test("completing a reflection marks the pass's own episodes and stores its fragments; knowledge is newest first, by entity", async () => {
    const { episodes, replica } = await open({ clock: () => BASE + 90 * 60_000 });
    const list = [episodeAt(1), episodeAt(2, { entities: ["destination:kyoto"] }), episodeAt(3)];
    for (const e of list) await episodes.append(e);
    const pass = "reflect-00000000000000a1";
    const claimed = await episodes.claimForReflection(pass, iso(BASE + 60 * 60_000), 2);
    assert.equal(ids(claimed), ids(list.slice(0, 2)));
    const lisbon = fragmentOf("destination:lisbon", [list[0]!], pass, 80);
    const kyoto = fragmentOf("destination:kyoto", [list[1]!], pass, 81);
    const other = await replica();
    opened.push(other);
    // Another pass naming an episode it never claimed changes nothing of it.
    await other.completeReflection("reflect-00000000000000b2", [list[0]!.id, list[2]!.id], []);
    assert.is((await episodes.get(list[0]!.id))?.reflected_at, undefined);
    await other.completeReflection(pass, ids(claimed), [lisbon, kyoto]);
    assert.is((await episodes.get(list[0]!.id))?.reflected_at, iso(BASE + 90 * 60_000));
    assert.is((await episodes.get(list[1]!.id))?.reflected_at, iso(BASE + 90 * 60_000));
    assert.is((await episodes.get(list[2]!.id))?.reflected_at, undefined);
    assert.equal(await episodes.knowledge({ limit: 10 }), [kyoto, lisbon]);
    assert.equal(await episodes.knowledge({ entity: "destination:lisbon", limit: 10 }), [lisbon]);
    assert.equal(await episodes.knowledge({ entity: "destination:nowhere", limit: 10 }), []);
    assert.equal(ids(await episodes.claimForReflection(pass, iso(BASE + 60 * 60_000), 10)), [list[2]!.id], "only the unclaimed one is left");
  });

  test("a claim holds for its lease: past it the next pass takes the episodes over, and the first pass's late completion marks and stores nothing of them", async () => {
    let now = BASE + 120 * 60_000;
    const { episodes, replica } = await open({ clock: () => now });
    const list = [episodeAt(1), episodeAt(2), episodeAt(3)];
    for (const e of list) await episodes.append(e);
    const other = await replica();
    opened.push(other);
    const before = iso(BASE + 60 * 60_000);
    const [dead, next, late] = ["reflect-00000000000000d1", "reflect-00000000000000d2", "reflect-00000000000000d3"];
    assert.equal(ids(await episodes.claimForReflection(dead, before, 2, 60_000)), ids(list.slice(0, 2)));
    now += 59_999;
    assert.equal(ids(await other.claimForReflection(next, before, 10, 60_000)), [list[2]!.id], "within the lease: only the unclaimed one");
    now += 1;
    assert.equal(ids(await other.claimForReflection(late, before, 10)), ids(list.slice(0, 2)), "past it: the first pass's, taken over");
    assert.equal(await episodes.claimForReflection("reflect-00000000000000d4", before, 10), [], "each held by one pass again");

    await episodes.completeReflection(dead, ids(list.slice(0, 2)), [fragmentOf("destination:lisbon", list.slice(0, 2), dead, 121)]);
    assert.is((await episodes.get(list[0]!.id))?.reflected_at, undefined, "the late pass marks nothing it lost");
    assert.equal(await episodes.knowledge({ limit: 10 }), [], "nor stores knowledge of them");
    const fragment = fragmentOf("destination:lisbon", list.slice(0, 2), late, 122);
    // A fragment naming an episode the pass does not hold (list[2] is next's) is not stored either.
    await other.completeReflection(late, ids(list), [fragment, fragmentOf("destination:lisbon", list, late, 123)]);
    assert.is((await episodes.get(list[0]!.id))?.reflected_at, iso(now));
    assert.is((await episodes.get(list[2]!.id))?.reflected_at, undefined, "next's claim is left alone");
    assert.equal(await episodes.knowledge({ limit: 10 }), [fragment]);
  });

  test("the sweep deletes episodes and fragments created before its bound, within its limit; again, nothing", async () => {
    const { episodes, replica } = await open();
    const list = [1, 2, 3, 40].map((m) => episodeAt(m));
    for (const e of list) await episodes.append(e);
    const pass = "reflect-00000000000000c3";
    const claimed = await episodes.claimForReflection(pass, iso(BASE + 10 * 60_000), 10);
    const fragment = fragmentOf("destination:lisbon", claimed, pass, 5);
    await episodes.completeReflection(pass, ids(claimed), [fragment]);
    const before = iso(BASE + 30 * 60_000);
    assert.is(await episodes.sweep(before, 2), 2, "bounded");
    const other = await replica();
    opened.push(other);
    const [mine, theirs] = await Promise.all([episodes.sweep(before, 100), other.sweep(before, 100)]);
    assert.is(mine + theirs, 2, "the third episode and the fragment, once");
    assert.is(await episodes.sweep(before, 100), 0);
    assert.equal(ids(await episodes.recent({ limit: 10 })), [list[3]!.id]);
    assert.equal(ids(await episodes.recent({ limit: 10, entity: "destination:lisbon" })), [list[3]!.id]);
    assert.equal(await episodes.knowledge({ limit: 10 }), []);
    assert.equal(await episodes.knowledge({ entity: "destination:lisbon", limit: 10 }), []);
    assert.is(await episodes.get(list[0]!.id), undefined);
  });

  test("records out of bounds are INVALID_INPUT, and so are limits past the store's", async () => {
    const { episodes } = await open();
    const events = Array.from({ length: 51 }, () => ({ kind: "step" as const, text: "x" }));
    await invalidInput("51 events", () => episodes.append(episodeAt(1, { events })));
    await invalidInput("an event over 500 bytes", () => episodes.append(episodeAt(1, { events: [{ kind: "request", text: "é".repeat(251) }] })));
    await invalidInput("17 entities", () => episodes.append(episodeAt(1, { entities: Array.from({ length: 17 }, (_, i) => `city:c${i}`) })));
    await invalidInput("an upper-case entity", () => episodes.append(episodeAt(1, { entities: ["City:Lisbon"] })));
    await invalidInput("another domain", () => episodes.append(episodeAt(1, { domain: "elsewhere" })));
    await invalidInput("a bad id", () => episodes.append(episodeAt(1, { id: "e1" })));
    await invalidInput("a limit of 501", () => episodes.recent({ limit: 501 }));
    await invalidInput("a bad pass id", () => episodes.claimForReflection("pass-1", iso(BASE), 1));
    await invalidInput("a lease of 0", () => episodes.claimForReflection("reflect-0000000000000001", iso(BASE), 1, 0));
    await invalidInput("a bad bound", () => episodes.sweep("yesterday", 1));
    assert.equal(await episodes.recent({ limit: 10 }), [], "nothing was stored");
  });

  test.run();
}
