/**
 * The expiry processor on the embedded store: three processors racing over the same due checkpoints
 * claim each once and apply its default action; passes are bounded; the loop wakes at the next
 * expiry; an approval after expiry is refused.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createExpiryProcessor } from "../../runtime/hitl/expiry.js";
import { type Checkpoint, createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { stepCheckpoint } from "../contract/checkpoints.cases.js";
import { createManualClock } from "../support/clock.js";
import { eventually } from "../support/wait.js";

const iso = (ms: number): string => new Date(ms).toISOString();

test("three processors over 300 due checkpoints: each claimed once, moved by its default action; not-yet-due ones untouched", async () => {
  const now = Date.now();
  const store = createMemoryCheckpointStore();
  const due: string[] = [];
  for (let i = 0; i < 300; i += 1) {
    const checkpoint = stepCheckpoint({ created_at: iso(now - 60_000), expires_at: iso(now - 1_000 + i), default_action: i % 3 === 0 ? "approve" : "reject" });
    await store.create(checkpoint);
    due.push(checkpoint.checkpoint_id);
  }
  const later = stepCheckpoint({ created_at: iso(now), expires_at: iso(now + 60_000) });
  await store.create(later);
  const seen: Checkpoint[] = [];
  const processors = [0, 1, 2].map(() => createExpiryProcessor({ store, batchLimit: 7, onExpired: (cp) => void seen.push(cp) }));
  const passes = await Promise.all(processors.map((p) => p.runPass()));
  assert.is(
    passes.reduce((n, p) => n + p.claimed, 0),
    300,
  );
  assert.equal(seen.map((cp) => cp.checkpoint_id).sort(), [...due].sort(), "each due checkpoint handed over exactly once");
  for (const cp of seen) assert.is(cp.status, cp.default_action === "approve" ? "expired_approved" : "expired");
  assert.is((await store.get(later.checkpoint_id))?.status, "pending");
  for (const pass of passes) assert.match(pass.request_id, /^hitl-expiry-[0-9a-f]{16}$/);
});

test("a pass stops at its time budget; a failing follow-up counts as failed and leaves the checkpoint resumable", async () => {
  const now = Date.now();
  const store = createMemoryCheckpointStore();
  for (let i = 0; i < 10; i += 1)
    await store.create(stepCheckpoint({ created_at: iso(now - 60_000), expires_at: iso(now - 1_000), default_action: "approve" }));
  const bounded = createExpiryProcessor({ store, batchLimit: 2, maxPassMs: 0 });
  const first = await bounded.runPass();
  assert.equal([first.claimed, first.truncated], [2, true], "one batch, then the budget is spent");
  const failing = createExpiryProcessor({
    store,
    batchLimit: 100,
    onExpired: () => {
      throw new Error("resume failed");
    },
  });
  const second = await failing.runPass();
  assert.equal([second.claimed, second.processed, second.failed, second.truncated], [8, 0, 8, false]);
  const { checkpoints } = await store.list({ status: "expired_approved" });
  assert.is(checkpoints.length, 10);
});

test("the loop wakes at the next expiry, long before its interval, and an approval after expiry is refused", async () => {
  const clock = createManualClock();
  const store = createMemoryCheckpointStore({ clock: clock.now });
  const checkpoint = stepCheckpoint({ created_at: iso(clock.now()), expires_at: iso(clock.now() + 150), default_action: "reject" });
  await store.create(checkpoint);
  const expired: string[] = [];
  const processor = createExpiryProcessor({ store, clock, intervalMs: 60_000, onExpired: (cp) => void expired.push(cp.checkpoint_id) });
  processor.start();
  await eventually("the processor's first wake-up to be set", () => clock.pending() === 1);
  await clock.advance(149);
  assert.equal(expired, [], "not before its expiry");
  await clock.advance(1);
  await eventually("the expiry pass", () => expired.length > 0);
  await processor.stop();
  assert.equal(expired, [checkpoint.checkpoint_id], "at its expiry, 150 ms into a 60 s interval");
  const late = await store.command(checkpoint.checkpoint_id, "approve", { now: clock.now() }).catch((error: unknown) => error);
  assert.is((late as { code?: string }).code, "CONFLICT");
  assert.is((await store.get(checkpoint.checkpoint_id))?.status, "expired");
});

test.run();
