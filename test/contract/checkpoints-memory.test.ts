import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createCheckpointStore, createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createStore } from "../../runtime/store/index.js";
import { checkpointStoreCases, stepCheckpoint } from "./checkpoints.cases.js";

checkpointStoreCases("memory", async (options) => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `m${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const checkpoints = createCheckpointStore({ store, env: {}, ...options });
  if (checkpoints.kind !== "memory") throw new Error("expected the memory adapter");
  // Every store of one namespace and options is the same one, as replicas share a Redis.
  return { checkpoints, replica: async () => createCheckpointStore({ store, env: {}, ...options }) };
});

const bounds = suite("checkpoint store (memory bounds)");
const BASE = Date.parse("2030-06-01T00:00:00.000Z");

bounds("past its count, terminal checkpoints are evicted, earliest retention end first; undecided ones alone fill it: UNAVAILABLE", async () => {
  const checkpoints = createMemoryCheckpointStore({ maxCheckpoints: 3 });
  const [a, b, c] = [stepCheckpoint(), stepCheckpoint(), stepCheckpoint()];
  for (const cp of [a, b, c]) await checkpoints.create(cp);
  try {
    await checkpoints.create(stepCheckpoint());
    assert.unreachable("full");
  } catch (error) {
    assert.is((error as { code: string }).code, "UNAVAILABLE");
    assert.match((error as Error).message, /decide some, or configure Redis/);
  }
  await checkpoints.command(a.checkpoint_id, "approve", { now: BASE });
  try {
    await checkpoints.create(stepCheckpoint());
    assert.unreachable("an approved checkpoint awaits its resume: not evictable");
  } catch (error) {
    assert.is((error as { code: string }).code, "UNAVAILABLE");
  }
  await checkpoints.command(b.checkpoint_id, "reject", { now: BASE });
  const d = stepCheckpoint();
  await checkpoints.create(d);
  assert.is(await checkpoints.get(b.checkpoint_id), undefined, "the rejected one made room");
  assert.ok(await checkpoints.get(a.checkpoint_id));
  assert.ok(await checkpoints.get(d.checkpoint_id));
});

bounds("past its byte budget the same; retention runs on the store's clock, decisions on the caller's now", async () => {
  let clock = 1_000_000;
  const checkpoints = createMemoryCheckpointStore({ maxBytes: 40_000, retentionMs: 1_000, clock: () => clock });
  const big = () => stepCheckpoint({ original_request: { text: "x".repeat(8_000) } });
  const first = big();
  await checkpoints.create(first);
  await checkpoints.create(big());
  try {
    await checkpoints.create(big());
    assert.unreachable("over the byte budget");
  } catch (error) {
    assert.is((error as { code: string }).code, "UNAVAILABLE");
  }
  await checkpoints.command(first.checkpoint_id, "reject", { now: BASE });
  clock += 999;
  assert.ok(await checkpoints.get(first.checkpoint_id), "kept for its retention");
  clock += 1;
  assert.is(await checkpoints.get(first.checkpoint_id), undefined, "gone when it ends");
  await checkpoints.create(big());
});

bounds.run();
