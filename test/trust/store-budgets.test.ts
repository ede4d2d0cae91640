/**
 * Every embedded store a client can fill has a byte budget (issue 32, "What to build" 5). Each is
 * filled far past a small budget: what it holds stays within it (measured from what the store keeps
 * or hands back, never the process's RSS), nothing crashes, and the documented behaviour holds:
 * records that can go are evicted oldest first (chat sessions, execution records); those that cannot
 * (registrations, undecided checkpoints) are refused with 503 UNAVAILABLE.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemorySessionStore } from "../../runtime/chat/index.js";
import { createMemoryRegistry, createMemoryRegistryState } from "../../runtime/discovery/index.js";
import { isManifoldError } from "../../runtime/errors/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createMemoryExecutionStore } from "../../runtime/orchestration/index.js";
import { heapBytes } from "../../runtime/util/index.js";
import { stepCheckpoint } from "../contract/checkpoints.cases.js";
import { executionRecord } from "../contract/execution-store.cases.js";
import { registration } from "../contract/registry.cases.js";

const test = suite("embedded stores stay within their byte budgets");
const BUDGET = 64 * 1024;
const PAD = "x".repeat(2_000);

async function refusals(count: number, add: (i: number) => Promise<unknown>): Promise<{ stored: number; refused: number }> {
  let refused = 0;
  for (let i = 0; i < count; i += 1) {
    try {
      await add(i);
    } catch (error) {
      assert.ok(isManifoldError(error), `a refusal is a ManifoldError, not ${String(error)}`);
      assert.equal([error.code, error.status], ["UNAVAILABLE", 503]);
      refused += 1;
    }
  }
  return { stored: count - refused, refused };
}

test("discovery (memory): new registrations past the budget are refused; heartbeats of known ones go on; expired ones free room", async () => {
  let now = Date.parse("2030-01-01T00:00:00Z");
  const state = createMemoryRegistryState();
  const registry = createMemoryRegistry({ state, now: () => now, maxBytes: BUDGET });
  const first = registration({ description: PAD });
  await registry.register(first, { ttlMs: 30_000 });
  const { stored, refused } = await refusals(200, (i) => registry.register(registration({ name: `svc-${i}`, description: PAD }), { ttlMs: 30_000 }));
  assert.ok(refused > 150 && stored > 5, `stored ${stored}, refused ${refused}`);
  assert.ok(state.bytes <= BUDGET, `held ${state.bytes} bytes`);
  assert.is((await registry.listAll()).length, stored + 1);
  await registry.register({ ...first, description: "heartbeat" }, { ttlMs: 30_000 });
  assert.is((await registry.get(first.id))?.description, "heartbeat", "a known id's heartbeat is never refused");
  now += 60_000;
  await registry.register(registration({ name: "after-expiry", description: PAD }), { ttlMs: 30_000 });
  assert.ok(state.bytes < BUDGET / 4, "expired registrations freed their bytes");
});

test("HITL checkpoints (memory): undecided ones past the budget are refused, never evicted", async () => {
  const store = createMemoryCheckpointStore({ maxBytes: BUDGET });
  const kept: string[] = [];
  const { refused } = await refusals(200, async () => {
    const created = await store.create(stepCheckpoint({ original_request: { request: PAD } }));
    kept.push(created.checkpoint_id);
  });
  assert.ok(refused > 150, `refused ${refused}`);
  const held = await Promise.all(kept.map((id) => store.get(id)));
  assert.ok(
    held.every((c) => c !== undefined),
    "every stored undecided checkpoint is still there",
  );
  assert.ok(heapBytes(held.map((c) => ({ ...c, status: undefined }))) <= BUDGET * 1.1, "what it holds is within the budget");
});

test("chat sessions (memory): past the budget the least recently saved sessions go; the store stays within it", async () => {
  const sessions = createMemorySessionStore({ maxBytes: BUDGET });
  const ids: string[] = [];
  for (let i = 0; i < 200; i += 1) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    await sessions.create({ id, userId: "u1", metadata: {}, now: Date.now() });
    await sessions.append(id, { id: `m${i}`, role: "user", content: PAD, timestamp: new Date().toISOString(), metadata: {} });
    ids.push(id);
  }
  const held = (await Promise.all(ids.map((id) => sessions.get(id)))).filter((s) => s !== undefined);
  assert.ok(held.length < 40 && held.length > 5, `held ${held.length}`);
  assert.ok(heapBytes(held) <= BUDGET * 1.2, `held ${heapBytes(held)} bytes`);
  assert.ok((await sessions.get(ids.at(-1)!)) !== undefined, "the newest is kept");
  assert.is(await sessions.get(ids[0]!), undefined, "the oldest went");
});

test("execution records (memory): past the budget the oldest records go; the store stays within it", async () => {
  const records = createMemoryExecutionStore({ maxBytes: BUDGET });
  for (let i = 0; i < 200; i += 1) await records.save(executionRecord({ metadata: { pad: PAD } } as never));
  const held = await records.list({ limit: 1000 });
  assert.ok(held.length < 40 && held.length > 5, `held ${held.length}`);
  assert.ok(heapBytes(held) <= BUDGET * 1.1, `held ${heapBytes(held)} bytes`);
});

test.run();
