/**
 * The schedule store contract, and the firing claim on top of it: one suite, run against every
 * adapter (schedules-memory.test.ts, schedules-redis.test.ts, schedules-cluster.test.ts). Each test
 * gets a fresh, empty store (a new namespace on Redis). No case is skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isManifoldError } from "../../runtime/errors/index.js";
import { createFiring, SCHEDULED_EXECUTOR_QUEUE, type ScheduleRecord, type ScheduleStore } from "../../runtime/scheduling/index.js";
import type { Store } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { cronRecord, scheduleRecord as baseRecord } from "../support/schedules.js";

export interface ScheduleStoreUnderTest {
  readonly schedules: ScheduleStore;
  /** The store it lives in, for the firing claim's task backend. */
  readonly store: Store;
}
export type ScheduleStoreFactory = (options: { readonly maxSchedules?: number }) => Promise<ScheduleStoreUnderTest>;

const log = createLogger({ component: "schedules-contract", env: {}, write: () => undefined });
const BASE = Date.parse("2030-06-01T00:00:00.000Z");

/** Input with an empty array and an empty object, which must come back as they went in. */
const scheduleRecord = (dueMs: number, more: Partial<ScheduleRecord> = {}): ScheduleRecord =>
  baseRecord(dueMs, { input: { destination: "Kyoto", tags: [], nested: { empty: {} } }, ...more });
const cron = (dueMs: number, more: Partial<ScheduleRecord> = {}): ScheduleRecord =>
  cronRecord(dueMs, { input: { destination: "Kyoto", tags: [], nested: { empty: {} } }, ...more });

/** What is due at `nowMs`, as `[schedule_id, due ms]` pairs. */
async function due(schedules: ScheduleStore, nowMs: number): Promise<[string, number][]> {
  return (await schedules.dueRecords(nowMs, 1000)).map(({ record, dueMs }) => [record.schedule_id, dueMs]);
}

/** `count` replicas' firing loops take one pass at once; between them they create exactly `expected` tasks. */
async function fireOnReplicas(
  count: number,
  options: Pick<Parameters<typeof createFiring>[0], "schedules" | "backend" | "batch">,
  expected: number,
): Promise<void> {
  const replicas = Array.from({ length: count }, () => createFiring({ ...options, taskTimeoutMs: 60_000, log }));
  const created = await Promise.all(replicas.map((r) => r.pass()));
  assert.is(
    created.reduce((a, b) => a + b, 0),
    expected,
    `per replica: ${created.join(", ")}`,
  );
}

async function rejectsWith(run: () => Promise<unknown>, code: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    assert.ok(isManifoldError(error), `expected a ManifoldError, got ${String(error)}`);
    assert.is((error as { code: string }).code, code);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

export function scheduleStoreCases(name: string, create: ScheduleStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite(`schedule store contract (${name})`);
  test.after(teardown);

  test("create then get returns the record as stored, empty arrays and objects in input kept", async () => {
    const { schedules } = await create({});
    const record = scheduleRecord(BASE + 1000);
    await schedules.create(record);
    assert.equal(await schedules.get(record.schedule_id), record);
    assert.is(await schedules.get("sch-0000000000000000"), undefined);
    assert.is(await schedules.count(), 1);
  });

  test("a taken id is CONFLICT; a full store is UNAVAILABLE; a malformed id never reaches a key", async () => {
    const { schedules } = await create({ maxSchedules: 2 });
    const first = scheduleRecord(BASE);
    await schedules.create(first);
    await rejectsWith(() => schedules.create({ ...first, instruction: "again" }), "CONFLICT");
    await schedules.create(scheduleRecord(BASE));
    await rejectsWith(() => schedules.create(scheduleRecord(BASE)), "UNAVAILABLE");
    assert.is(await schedules.count(), 2);
    for (const bad of ["__proto__", "sch-{x}", "sch-0123"]) {
      try {
        await schedules.get(bad);
        assert.unreachable(bad);
      } catch (error) {
        assert.instance(error, RangeError, bad);
      }
    }
  });

  test("dueRecords lists what is due at or before now with its record: earliest first, ties by id, fire state included, bounded; nextDue is the earliest", async () => {
    const { schedules } = await create({});
    assert.is(await schedules.nextDue(), undefined);
    const every = cron(BASE);
    const tied = [scheduleRecord(BASE + 1000), scheduleRecord(BASE + 1000)].sort((a, b) => (a.schedule_id < b.schedule_id ? -1 : 1));
    const later = scheduleRecord(BASE + 5000);
    for (const record of [later, ...tied, every]) await schedules.create(record);
    assert.is(await schedules.nextDue(), BASE);
    assert.ok(await schedules.advance(every, BASE, BASE + 500, "2030-06-01T00:00:00.010Z"));
    assert.is(await schedules.nextDue(), BASE + 500);
    const read = await schedules.dueRecords(BASE + 1000, 10);
    assert.equal(await due(schedules, BASE + 1000), [
      [every.schedule_id, BASE + 500],
      [tied[0]!.schedule_id, BASE + 1000],
      [tied[1]!.schedule_id, BASE + 1000],
    ]);
    assert.equal(
      read.map((d) => d.record),
      await Promise.all([every, ...tied].map((r) => schedules.get(r.schedule_id))),
      "the records get returns: input with its empty array and object, next_run_at at the due time, the fire state",
    );
    assert.equal([read[0]!.record.fire_count, read[0]!.record.last_fired_at], [1, "2030-06-01T00:00:00.010Z"]);
    assert.is((await schedules.dueRecords(BASE + 10_000, 2)).length, 2);
    assert.equal(await schedules.dueRecords(BASE - 1, 10), []);
    for (const bad of [0, 1001, 1.5]) {
      try {
        await schedules.dueRecords(BASE, bad);
        assert.unreachable(String(bad));
      } catch (error) {
        assert.instance(error, RangeError);
      }
    }
  });

  test("list pages soonest first and filters by target agent", async () => {
    const { schedules } = await create({});
    const mine = [scheduleRecord(BASE + 3000), scheduleRecord(BASE + 1000), scheduleRecord(BASE + 2000)];
    const theirs = scheduleRecord(BASE + 1500, { target_agent: "other-agent" });
    for (const record of [...mine, theirs]) await schedules.create(record);
    const ids = (records: ScheduleRecord[]) => records.map((r) => r.schedule_id);
    assert.equal(ids(await schedules.list({ target_agent: "travel-agent" })), ids([mine[1]!, mine[2]!, mine[0]!]));
    assert.equal(ids(await schedules.list({ target_agent: "travel-agent", offset: 1, limit: 1 })), [mine[2]!.schedule_id]);
    assert.equal(ids(await schedules.list()), ids([mine[1]!, theirs, mine[2]!, mine[0]!]));
    assert.equal(await schedules.list({ target_agent: "nobody" }), []);
    for (const bad of [{ limit: 0 }, { limit: 501 }, { offset: -1 }, { limit: 1.5 }]) {
      try {
        await schedules.list(bad);
        assert.unreachable(JSON.stringify(bad));
      } catch (error) {
        assert.instance(error, RangeError);
      }
    }
  });

  test("update replaces the definition and re-indexes; retime false keeps the due time; the fire state stays the store's", async () => {
    const { schedules } = await create({});
    const record = cron(BASE);
    await schedules.create(record);
    assert.ok(await schedules.advance(record, BASE, BASE + 300_000, "2030-06-01T00:00:00.100Z"));
    // A copy read before that firing: its fire_count 0 and old next_run_at must not undo it.
    assert.ok(await schedules.update({ ...record, instruction: "changed" }, { retime: false }));
    const kept = (await schedules.get(record.schedule_id))!;
    assert.equal(
      [kept.instruction, kept.next_run_at, kept.fire_count, kept.last_fired_at],
      ["changed", new Date(BASE + 300_000).toISOString(), 1, "2030-06-01T00:00:00.100Z"],
    );
    assert.ok(await schedules.update({ ...kept, cron_expr: "0 * * * *", next_run_at: new Date(BASE + 3_600_000).toISOString() }));
    assert.equal(await due(schedules, BASE + 3_600_000), [[record.schedule_id, BASE + 3_600_000]]);
    assert.is((await schedules.get(record.schedule_id))!.fire_count, 1);
    assert.is(await schedules.update(scheduleRecord(BASE)), false, "an unknown id is not created by update");
  });

  test("delete removes the record and its index entries", async () => {
    const { schedules } = await create({});
    const record = scheduleRecord(BASE);
    await schedules.create(record);
    assert.is(await schedules.delete(record.schedule_id), true);
    assert.is(await schedules.delete(record.schedule_id), false);
    assert.is(await schedules.get(record.schedule_id), undefined);
    assert.equal(await due(schedules, BASE), []);
    assert.equal(await schedules.list({ target_agent: record.target_agent }), []);
    assert.is(await schedules.count(), 0);
  });

  test("advance: a one-shot is deleted, a recurring one re-indexed with its count; a stale due time changes nothing", async () => {
    const { schedules } = await create({});
    const once = scheduleRecord(BASE);
    const every = cron(BASE);
    await schedules.create(once);
    await schedules.create(every);
    assert.is(await schedules.advance(once, BASE - 1, null, "x"), false, "stale due time");
    assert.is(await schedules.advance(once, BASE, null, new Date(BASE).toISOString()), true);
    assert.is(await schedules.get(once.schedule_id), undefined);
    assert.is(await schedules.advance(every, BASE, BASE + 300_000, "2030-06-01T00:00:00.050Z"), true);
    assert.is(await schedules.advance(every, BASE, BASE + 300_000, "2030-06-01T00:00:00.060Z"), false, "already advanced");
    const after = (await schedules.get(every.schedule_id))!;
    assert.equal([after.next_run_at, after.fire_count, after.last_fired_at], [new Date(BASE + 300_000).toISOString(), 1, "2030-06-01T00:00:00.050Z"]);
    assert.is(await schedules.advance(scheduleRecord(BASE), BASE, null, "x"), false, "unknown id");
  });

  test("20 concurrent advances of one occurrence: exactly one applies", async () => {
    const { schedules } = await create({});
    const every = cron(BASE);
    await schedules.create(every);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => schedules.advance(every, BASE, BASE + 300_000, `2030-06-01T00:00:00.${String(i).padStart(3, "0")}Z`)),
    );
    assert.is(results.filter(Boolean).length, 1);
    assert.is((await schedules.get(every.schedule_id))!.fire_count, 1);
  });

  test("advance racing a cancel: the schedule is gone either way and fires at most once", async () => {
    const { schedules } = await create({});
    const once = scheduleRecord(BASE);
    await schedules.create(once);
    const [advanced, deleted] = await Promise.all([schedules.advance(once, BASE, null, "x"), schedules.delete(once.schedule_id)]);
    assert.ok(advanced !== deleted || !advanced, "not both");
    assert.is(await schedules.get(once.schedule_id), undefined);
  });

  test("firing claim: four replicas firing 200 due schedules create exactly one task per occurrence", async () => {
    const { schedules, store } = await create({});
    const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
    const now = Date.now();
    const records = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? cron(now - 2000, { cron_expr: "* * * * *" }) : scheduleRecord(now - 1000)));
    for (const record of records) await schedules.create(record);
    await fireOnReplicas(4, { schedules, backend }, 200);
    assert.is(await backend.depth(), 200);
    for (const record of records) {
      const dueMs = Date.parse(record.next_run_at);
      assert.ok(await backend.get(`${record.schedule_id}:${Math.floor(dueMs / 1000)}`), record.schedule_id);
    }
    assert.is(await schedules.count(), 50, "one-shots deleted, cron schedules advanced");
    assert.equal(await due(schedules, now), [], "nothing left due");
    await backend.close();
  });

  test("batch firing: one replica reads each due schedule once, each next batch read behind the last one's advance", async () => {
    const { schedules, store } = await create({});
    const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
    const now = Date.now();
    const records = Array.from({ length: 250 }, () => scheduleRecord(now - 1000));
    for (const record of records) await schedules.create(record);
    let creates = 0;
    const counted = {
      ...backend,
      create: (task: Parameters<typeof backend.create>[0]) => {
        creates += 1;
        return backend.create(task);
      },
    };
    assert.is(await createFiring({ schedules, backend: counted, taskTimeoutMs: 60_000, log, batch: 50 }).pass(), 250);
    assert.is(creates, 250, "no schedule was read (and enqueued) twice");
    assert.is(await schedules.count(), 0);
    await backend.close();
  });

  test("batch firing: four replicas in batches of 40 over 600 due schedules create exactly one task per occurrence", async () => {
    const { schedules, store } = await create({});
    const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
    const now = Date.now();
    // Two due times, so batches straddle them; a fifth are cron schedules, advanced rather than deleted.
    const records = Array.from({ length: 600 }, (_, i) =>
      i % 5 === 0 ? cron(now - 2000, { cron_expr: "* * * * *" }) : scheduleRecord(now - (i % 2 === 0 ? 1000 : 3000)),
    );
    for (let i = 0; i < records.length; i += 100) await Promise.all(records.slice(i, i + 100).map((record) => schedules.create(record)));
    await fireOnReplicas(4, { schedules, backend, batch: 40 }, 600);
    assert.is(await backend.depth(), 600);
    assert.is(await schedules.count(), 120, "one-shots deleted, cron schedules advanced");
    assert.equal(await due(schedules, now), [], "nothing left due");
    for (const record of records.filter((r) => r.recurring)) assert.is((await schedules.get(record.schedule_id))!.fire_count, 1, record.schedule_id);
    await backend.close();
  });

  test.run();
}
