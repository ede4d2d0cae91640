/**
 * The firing loop over one memory store shared by several replicas: every occurrence becomes exactly
 * one task `<schedule_id>:<fire_unix_seconds>`, one-shots are deleted, cron schedules advance, an
 * overdue cron fires once, a cancelled schedule never fires, and a replica that died between
 * enqueueing and advancing leaves nothing to duplicate.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createFiring, createScheduleStore, SCHEDULED_EXECUTOR_QUEUE, type ScheduleRecord, type ScheduledTaskInput } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import type { Clock } from "../../runtime/util/index.js";
import { createManualClock } from "../support/clock.js";
import { cronRecord, scheduleRecord } from "../support/schedules.js";
import { eventually } from "../support/wait.js";

const log = createLogger({ component: "firing-test", env: {}, write: () => undefined });

function setup() {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `f${randomBytes(4).toString("hex")}` } });
  const schedules = createScheduleStore({ store, env: {} });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  const replica = (clock?: Clock) => createFiring({ schedules, backend, taskTimeoutMs: 60_000, log, ...(clock === undefined ? {} : { clock }) });
  return { store, schedules, backend, replica };
}

const schedule = (dueMs: number, more: Partial<ScheduleRecord> = {}) => scheduleRecord(dueMs, { instruction: "brief", ...more });

test("three replicas firing 300 due schedules at once create exactly 300 tasks, one per occurrence", async () => {
  const { schedules, backend, replica } = setup();
  const due = Math.floor(Date.now() / 1000) * 1000 - 1000;
  const records = Array.from({ length: 300 }, () => schedule(due));
  for (const record of records) await schedules.create(record);
  const created = await Promise.all([replica().pass(), replica().pass(), replica().pass()]);
  assert.is(
    created.reduce((a, b) => a + b, 0),
    300,
    `created per replica: ${created.join(", ")}`,
  );
  assert.is(await backend.depth(), 300);
  const task = await backend.get(`${records[0]!.schedule_id}:${due / 1000}`);
  assert.equal(task?.input as ScheduledTaskInput, {
    schedule_id: records[0]!.schedule_id,
    target_agent: "travel-agent",
    instruction: "brief",
    input: { destination: "Kyoto" },
    due_at: new Date(due).toISOString(),
  });
  assert.is(await schedules.count(), 0, "one-shot schedules are deleted once fired");
});

test("a cron schedule advances to its next time; one overdue by many occurrences fires once", async () => {
  const { schedules, backend, replica } = setup();
  const now = Date.parse("2030-01-01T12:00:30Z");
  const cron = cronRecord(now - 10 * 60_000 - 30_000, { cron_expr: "* * * * *", instruction: "brief" });
  await schedules.create(cron);
  assert.is(await replica(createManualClock(now)).pass(), 1);
  assert.is(await backend.depth(), 1, "one firing for ten missed minutes (catch-up policy: fire once)");
  const after = await schedules.get(cron.schedule_id);
  assert.is(after?.next_run_at, "2030-01-01T12:01:00.000Z");
  assert.is(after?.fire_count, 1);
  assert.is(await replica(createManualClock(now)).pass(), 0, "nothing more is due");
});

test("a cancelled schedule never fires; a replica that died after enqueueing leaves no duplicate", async () => {
  const { schedules, backend, replica } = setup();
  const due = Date.now() - 500;
  const cancelled = schedule(due);
  await schedules.create(cancelled);
  await schedules.delete(cancelled.schedule_id);
  const half = schedule(due);
  await schedules.create(half);
  // The dead replica got as far as the task.
  await backend.create({ task_id: `${half.schedule_id}:${Math.floor(due / 1000)}`, type: "scheduled", input: {}, timeout_ms: 1000 });
  assert.is(await replica().pass(), 0);
  assert.is(await backend.depth(), 1);
  assert.is(await schedules.get(half.schedule_id), undefined, "advanced (deleted) all the same");
  assert.is(await backend.get(`${cancelled.schedule_id}:${Math.floor(due / 1000)}`), undefined);
});

test("the loop wakes for the next due time, not the tick", async () => {
  const { schedules, backend } = setup();
  const clock = createManualClock();
  const firing = createFiring({ schedules, backend, taskTimeoutMs: 60_000, log, tickMs: 60_000, clock });
  firing.start();
  try {
    await eventually("the loop asleep for a tick (nothing is due)", () => clock.pending() === 1);
    const record = schedule(clock.now() + 150);
    await schedules.create(record);
    firing.wake();
    assert.is(clock.pending(), 0, "the wake ended the sleep");
    await eventually("the loop asleep again, until the due time", () => clock.pending() === 1);
    await clock.advance(149);
    assert.is(await backend.depth(), 0, "not due yet");
    await clock.advance(1);
    await eventually("the occurrence fired at its due time", async () => (await backend.depth()) === 1);
    assert.ok(await backend.get(`${record.schedule_id}:${Math.floor(clock.now() / 1000)}`), "the occurrence of its due time");
  } finally {
    await firing.stop();
  }
});

test.run();
