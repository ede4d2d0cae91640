/**
 * Skills at run time on the Redis registry (a real redis-server): the pinned version is the one in
 * the planning prompt and the execution record, a newer one once unpinned, and a referenced resource
 * is read on demand from that version only.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { freshRedisStores } from "../contract/fresh-stores.js";
import { planStep, planText } from "../orchestration/support.js";
import { createManualClock } from "../support/clock.js";
import { startRedisServer } from "../support/redis.js";
import { skill, skillsOf, startSkillsNetwork, systemOf } from "./run-support.js";

const server = await startRedisServer();
const stores = freshRedisStores(() => ({ REDIS_URL: server.url }));
const test = suite("skills at run time on Redis");
test.after(async () => {
  await stores.closeAll();
  await server.close();
});

test("a pinned older version is used, the newest once unpinned; its resource is read from the version in use", async () => {
  const clock = createManualClock();
  const network = await startSkillsNetwork({ backing: stores.store(), clock });
  try {
    network.answers = { routing_plan: () => ({ text: planText([planStep("sum", "worker", "add", { a: 1, b: 2 })]) }), text: () => ({ text: "3" }) };
    const version = (v: string, text: string) =>
      skill("packing-advice", `${text} See references/checklist.md.`, {
        version: v,
        description: "Packing advice for a trip.",
        resources: [{ path: "references/checklist.md", bytes: 12, text: `CHECKLIST-${v}` }],
      });
    await network.store.publish(version("1.0.0", "VERSION-ONE"));
    await network.store.publish(version("2.0.0", "VERSION-TWO"));
    await network.store.pin("travel", "packing-advice", "1.0.0");

    const first = await network.ask("What should I pack for Lisbon?", "req-redis-pinned");
    assert.is(first.status, 200, JSON.stringify(first.body));
    const pinned = systemOf(network.received("routing_plan")[0]);
    assert.match(pinned, "### packing-advice (travel@1.0.0)\n\nVERSION-ONE");
    assert.match(pinned, "#### Resource references/checklist.md\n\nCHECKLIST-1.0.0");
    assert.not.match(pinned, "VERSION-TWO");
    assert.equal(
      skillsOf(await network.executions.get(String(first.body["plan_id"]))).map((s) => [s.version, s.resources]),
      [["1.0.0", ["references/checklist.md"]]],
    );

    await network.store.pin("travel", "packing-advice", undefined);
    await clock.advance(5_000);
    const second = await network.ask("What should I pack for Lisbon?", "req-redis-unpinned");
    assert.is(second.status, 200, JSON.stringify(second.body));
    const unpinned = systemOf(network.received("routing_plan")[1]);
    assert.match(unpinned, "### packing-advice (travel@2.0.0)\n\nVERSION-TWO");
    assert.match(unpinned, "CHECKLIST-2.0.0");
    assert.equal(network.resourceReads, ["travel/packing-advice@1.0.0:references/checklist.md", "travel/packing-advice@2.0.0:references/checklist.md"]);
  } finally {
    await network.close();
  }
});

test.run();
