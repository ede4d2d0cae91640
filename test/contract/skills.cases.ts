/**
 * The skill registry contract: one suite, run against every adapter (skills-memory.test.ts,
 * skills-redis.test.ts, skills-cluster.test.ts). Each test gets a fresh, empty registry. No case is
 * skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { skillDigest } from "../../runtime/skills/digest.js";
import type { SkillStore, SkillVersionInput } from "../../runtime/skills/store/index.js";
import { rejection } from "../support/errors.js";

export type SkillStoreFactory = () => Promise<SkillStore>;

export function skill(version: string, more: Partial<SkillVersionInput> = {}): SkillVersionInput {
  return {
    namespace: "travel",
    name: "packing-advice",
    version,
    description: `Packing advice ${version}`,
    instructions: `Check the weather before packing (${version}).`,
    resources: [],
    ...more,
  };
}

const versionsOf = async (store: SkillStore, name = "packing-advice", namespace = "travel") =>
  (await store.list(namespace)).find((s) => s.name === name)?.versions.map((v) => v.version);

export function skillStoreCases(name: string, create: SkillStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite(`skill registry contract (${name})`);
  test.after(teardown);

  test("a published version reads back whole; its resources are listed without texts and each is read on its own", async () => {
    const store = await create();
    const resources = [
      { path: "references/packing-checklist.md", bytes: 1, text: "- umbrella\n- passport" },
      { path: "assets/map.png", bytes: 2048 },
    ];
    const published = await store.publish(skill("1.0.0", { license: "MIT", resources }));
    const listing = [
      { path: "assets/map.png", bytes: 2048 },
      { path: "references/packing-checklist.md", bytes: Buffer.byteLength("- umbrella\n- passport") },
    ];
    assert.equal(published.resources, listing, "sorted by path, text bytes measured, no texts");
    assert.is(
      published.digest,
      skillDigest({ instructions: published.instructions, resources: [listing[0]!, { ...listing[1]!, text: "- umbrella\n- passport" }] }),
    );
    assert.ok(!Number.isNaN(Date.parse(published.published_at)));
    assert.equal(await store.get("travel", "packing-advice", "1.0.0"), published);
    assert.equal(await store.get("travel", "packing-advice"), published, "the active version");
    assert.equal(published.license, "MIT");
    assert.equal(await store.resource("travel", "packing-advice", "1.0.0", "references/packing-checklist.md"), {
      path: "references/packing-checklist.md",
      bytes: 21,
      text: "- umbrella\n- passport",
    });
    assert.equal(await store.resource("travel", "packing-advice", "1.0.0", "assets/map.png"), { path: "assets/map.png", bytes: 2048 }, "binary: no text");
    assert.is(await store.resource("travel", "packing-advice", "1.0.0", "references/other.md"), undefined);
    assert.is(await store.resource("travel", "packing-advice", "9.9.9", "references/packing-checklist.md"), undefined);
    assert.is(await store.resource("travel", "packing-advice", "1.0.0", "../escape.md"), undefined);
    assert.is(await store.get("travel", "packing-advice", "2.0.0"), undefined);
    assert.is(await store.get("travel", "unknown"), undefined);
  });

  test("publishing the same content again is a no-op returning the stored version; other content under the same version is CONFLICT", async () => {
    const store = await create();
    const first = await store.publish(skill("1.0.0"));
    const again = await store.publish(skill("1.0.0"));
    assert.equal(again, first, "the stored one, published_at unchanged");
    const error = await rejection(store.publish(skill("1.0.0", { instructions: "Something else." })));
    assert.is(error.code, "CONFLICT");
    assert.match(error.message, /travel\/packing-advice@1\.0\.0/);
    assert.not.match(error.message, /Something else/, "bodies never reach errors");
    assert.is((await store.get("travel", "packing-advice", "1.0.0"))!.instructions, first.instructions);
    // Description and license are not content: the same digest is the same version.
    assert.equal(await store.publish(skill("1.0.0", { description: "reworded" })), first);
    assert.equal(await versionsOf(store), ["1.0.0"]);
  });

  test("the active version is the newest not retired in semver order; non-semver versions rank after semver ones, by publish order", async () => {
    const store = await create();
    for (const version of ["1.2.0", "1.10.0", "1.9.9", "2.0.0-rc.1", "2.0.0-rc.10", "2.0.0-rc.2", "nightly", "2024-06-01"]) await store.publish(skill(version));
    assert.is((await store.get("travel", "packing-advice"))!.version, "2.0.0-rc.10");
    assert.equal(await versionsOf(store), ["2.0.0-rc.10", "2.0.0-rc.2", "2.0.0-rc.1", "1.10.0", "1.9.9", "1.2.0", "2024-06-01", "nightly"]);
    await store.publish(skill("2.0.0"));
    const [summary] = await store.list("travel");
    assert.is(summary!.active, "2.0.0");
    assert.is(summary!.description, "Packing advice 2.0.0", "the active version's description");
    for (const version of ["2.0.0", "2.0.0-rc.10", "2.0.0-rc.2", "2.0.0-rc.1", "1.10.0", "1.9.9", "1.2.0"])
      await store.retire("travel", "packing-advice", version);
    assert.is((await store.get("travel", "packing-advice"))!.version, "2024-06-01", "the later published of the non-semver ones");
    await store.publish(skill("1.0.0+build.2"));
    await store.publish(skill("1.0.0+build.1"));
    assert.is((await store.get("travel", "packing-advice"))!.version, "1.0.0+build.1", "equal precedence: the later published");
  });

  test("a pin wins over newer versions; pinning a missing version or skill is NOT_FOUND, a retired one CONFLICT; retiring the pinned version removes the pin", async () => {
    const store = await create();
    await store.publish(skill("1.0.0"));
    await store.publish(skill("2.0.0"));
    const pinned = await store.pin("travel", "packing-advice", "1.0.0");
    assert.equal([pinned.active, pinned.pinned], ["1.0.0", "1.0.0"]);
    await store.publish(skill("3.0.0"));
    assert.is((await store.get("travel", "packing-advice"))!.version, "1.0.0", "still pinned after a newer publish");
    assert.is((await rejection(store.pin("travel", "packing-advice", "9.0.0"))).code, "NOT_FOUND");
    assert.is((await rejection(store.pin("travel", "unknown", "1.0.0"))).code, "NOT_FOUND");
    assert.is((await rejection(store.pin("travel", "unknown", undefined))).code, "NOT_FOUND");
    const retired = await store.retire("travel", "packing-advice", "1.0.0");
    assert.equal([retired.active, retired.pinned], ["3.0.0", undefined]);
    const refused = await rejection(store.pin("travel", "packing-advice", "1.0.0"));
    assert.is(refused.code, "CONFLICT");
    await store.pin("travel", "packing-advice", "2.0.0");
    const unpinned = await store.pin("travel", "packing-advice", undefined);
    assert.equal([unpinned.active, unpinned.pinned], ["3.0.0", undefined]);
  });

  test("retire is idempotent, keeps the version readable for the runs it shaped, and with every version retired nothing is active", async () => {
    const store = await create();
    await store.publish(skill("1.0.0"));
    const first = await store.retire("travel", "packing-advice", "1.0.0");
    const at = first.versions[0]!.retired_at;
    assert.ok(at !== undefined && !Number.isNaN(Date.parse(at)));
    const second = await store.retire("travel", "packing-advice", "1.0.0");
    assert.is(second.versions[0]!.retired_at, at, "the first retirement stands");
    assert.is(second.active, undefined);
    assert.is(await store.get("travel", "packing-advice"), undefined, "nothing active");
    assert.is((await store.get("travel", "packing-advice", "1.0.0"))!.retired_at, at);
    assert.is((await rejection(store.retire("travel", "packing-advice", "2.0.0"))).code, "NOT_FOUND");
    assert.is((await rejection(store.retire("travel", "unknown", "1.0.0"))).code, "NOT_FOUND");
    assert.equal(await versionsOf(store), ["1.0.0"], "still listed");
  });

  test("list: by namespace then name, one namespace or every one, summaries without bodies", async () => {
    const store = await create();
    await store.publish(skill("1.0.0", { name: "local-customs", namespace: "travel" }));
    await store.publish(skill("1.0.0", { name: "packing-advice", namespace: "travel" }));
    await store.publish(skill("1.0.0", { name: "refunds", namespace: "billing" }));
    await store.publish(skill("1.1.0", { name: "local-customs", namespace: "travel" }));
    assert.equal(
      (await store.list()).map((s) => `${s.namespace}/${s.name}@${s.active}`),
      ["billing/refunds@1.0.0", "travel/local-customs@1.1.0", "travel/packing-advice@1.0.0"],
    );
    assert.equal(
      (await store.list("travel")).map((s) => s.name),
      ["local-customs", "packing-advice"],
    );
    assert.equal(await store.list("nowhere"), []);
    const text = JSON.stringify(await store.list());
    assert.not.match(text, /Check the weather/, "no instructions in a summary");
  });

  boundsCases(test, create);
  concurrencyCases(test, create);
  test.run();
}

function boundsCases(test: ReturnType<typeof suite>, create: SkillStoreFactory): void {
  test("bad names, versions and paths are INVALID_INPUT with pointers; sizes past the bounds PAYLOAD_TOO_LARGE; nothing is stored", async () => {
    const store = await create();
    const bad = async (input: SkillVersionInput) => rejection(store.publish(input));
    const names = await bad(skill("1.0.0", { namespace: "Travel", name: "-packing" }));
    assert.is(names.code, "INVALID_INPUT");
    assert.equal(
      names.details!.map((d) => d.pointer),
      ["/namespace", "/name"],
    );
    assert.equal(
      (await bad(skill("1.0 0"))).details!.map((d) => d.pointer),
      ["/version"],
    );
    assert.equal((await bad(skill("x".repeat(65)))).code, "INVALID_INPUT");
    const paths = await bad(
      skill("1.0.0", {
        resources: [
          { path: "../secret", bytes: 1, text: "x" },
          { path: "/etc/passwd", bytes: 1, text: "x" },
        ],
      }),
    );
    assert.equal(
      paths.details!.map((d) => d.pointer),
      ["/resources/0/path", "/resources/1/path"],
    );
    const twice = await bad(
      skill("1.0.0", {
        resources: [
          { path: "a.md", bytes: 1, text: "x" },
          { path: "a.md", bytes: 1, text: "y" },
        ],
      }),
    );
    assert.equal(
      twice.details!.map((d) => d.pointer),
      ["/resources/1/path"],
    );
    assert.is((await bad(skill("1.0.0", { description: "" }))).details![0]!.pointer, "/description");
    assert.is((await bad(skill("1.0.0", { instructions: "x".repeat(32 * 1024 + 1) }))).code, "PAYLOAD_TOO_LARGE");
    assert.is((await bad(skill("1.0.0", { resources: [{ path: "big.md", bytes: 1, text: "x".repeat(64 * 1024 + 1) }] }))).code, "PAYLOAD_TOO_LARGE");
    const many = Array.from({ length: 65 }, (_, i) => ({ path: `r/${i}.md`, bytes: 1, text: "x" }));
    assert.is((await bad(skill("1.0.0", { resources: many }))).code, "PAYLOAD_TOO_LARGE");
    assert.equal(await store.list(), [], "a refused publish leaves nothing behind");
    // Exactly at the bounds is fine.
    const full = Array.from({ length: 64 }, (_, i) => ({ path: `r/${i}.md`, bytes: 1, text: "x" }));
    await store.publish(skill("1.0.0", { instructions: "é".repeat(16 * 1024), resources: full }));
    assert.is((await store.get("travel", "packing-advice"))!.resources.length, 64);
    assert.is((await rejection(store.get("Travel", "packing-advice"))).code, "INVALID_INPUT");
  });

  test("100 versions per skill: the 101st drops the oldest retired version, and with none retired is LIMIT_EXCEEDED", async () => {
    const store = await create();
    await store.publish(skill("1.0.0", { resources: [{ path: "notes.md", bytes: 1, text: "first" }] }));
    for (let i = 1; i < 100; i++) await store.publish(skill(`1.0.${i}`));
    const full = await rejection(store.publish(skill("2.0.0")));
    assert.is(full.code, "LIMIT_EXCEEDED");
    assert.match(full.message, /100 versions/);
    assert.equal(await store.publish(skill("1.0.5")), await store.get("travel", "packing-advice", "1.0.5"), "republishing a stored version still works");
    await store.retire("travel", "packing-advice", "1.0.7");
    await store.retire("travel", "packing-advice", "1.0.0");
    await store.publish(skill("2.0.0"));
    assert.is(await store.get("travel", "packing-advice", "1.0.0"), undefined, "the oldest retired went, with its resources");
    assert.is(await store.resource("travel", "packing-advice", "1.0.0", "notes.md"), undefined);
    assert.ok((await store.get("travel", "packing-advice", "1.0.7")) !== undefined, "the newer retired one stays");
    const versions = await versionsOf(store);
    assert.is(versions!.length, 100);
    assert.is(versions![0], "2.0.0");
  });

  test("1,000 skills per namespace: one more is LIMIT_EXCEEDED; the stored ones still publish new versions; other namespaces are not affected", async () => {
    const store = await create();
    for (let start = 0; start < 1000; start += 50)
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.publish(skill("1.0.0", { name: `s-${start + i}` }))));
    const full = await rejection(store.publish(skill("1.0.0", { name: "one-more" })));
    assert.is(full.code, "LIMIT_EXCEEDED");
    assert.match(full.message, /travel/);
    await store.publish(skill("1.1.0", { name: "s-7" }));
    await store.publish(skill("1.0.0", { name: "one-more", namespace: "other" }));
    const listed = await store.list("travel");
    assert.is(listed.length, 1000);
    assert.is(listed.find((s) => s.name === "s-7")!.active, "1.1.0");
    assert.is((await store.list()).length, 1000, "every namespace together: at most 1,000 summaries");
  });
}

function concurrencyCases(test: ReturnType<typeof suite>, create: SkillStoreFactory): void {
  test("concurrent publishes of one version with different content: exactly one wins, every other is CONFLICT", async () => {
    const store = await create();
    const attempts = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store.publish(skill("1.0.0", { instructions: `Variant ${i}.` }))));
    const won = attempts.filter((a) => a.status === "fulfilled");
    assert.is(won.length, 1);
    const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === "rejected").map((a) => (a.reason as { code?: string }).code);
    assert.equal(
      lost,
      Array.from({ length: 11 }, () => "CONFLICT"),
    );
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<SkillStore["publish"]>>>).value;
    assert.equal(await store.get("travel", "packing-advice", "1.0.0"), winner);
    // The same content from many replicas at once (every replica publishes its bundled skills at start): all get the one stored version.
    const same = await Promise.all(Array.from({ length: 8 }, () => store.publish(skill("2.0.0"))));
    assert.equal(new Set(same.map((v) => v.published_at)).size, 1);
    assert.equal(await versionsOf(store), ["2.0.0", "1.0.0"]);
  });

  test("racing pin and retire of one version never leave a pin on a retired version", async () => {
    const store = await create();
    for (let i = 0; i < 15; i++) {
      const version = `1.0.${i}`;
      await store.publish(skill(version));
      await Promise.allSettled([store.pin("travel", "packing-advice", version), store.retire("travel", "packing-advice", version)]);
      const [summary] = await store.list("travel");
      const pinned = summary!.versions.find((v) => v.version === summary!.pinned);
      assert.ok(pinned === undefined || pinned.retired_at === undefined, `pinned ${summary!.pinned} is retired`);
    }
  });
}
