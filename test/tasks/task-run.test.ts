/**
 * A task run's abort, as the runtime's Abortable (what the scheduled executor passes to the outbound
 * caller instead of an AbortSignal per task) and as the handler's AbortSignal: one abort reaches both,
 * once, with the first reason.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { abortSourceOf } from "../../runtime/tasks/index.js";
import { TaskRun } from "../../runtime/tasks/task-run.js";
import type { TaskContext } from "../../runtime/tasks/index.js";

const test = suite("task run abort");

function run(): TaskRun {
  const task = { task_id: "t-1", type: "job", status: "running" as const, input: {}, timeout_ms: 1_000, created_at: new Date().toISOString(), deliveries: 1 };
  return new TaskRun({ task, token: "lease-1", expiresAt: Date.now() + 30_000 }, undefined, async () => undefined, Date.now());
}

test("listeners are called once, with the first reason readable; an unsubscribed one is not", () => {
  const entry = run();
  const calls: string[] = [];
  entry.onAbort(() => calls.push(`a:${String(entry.reason)}`));
  const off = entry.onAbort(() => calls.push("b"));
  off();
  assert.is(entry.aborted, false);
  assert.is(entry.reason, undefined);
  entry.abort("first");
  entry.abort("second");
  assert.equal(calls, ["a:first"]);
  assert.is(entry.aborted, true);
  assert.is(entry.reason, "first");
});

test("a listener added after the abort is never called, as with an AbortSignal", () => {
  const entry = run();
  entry.abort("gone");
  let called = false;
  entry.onAbort(() => (called = true));
  assert.is(called, false);
});

test("the handler's signal sees the same abort, whether read before or after it", () => {
  const before = run();
  const signal = before.signal;
  before.abort("why");
  assert.ok(signal.aborted);
  assert.is(signal.reason, "why");
  const after = run();
  after.abort("late");
  assert.ok(after.signal.aborted);
  assert.is(after.signal.reason, "late");
});

test("abortSourceOf: the run itself for a pool's context, the signal for any other context", () => {
  const entry = run();
  assert.is(abortSourceOf(entry), entry);
  const signal = new AbortController().signal;
  const other = { signal } as unknown as TaskContext;
  assert.is(abortSourceOf(other), signal);
});

test.run();
