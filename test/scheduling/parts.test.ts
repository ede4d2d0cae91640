/**
 * The scheduling folder's named pieces on their own: the executor's dispatch limit, input check,
 * target memo and labels; the firing loop's occurrence id; the stores' index position and advance
 * call; the tool's paging and update rules; the scheduled route's answer. The pieces together are in
 * the other suites here and in test/contract/schedules*.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Registry, RegistryEntry } from "../../runtime/discovery/index.js";
import { createSlots, readInput } from "../../runtime/scheduling/executor-dispatch.js";
import { agentLabels, createTargets, REPLICAS_FRESH_MS } from "../../runtime/scheduling/executor-targets.js";
import { occurrenceId } from "../../runtime/scheduling/firing.js";
import { answerOf } from "../../runtime/scheduling/scheduled-route.js";
import { indexPosition } from "../../runtime/scheduling/store/memory-store.js";
import { advanceCall } from "../../runtime/scheduling/store/redis-store.js";
import { listPage, updatedRecord } from "../../runtime/scheduling/tool.js";
import { createManualClock } from "../support/clock.js";
import { cronRecord, scheduleRecord } from "../support/schedules.js";

test("createSlots: entering is synchronous while a place is free; waiters get places in arrival order", async () => {
  const slots = createSlots(2);
  assert.is(slots.enter("a"), undefined);
  assert.is(slots.enter("a"), undefined);
  const order: string[] = [];
  const first = slots.enter("a")!.then(() => order.push("first"));
  const second = slots.enter("a")!.then(() => order.push("second"));
  slots.leave("a");
  await first;
  assert.equal(order, ["first"], "one place freed: one waiter in");
  slots.leave("a");
  await second;
  assert.equal(order, ["first", "second"]);
  slots.leave("a");
  slots.leave("a");
  assert.is(slots.enter("a"), undefined, "places come back once nobody waits");
});

test("createSlots: one agent holds at most its share; a waiter for a full agent gives up after the wait while others pass it", async () => {
  const clock = createManualClock();
  const slots = createSlots(3, { perAgent: 2, clock, waitMs: 1_000 });
  assert.is(slots.enter("hung"), undefined);
  assert.is(slots.enter("hung"), undefined);
  const third = slots.enter("hung");
  assert.ok(third !== undefined, "the hung agent's third waits: it is at its share");
  let placed: boolean | undefined;
  void third!.then((value) => (placed = value));
  assert.is(slots.enter("healthy"), undefined, "the free place goes to the agent under its share, past the hung agent's waiter");
  await clock.advance(1_000);
  assert.is(placed, false, "no place within the wait: the task is deferred");
  slots.leave("healthy");
  assert.is(slots.enter("healthy"), undefined);
  const later = slots.enter("hung");
  slots.leave("hung");
  assert.is(await later, true, "a place the hung agent frees goes to its own waiter");
});

test("readInput: a scheduled-executor task needs schedule_id, target_agent, instruction and an input object", () => {
  const good = { schedule_id: "sch-1", target_agent: "a", instruction: "go", input: {}, due_at: "" };
  assert.is(readInput(good), good);
  for (const bad of [null, "x", { ...good, input: null }, { ...good, instruction: 1 }, { ...good, target_agent: undefined }]) {
    assert.throws(() => readInput(bad), /needs schedule_id, target_agent, instruction and input/, JSON.stringify(bad));
  }
});

test("createTargets: round-robin over healthy replicas, reused while fresh on the clock; tools and unknown names are not remembered", async () => {
  const clock = createManualClock();
  const entry = (name: string, type: string, port: number, health = "healthy") =>
    ({ name, type, address: "127.0.0.1", port, health }) as unknown as RegistryEntry;
  let lookups = 0;
  const registry = {
    byName: async (name: string) => {
      lookups += 1;
      if (name === "agent") return [entry("agent", "agent", 1), entry("agent", "agent", 2), entry("agent", "agent", 3, "degraded")];
      if (name === "tool") return [entry("tool", "tool", 4)];
      return [];
    },
  } as unknown as Registry;
  const targets = createTargets(registry, clock);
  assert.is(targets.known("agent"), undefined, "nothing looked up yet");
  const urls = [await targets.resolve("agent"), targets.known("agent"), targets.known("agent")].map((t) => (t?.kind === "agent" ? t.url : t?.kind));
  assert.equal(urls, ["http://127.0.0.1:1/api/v1/scheduled", "http://127.0.0.1:2/api/v1/scheduled", "http://127.0.0.1:1/api/v1/scheduled"]);
  await clock.advance(REPLICAS_FRESH_MS - 1);
  assert.ok(targets.known("agent"), "still fresh");
  await clock.advance(1);
  assert.is(targets.known("agent"), undefined, "stale after a second on the clock");
  await targets.resolve("agent");
  targets.forget("agent");
  assert.is(targets.known("agent"), undefined, "a failed dispatch forgets the replicas");
  assert.equal([(await targets.resolve("tool")).kind, (await targets.resolve("nobody")).kind], ["tool", "unknown"]);
  assert.equal([targets.known("tool"), targets.known("nobody")], [undefined, undefined]);
  assert.is(lookups, 4);
  assert.is(targets.labelsOf("agent"), targets.labelsOf("agent"), "labels are built once per agent");
  assert.equal(agentLabels("agent").deadLetter, { ...agentLabels("agent").received, status: "dead_letter" });
});

test("occurrenceId: <schedule_id>:<fire_unix_seconds>", () => {
  assert.is(occurrenceId("sch-0123456789abcdef", Date.UTC(2030, 0, 1, 0, 0, 1, 999)), `sch-0123456789abcdef:${Date.UTC(2030, 0, 1) / 1000 + 1}`);
});

test("indexPosition: by due time, then id, as Redis orders a sorted set", () => {
  const index = [
    { dueMs: 10, id: "b" },
    { dueMs: 20, id: "a" },
    { dueMs: 20, id: "c" },
  ];
  assert.equal(
    [indexPosition(index, 5, "z"), indexPosition(index, 10, "a"), indexPosition(index, 10, "b"), indexPosition(index, 20, "b"), indexPosition(index, 30, "a")],
    [0, 0, 0, 2, 3],
  );
});

test("advanceCall: the four shared keys, one agent index key per item (built once per agent), four arguments per item", () => {
  let built = 0;
  const keys = {
    defs: "d",
    fireCount: "f",
    lastFired: "l",
    due: "u",
    agentIndex: (agent: string) => {
      built += 1;
      return `i:${agent}`;
    },
  };
  const one = { schedule_id: "sch-0123456789abcdef", target_agent: "x" };
  const two = { schedule_id: "sch-fedcba9876543210", target_agent: "x" };
  assert.equal(
    advanceCall(keys, [
      { schedule: one, dueMs: 1, nextMs: null, firedAt: "t" },
      { schedule: two, dueMs: 2, nextMs: 3, firedAt: "t" },
    ]),
    { keys: ["d", "f", "l", "u", "i:x", "i:x"], args: [one.schedule_id, 1, "", "t", two.schedule_id, 2, 3, "t"] },
  );
  assert.is(built, 1);
  assert.throws(() => advanceCall(keys, [{ schedule: { schedule_id: "nope", target_agent: "x" }, dueMs: 1, nextMs: null, firedAt: "t" }]), RangeError);
});

test("listPage: defaults 50 and 0; a bad limit or offset is INVALID_INPUT at its pointer", () => {
  assert.equal(listPage({}), { limit: 50, offset: 0 });
  assert.equal(listPage({ limit: 500, offset: 3 }), { limit: 500, offset: 3 });
  for (const [input, pointer] of [
    [{ limit: 0 }, "/limit"],
    [{ limit: 501 }, "/limit"],
    [{ limit: "5" }, "/limit"],
    [{ offset: -1 }, "/offset"],
  ] as const) {
    try {
      listPage(input);
      assert.unreachable(JSON.stringify(input));
    } catch (error) {
      assert.equal([(error as { code: string }).code, (error as { details: { pointer: string }[] }).details[0]!.pointer], ["INVALID_INPUT", pointer]);
    }
  }
});

test("updatedRecord: new fields over the current record, fire state kept; new timing or a new zone re-times, anything else does not", () => {
  const at = Date.UTC(2030, 0, 1);
  const current = { ...cronRecord(at + 60_000, { cron_expr: "0 9 * * *" }), fire_count: 2, last_fired_at: "2029-12-31T09:00:00.000Z" };
  const renamed = updatedRecord(current, { instruction: "new" }, at);
  assert.equal(renamed, { record: { ...current, instruction: "new", updated_at: new Date(at).toISOString() }, retime: false });
  const zoned = updatedRecord(current, { timezone: "Asia/Tokyo" }, at);
  assert.equal([zoned.retime, zoned.record.timezone, zoned.record.next_run_at, zoned.record.fire_count], [true, "Asia/Tokyo", "2030-01-02T00:00:00.000Z", 2]);
  const moved = updatedRecord(scheduleRecord(at + 1_000), { delay: "1h" }, at);
  assert.equal(
    [moved.retime, moved.record.delay, moved.record.next_run_at, moved.record.recurring],
    [true, "1h", new Date(at + 3_600_000).toISOString(), false],
  );
});

test("answerOf: a string is the response; {filtered: true, reason?} skips (reason cut at 500); anything else is a TypeError", () => {
  assert.equal(answerOf("done", "r1"), { success: true, data: { response: "done", request_id: "r1" } });
  assert.equal(answerOf({ filtered: true, reason: "x".repeat(600) }, "r2"), {
    success: true,
    status: "filtered",
    data: { response: "", request_id: "r2", reason: "x".repeat(500) },
  });
  assert.equal(answerOf({ filtered: true }, "r3"), { success: true, status: "filtered", data: { response: "", request_id: "r3" } });
  assert.throws(() => answerOf({ filtered: false }, "r4"), TypeError);
  assert.throws(() => answerOf(42, "r5"), /must return a string or \{ filtered: true \}/);
});

test.run();
