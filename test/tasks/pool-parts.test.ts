/**
 * The worker pool's named pieces on their own: what a handler's throw makes of its task, the status a
 * batched write leaves, how many slots are free, and the tick's timeouts over a hand-built PoolState.
 * The pool as a whole is in worker-pool.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { MAX_ERROR_MESSAGE, outcomeOfThrow, PANIC_MESSAGE, writtenStatus } from "../../runtime/tasks/pool-outcomes.js";
import type { PoolState } from "../../runtime/tasks/pool-state.js";
import { timeOutRuns } from "../../runtime/tasks/pool-tick.js";
import { TaskRun } from "../../runtime/tasks/task-run.js";
import type { TaskBackend, TaskRecord } from "../../runtime/tasks/types.js";
import { freeSlots } from "../../runtime/tasks/worker-pool.js";
import { createManualClock } from "../support/clock.js";
import { silentLogger } from "./support.js";

test("outcomeOfThrow: ManifoldError → HANDLER_ERROR (unexposed: internal error); an Error → HANDLER_ERROR with its message; TypeError, ReferenceError, non-Errors → HANDLER_PANIC", () => {
  assert.equal(outcomeOfThrow(new ManifoldError("NOT_FOUND", "no city")), { error: { code: "HANDLER_ERROR", message: "no city" } });
  assert.equal(outcomeOfThrow(new ManifoldError("INTERNAL", "db password", { expose: false })), {
    error: { code: "HANDLER_ERROR", message: "internal error" },
  });
  assert.equal(outcomeOfThrow(new Error("the hotel is full")), { error: { code: "HANDLER_ERROR", message: "the hotel is full" }, log: "warn" });
  assert.is(outcomeOfThrow(new Error("x".repeat(5_000))).error.message.length, MAX_ERROR_MESSAGE);
  const nameless = new RangeError("");
  assert.equal(outcomeOfThrow(nameless).error, { code: "HANDLER_ERROR", message: "RangeError" }, "an empty message says the error's name");
  for (const thrown of [new TypeError("x of undefined"), new ReferenceError("y is not defined"), "a string", undefined, { code: 1 }]) {
    assert.equal(outcomeOfThrow(thrown), { error: { code: "HANDLER_PANIC", message: PANIC_MESSAGE }, log: "error" }, String(thrown));
  }
});

test("writtenStatus: the outcome's status when the write was ok, cancelled when the task was, else back to the queue (lost)", () => {
  const completed = { status: "completed", taskId: "a", token: "t", result: 1 } as const;
  const failed = { status: "failed", taskId: "a", token: "t", error: { code: "X", message: "" } } as const;
  assert.equal(
    [
      writtenStatus(completed, "ok"),
      writtenStatus(failed, "ok"),
      writtenStatus(completed, "cancelled"),
      writtenStatus(failed, "lost"),
      writtenStatus(completed, undefined),
    ],
    ["completed", "failed", "cancelled", "queued", "queued"],
  );
});

test("freeSlots: free handler slots, capped by leases still waiting for their write (at most 2 × workerCount held)", () => {
  const pool = (active: number, inflight: number) =>
    freeSlots({
      settings: { workerCount: 4, leaseMs: 1_000, tickMs: 100, idleWaitMs: 0 },
      active,
      inflight: new Map(Array.from({ length: inflight }, (_, i) => [String(i), {} as TaskRun])),
    });
  assert.equal([pool(0, 0), pool(3, 3), pool(4, 4), pool(0, 6), pool(1, 8)], [4, 1, 0, 2, 0]);
});

test("timeOutRuns: a run past its deadline is aborted and failed TASK_TIMEOUT; one before it, or already done, is left alone", () => {
  const clock = createManualClock();
  const record = (id: string, timeout: number): TaskRecord => ({
    task_id: id,
    type: "x",
    status: "running",
    input: {},
    timeout_ms: timeout,
    created_at: "",
    deliveries: 1,
  });
  const sink = async () => undefined;
  const late = new TaskRun({ task: record("late", 100), token: "t1", expiresAt: 0 }, undefined, sink, clock.now());
  const onTime = new TaskRun({ task: record("on-time", 101), token: "t2", expiresAt: 0 }, undefined, sink, clock.now());
  const finished = new TaskRun({ task: record("finished", 1), token: "t3", expiresAt: 0 }, undefined, sink, clock.now());
  finished.done = true;
  const pool = {
    inflight: new Map([
      ["late", late],
      ["on-time", onTime],
      ["finished", finished],
    ]),
    pending: [],
    flushScheduled: true, // no write is sent: the outcomes are read from `pending`
    active: 2,
    wake: undefined,
    log: silentLogger(),
    backend: {} as TaskBackend,
  } as unknown as PoolState;
  timeOutRuns(pool, clock.now() + 100);
  assert.equal(
    pool.pending.map((p) => [p.entry.taskId, p.outcome]),
    [["late", { status: "failed", taskId: "late", token: "t1", error: { code: "TASK_TIMEOUT", message: "the task ran past its timeout of 100 ms" } }]],
  );
  assert.equal([late.done, late.aborted, (late.reason as ManifoldError).code, onTime.aborted, finished.aborted], [true, true, "TASK_TIMEOUT", false, false]);
  assert.is(pool.active, 1, "its slot is given back");
});

test.run();
