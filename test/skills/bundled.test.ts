/**
 * An agent's bundled skills published at start (`publishBundled`, extension.ts): a skill the registry
 * refuses is logged naming it and the next ones are still published; a registry that fails as a
 * whole (a real redis-server that is down) is one error line, not one wait and one line per skill.
 * No line carries a skill's instructions.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createBundledPublisher, publishBundled, RETRY_MS } from "../../runtime/skills/bundled.js";
import { createMemorySkillStore, createSkillStore, type SkillVersionInput } from "../../runtime/skills/store/index.js";
import { createStore } from "../../runtime/store/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { createManualClock } from "../support/clock.js";
import { startRedisServer } from "../support/redis.js";
import { eventually } from "../support/wait.js";

const bundled = (name: string, instructions = `SECRET-BODY of ${name}.`): SkillVersionInput => ({
  namespace: "trip-helper",
  name,
  version: "1.0.0",
  description: `The ${name} skill`,
  instructions,
  resources: [],
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ component: "skills", env: {}, write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { lines, log };
}

test("a skill the registry refuses is logged by name and the others are still published", async () => {
  const store = createMemorySkillStore();
  await store.publish(bundled("local-customs", "The registry's own text."));
  const { lines, log } = capture();
  const { published } = await publishBundled(store, [bundled("local-customs"), bundled("packing-advice")], log);
  assert.is(published, 1);
  assert.equal(
    lines.map((l) => [l["level"], l["skill"], l["code"]]),
    [["error", "trip-helper/local-customs@1.0.0", "CONFLICT"]],
  );
  assert.ok((await store.get("trip-helper", "packing-advice")) !== undefined);
  assert.not.match(JSON.stringify(lines), /SECRET-BODY/);
});

test("a registry that is down is one error line: the remaining skills are not each tried", async () => {
  const redis = await startRedisServer({ stopped: true });
  const backing = createStore({ env: { REDIS_URL: redis.url }, log: () => undefined });
  try {
    const store = createSkillStore({ store: backing, env: {} });
    const { lines, log } = capture();
    const { published, storeFailed } = await publishBundled(store, [bundled("a"), bundled("b"), bundled("c")], log);
    assert.is(published, 0);
    assert.ok(storeFailed);
    assert.is(lines.length, 1, JSON.stringify(lines));
    assert.equal([lines[0]!["level"], lines[0]!["skill"]], ["error", "trip-helper/a@1.0.0"]);
    assert.match(String(lines[0]!["message"]), /bundled skills not published: the skill registry failed/);
    assert.not.match(JSON.stringify(lines), /SECRET-BODY/);
  } finally {
    await backing.close();
    await redis.close();
  }
});

test("a registry down at start gets the bundled skills once it is up, without a restart", async () => {
  const redis = await startRedisServer({ stopped: true });
  const backing = createStore({ env: { REDIS_URL: redis.url }, log: () => undefined });
  const clock = createManualClock();
  try {
    const store = createSkillStore({ store: backing, env: {} });
    const { lines, log } = capture();
    const publisher = createBundledPublisher({ store, bundled: [bundled("a"), bundled("b")], log, clock });
    await publisher.start();
    assert.is(clock.pending(), 1, "a retry is scheduled");
    await clock.advance(RETRY_MS);
    assert.is(lines.length, 1, "a retry that fails again adds no line");
    await redis.start();
    assert.ok(backing.kind === "redis" && (await backing.whenReady(10_000)));
    await clock.advance(RETRY_MS);
    await eventually("skill b published", async () => (await store.get("trip-helper", "b")) !== undefined);
    assert.is(clock.pending(), 0, "no retry once published");
    assert.match(String(lines.at(-1)!["message"]), /published once the skill registry answered \(2 of 2\)/);
    publisher.stop();
  } finally {
    await backing.close();
    await redis.close();
  }
});

test.run();
