/**
 * The execution store contract: one suite, run against every adapter (execution-store-memory.test.ts,
 * execution-store-redis.test.ts). Each test gets a fresh, empty store (a new namespace on Redis);
 * expiry uses short TTLs on the real clock. No case is skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ExecutionRecord, ExecutionStore } from "../../runtime/orchestration/index.js";
import { sleep } from "../support/wait.js";

export type ExecutionStoreFactory = (options: { ttlMs?: number; maxRecords?: number }) => Promise<ExecutionStore>;

let seq = 0;
export function executionRecord(overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  seq += 1;
  const started = new Date(Date.UTC(2030, 0, 1, 0, 0, seq)).toISOString();
  const planId = overrides.plan_id ?? `workflow-${1_900_000_000_000_000_000n + BigInt(seq)}`;
  return {
    plan_id: planId,
    mode: "workflow",
    workflow: "travel-research",
    status: "success",
    plan: {
      plan_id: planId,
      original_request: '{"destination":"Kyoto"}',
      mode: "workflow",
      steps: [
        {
          step_id: "geocode",
          agent_name: "geocoding-service",
          depends_on: [],
          metadata: { capability: "geocode_location", parameters: { location: "${inputs.destination}" } },
          on_error: "fail",
        },
      ],
    },
    steps: [
      {
        step_id: "geocode",
        component: "geocoding-service",
        capability: "geocode_location",
        status: "completed",
        output: { lat: 35, lon: 135.7 },
        attempts: 1,
        duration_ms: 12.5,
        started_at: started,
      },
    ],
    hooks: [{ name: "audit", phase: "before_planning", outcome: "failed_open", error: { code: "UNAVAILABLE", message: "audit down" } }],
    started_at: started,
    finished_at: started,
    ...overrides,
  };
}

export function executionStoreCases(name: string, create: ExecutionStoreFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite<{ stores: ExecutionStore[] }>(`execution store (${name})`, { stores: [] });
  const open = async (context: { stores: ExecutionStore[] }, options: { ttlMs?: number; maxRecords?: number } = {}): Promise<ExecutionStore> => {
    const store = await create(options);
    context.stores.push(store);
    return store;
  };
  test.after.each(async (context) => {
    await Promise.all(context.stores.map((s) => s.close()));
    context.stores = [];
  });
  test.after(teardown);

  test("a saved record reads back whole, by plan id", async (context) => {
    const store = await open(context);
    const record = executionRecord();
    await store.save(record);
    assert.equal(await store.get(record.plan_id), { ...record, revision: 1 }, "with the revision the store gave it");
    assert.is(await store.get("workflow-404"), undefined);
  });

  test("saving the same plan id again replaces the record", async (context) => {
    const store = await open(context);
    const record = executionRecord();
    await store.save(record);
    await store.save({ ...record, status: "failed", error: { code: "HOOK_FAILED", message: "stopped" } });
    const read = await store.get(record.plan_id);
    assert.is(read?.status, "failed");
    assert.equal(read?.error, { code: "HOOK_FAILED", message: "stopped" });
    assert.is((await store.list()).length, 1);
  });

  test("each save of a plan id is one revision past the last, whatever the record says; another plan id starts at 1", async (context) => {
    const store = await open(context);
    const record = executionRecord();
    await store.save({ ...record, revision: 41 });
    assert.is((await store.get(record.plan_id))?.revision, 1);
    await store.save({ ...record, status: "interrupted" });
    await store.save({ ...record, status: "success", revision: 1 });
    const read = await store.get(record.plan_id);
    assert.equal([read?.revision, read?.status], [3, "success"]);
    const other = executionRecord();
    await store.save(other);
    assert.is((await store.get(other.plan_id))?.revision, 1);
  });

  test("a complete record round-trips: ids, rounds with their parameters, phases, hook decisions, HITL state, lifecycle, synthesis", async (context) => {
    const store = await open(context);
    const base = executionRecord({ mode: "natural" });
    const record: ExecutionRecord = {
      ...base,
      request_id: "req-1",
      original_request_id: "req-0",
      steps: [
        {
          ...base.steps[0]!,
          parameters: { location: "Kyoto" },
          rounds: [
            {
              round: 0,
              parameters: { location: "kyoto!" },
              attempts: 1,
              status: "failed",
              error: { code: "INVALID_INPUT", message: "bad" },
              retried_by: "natural.recovery",
            },
            { round: 1, parameters: { location: "Kyoto" }, attempts: 1, status: "completed" },
          ],
        },
      ],
      phases: [{ phase: 1, step_ids: ["geocode"], continue: false, reason: "request", unfinished: [] }],
      hooks: [{ ...base.hooks[0]!, order: 1, duration_ms: 0.25, decision: { policy: "fail_open", action: "continue", reason: "UNAVAILABLE" } }],
      decisions: [{ interceptor: "hitl.checkpoint", stage: "after_execution", action: "pause" }],
      hitl: { checkpoint_id: "cp-1", state: "resumed", decision: "approved" },
      synthesis: "Kyoto is lovely in April.",
      lifecycle: [
        { event: "started", at: base.started_at },
        { event: "completed", at: base.finished_at },
      ],
    };
    await store.save(record);
    assert.equal(await store.get(record.plan_id), { ...record, revision: 1 });
  });

  test("list is newest first by started_at and honours the limit", async (context) => {
    const store = await open(context);
    const records = [executionRecord(), executionRecord(), executionRecord(), executionRecord()];
    // Saved out of order: the order comes from started_at, not from when they were written.
    for (const record of [records[2]!, records[0]!, records[3]!, records[1]!]) await store.save(record);
    assert.equal(
      (await store.list()).map((r) => r.plan_id),
      [...records].reverse().map((r) => r.plan_id),
    );
    assert.equal(
      (await store.list({ limit: 2 })).map((r) => r.plan_id),
      [records[3]!.plan_id, records[2]!.plan_id],
    );
    assert.equal(
      await store.list({ limit: 2 }),
      [records[3], records[2]].map((r) => ({ ...r, revision: 1 })),
      "whole records",
    );
  });

  test("a bad limit or record is refused", async (context) => {
    const store = await open(context);
    for (const limit of [0, -1, 1.5, 1001]) {
      try {
        await store.list({ limit });
        assert.unreachable(`limit ${limit}`);
      } catch (error) {
        assert.instance(error, RangeError);
      }
    }
    try {
      await store.save(executionRecord({ started_at: "yesterday" }));
      assert.unreachable("bad started_at");
    } catch (error) {
      assert.instance(error, RangeError);
    }
  });

  test("records expire after the TTL", async (context) => {
    const store = await open(context, { ttlMs: 150 });
    const record = executionRecord();
    await store.save(record);
    assert.ok(await store.get(record.plan_id));
    await sleep(300);
    assert.is(await store.get(record.plan_id), undefined);
    assert.equal(await store.list(), []);
  });

  test("beyond maxRecords the oldest are dropped from the list", async (context) => {
    const store = await open(context, { maxRecords: 3 });
    const records = [executionRecord(), executionRecord(), executionRecord(), executionRecord(), executionRecord()];
    for (const record of records) await store.save(record);
    assert.equal(
      (await store.list()).map((r) => r.plan_id),
      records
        .slice(2)
        .reverse()
        .map((r) => r.plan_id),
    );
  });

  test("every status and mode round-trips", async (context) => {
    const store = await open(context);
    // Optional fields left out (no workflow in custom mode, no plan when a request stopped before one).
    const { workflow: _workflow, ...custom } = executionRecord({ status: "interrupted", mode: "custom" });
    const { plan: _plan, ...natural } = executionRecord({ mode: "natural" });
    const records: ExecutionRecord[] = [custom, executionRecord({ status: "failed", mode: "yaml", steps: [] }), natural];
    for (const record of records) await store.save(record);
    for (const record of records) assert.equal(await store.get(record.plan_id), { ...record, revision: 1 });
  });

  test.run();
}
