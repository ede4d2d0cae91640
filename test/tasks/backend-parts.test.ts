/**
 * The task backends' named pieces on their own: the memory backend's leases, budget and retention
 * over a hand-built MemoryBackend on a manual clock; the Redis backend's reply and argument codecs
 * and its create batcher with a fake sender. The behaviour both adapters share is in test/contract/tasks*.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryTaskState, createTask } from "../../runtime/tasks/memory-backend.js";
import { earliestLease, leasedEntry, takeLapsed, takeLeases } from "../../runtime/tasks/memory-leases.js";
import { evictFinished, finishEntry, lookup, type MemoryBackend, type State } from "../../runtime/tasks/memory-state.js";
import { finishArgs, leasesOf } from "../../runtime/tasks/redis-backend.js";
import { createCreateBatcher } from "../../runtime/tasks/redis-connection.js";
import type { Delivery } from "../../runtime/tasks/types.js";
import { createManualClock, type ManualClock } from "../support/clock.js";

function memory(clock: ManualClock, overrides: { delivery?: Delivery; maxDeliveries?: number; maxRecords?: number; ttlMs?: number } = {}): MemoryBackend {
  return {
    state: createMemoryTaskState() as unknown as State,
    ownsState: true,
    clock,
    ttlMs: overrides.ttlMs ?? 60_000,
    maxDeliveries: overrides.maxDeliveries ?? 5,
    delivery: overrides.delivery ?? "at-least-once",
    maxRecords: overrides.maxRecords ?? 100,
    maxBytes: 1 << 20,
    tokenPrefix: "p",
    tokens: 0,
    closed: false,
    ownWaiters: new Set(),
  };
}

const task = (id: string) => ({ task_id: id, type: "x", input: { id }, timeout_ms: 1_000 });

test("takeLapsed: only lapsed leases, redelivered with a new token, or failed when out of deliveries or at most once", async () => {
  const clock = createManualClock();
  const b = memory(clock, { maxDeliveries: 2 });
  for (const id of ["a", "b"]) createTask(b, task(id));
  const [a] = takeLeases(b, { count: 2, leaseMs: 100, blockMs: 0 });
  assert.equal(takeLapsed(b, 10, 100, clock.now() + 99), [], "nothing lapsed yet");
  assert.is(earliestLease(b), clock.now() + 100);
  const again = takeLapsed(b, 1, 100, clock.now() + 100);
  assert.equal(
    again.map((l) => [l.task.task_id, l.task.deliveries, l.token === a!.token]),
    [["a", 2, false]],
    "at most `count`, the first lapsed one, a new token",
  );
  assert.is(leasedEntry(b, "a", a!.token), "lost", "the old token is refused");
  const spent = takeLapsed(b, 10, 100, clock.now() + 1_000);
  assert.equal(
    spent.map((l) => [l.task.task_id, l.task.deliveries]),
    [["b", 2]],
    "b redelivered; a, delivered twice already, is not",
  );
  const stored = lookup(b, "a")!;
  assert.equal(
    [stored.status, JSON.parse(stored.error!).code],
    ["failed", "TASK_REDELIVERY_EXCEEDED"],
    "a lapsed task delivered maxDeliveries times is failed",
  );

  const once = memory(clock, { delivery: "at-most-once" });
  createTask(once, task("c"));
  takeLeases(once, { count: 1, leaseMs: 100, blockMs: 0 });
  assert.equal(takeLapsed(once, 10, 100, clock.now() + 100), []);
  assert.is(lookup(once, "c")!.status, "failed", "at most once: never delivered again");
  assert.is(earliestLease(once), undefined, "no running lease left");
});

test("evictFinished: the oldest finished records make room, live ones never; the TTL sweep runs on the clock", async () => {
  const clock = createManualClock();
  const b = memory(clock, { maxRecords: 3, ttlMs: 1_000 });
  for (const id of ["a", "b", "c"]) createTask(b, task(id));
  for (const lease of takeLeases(b, { count: 2, leaseMs: 10_000, blockMs: 0 }))
    finishEntry(b, b.state.records.get(lease.task.task_id)!, "completed", { result: "1" });
  assert.ok(evictFinished(b), "within budget");
  createTask(b, task("d"));
  assert.equal([...b.state.records.keys()].sort(), ["b", "c", "d"], "the oldest finished record made room");
  createTask(b, task("e"));
  assert.equal([...b.state.records.keys()].sort(), ["c", "d", "e"]);
  assert.throws(() => createTask(b, task("f")), /full of live tasks/, "live records are never evicted");
  assert.equal([...b.state.records.keys()].sort(), ["c", "d", "e"], "the refused task is not kept");

  const swept = memory(clock, { ttlMs: 1_000 });
  createTask(swept, task("g"));
  const [lease] = takeLeases(swept, { count: 1, leaseMs: 10_000, blockMs: 0 });
  finishEntry(swept, swept.state.records.get(lease!.task.task_id)!, "completed", { result: "1" });
  await clock.advance(999);
  assert.ok(swept.state.records.has("g"), "kept until its TTL");
  await clock.advance(1);
  assert.not.ok(swept.state.records.has("g"), "swept at its TTL, without any read");
  assert.is(swept.state.sweep, undefined, "no sweep left armed with nothing finished");
});

test("leasesOf and finishArgs: the dequeue reply decoded (unparsable records skipped), the finish arguments encoded", () => {
  // A taken task's record keeps its queued header; its lease state (token prefix|deliveries|started) says it runs.
  const record = (status: string) => `${status}|0||1000||\n\n\n\n{"type":"x","timeout_ms":5,"input":{"n":1}}`;
  const leases = leasesOf([5_000, -1, "a", record("queued"), "t1.|1|5000", "b", "junk", "t1.|1|5000", "c", record("queued"), "t1.|2|4000"], 300);
  assert.equal(
    leases.map((l) => [l.task.task_id, l.token, l.expiresAt, l.task.input, l.task.status, l.task.deliveries, l.task.started_at]),
    [
      ["a", "t1.|1|5000a", 5_300, { n: 1 }, "running", 1, new Date(5_000).toISOString()],
      ["c", "t1.|2|4000c", 5_300, { n: 1 }, "running", 2, new Date(4_000).toISOString()],
    ],
  );
  const cyclic: Record<string, unknown> = {};
  cyclic["self"] = cyclic;
  assert.equal(
    finishArgs("p:", 60_000, [
      { status: "completed", taskId: "a", token: "s1a", result: { ok: true } },
      { status: "completed", taskId: "b", token: "s2b", result: undefined },
      { status: "completed", taskId: "c", token: "s3c", result: cyclic },
      { status: "failed", taskId: "d", token: "s4d", error: { code: "HANDLER_ERROR", message: "no", extra: 1 } as never },
      // A token that does not end with its task id (or is nothing but it) carries no state: "-" matches none.
      { status: "completed", taskId: "e", token: "s5x", result: 1 },
      { status: "completed", taskId: "f", token: "f", result: 1 },
    ]),
    [
      "p:",
      60_000,
      // A lease state or third value equal to the previous outcome's is sent empty.
      ...["a", "s1", "completed", '{"ok":true}'],
      ...["b", "s2", "", ""],
      ...["c", "s3", "failed", '{"code":"HANDLER_PANIC","message":"The handler returned a result that is not JSON-serialisable"}'],
      ...["d", "s4", "", '{"code":"HANDLER_ERROR","message":"no"}'],
      ...["e", "-", "completed", "1"],
      ...["f", "", "", "1"],
    ],
  );
  assert.throws(() => finishArgs("p:", 1, [{ status: "completed", taskId: "no spaces", token: "t", result: 1 }]), /task_id must be/);
});

test("createCreateBatcher: the creates of one turn go in one call, in order; 0 for a taken id; a failed call rejects each", async () => {
  const calls: (readonly string[])[] = [];
  let fail = false;
  const batch = createCreateBatcher(
    async (args) => {
      calls.push(args);
      if (fail) throw new Error("down");
      return [7_000, ...Array.from({ length: (args.length - 1) / 2 }, (_, i) => (args[1 + 2 * i] === "taken" ? 0 : 1))];
    },
    "p:",
    2,
  );
  const answers = await Promise.all([batch("a", "{}"), batch("taken", "{}"), batch("c", "{}")]);
  assert.equal(answers, [7_000, 0, 7_000]);
  assert.equal(calls, [
    ["p:", "a", "{}", "taken", "{}"],
    ["p:", "c", "{}"],
  ]);
  fail = true;
  const failed = await Promise.allSettled([batch("d", "{}"), batch("e", "{}")]);
  assert.equal(
    failed.map((r) => r.status),
    ["rejected", "rejected"],
  );
});

test.run();
