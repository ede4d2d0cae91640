/**
 * The task backend contract: one suite, run against every adapter (tasks-memory.test.ts,
 * tasks-redis.test.ts, tasks-cluster.test.ts). Each test gets a fresh queue (a new namespace on
 * Redis); `make` opens as many backends on it as the test needs, as several processes would. Leases
 * and TTLs are short and on the real clock, so expiry is what the adapter really does. Delivery under
 * concurrency and blocking waits are in tasks-delivery.cases.ts. No case is skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { NewTask, TaskBackend, TaskBackendOptions } from "../../runtime/tasks/types.js";
import { sleep } from "../support/wait.js";

export interface TasksUnderTest {
  /** A backend on this test's queue; every call opens another one on the same data. Closed by `close`. */
  make(options?: TaskBackendOptions): TaskBackend;
  close(): Promise<void>;
}

export type TasksFactory = () => Promise<TasksUnderTest>;

let seq = 0;
export function newTask(overrides: Partial<NewTask> = {}): NewTask {
  seq += 1;
  return { task_id: `t-${process.pid}-${seq}`, type: "research", input: { destination: "Paris", n: seq }, timeout_ms: 60_000, ...overrides };
}

export async function rejectsWith(run: () => Promise<unknown>, code: string): Promise<ManifoldError> {
  try {
    await run();
  } catch (error) {
    assert.instance(error, ManifoldError);
    assert.is((error as ManifoldError).code, code);
    return error as ManifoldError;
  }
  assert.unreachable(`expected a ManifoldError ${code}, nothing was thrown`);
  throw new Error("unreachable");
}

export const LEASE = { count: 1, leaseMs: 30_000, blockMs: 0 } as const;

/** Takes exactly the next task. */
export async function takeOne(backend: TaskBackend, leaseMs = 30_000) {
  const leases = await backend.dequeue({ count: 1, leaseMs, blockMs: 0 });
  assert.is(leases.length, 1, "one task taken");
  return leases[0]!;
}

/**
 * A time the store wrote between `before` and `after` (this host's clock; the Redis servers of these
 * suites run on the same host). Bracketing the call instead of allowing a slack says nothing about
 * how long the call took.
 */
function between(iso: string | undefined, before: number, after: number): void {
  assert.ok(iso !== undefined, "timestamp present");
  const at = Date.parse(iso!);
  assert.ok(at >= before && at <= after, `${iso} is between ${new Date(before).toISOString()} and ${new Date(after).toISOString()}`);
}

export function taskCases(adapter: string, create: TasksFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite<{ under?: TasksUnderTest }>(`task backend contract (${adapter})`, {});
  test.after(teardown);
  test.before.each(async (context) => {
    context.under = await create();
  });
  test.after.each(async ({ under }) => {
    await under?.close();
  });

  test("create stores a queued task; get returns it as written", async ({ under }) => {
    const b = under!.make();
    const task = newTask({ trace: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "k=v" } });
    const before = Date.now();
    const created = await b.create(task);
    const after = Date.now();
    const read = await b.get(task.task_id);
    assert.equal(read, created);
    const { created_at, ...rest } = read!;
    assert.equal(rest, { task_id: task.task_id, type: "research", status: "queued", input: task.input, timeout_ms: 60_000, deliveries: 0, trace: task.trace });
    between(created_at, before, after);
    assert.is(await b.get("no-such-task"), undefined);
  });

  test("inputs and results keep their exact JSON: big integers, long decimals, empty arrays, newlines", async ({ under }) => {
    const b = under!.make();
    const tricky = {
      max: 9_007_199_254_740_991,
      tiny: 0.1 + 0.2,
      neg: -1.5e-300,
      empty: [],
      obj: {},
      text: "line 1\nline 2 | pipe \u2028 ünïcødé 🎉",
      nested: [[1, [2, [3]]], null, true],
    };
    const task = newTask({ input: tricky });
    await b.create(task);
    const lease = await takeOne(b);
    assert.equal(lease.task.input, tricky);
    assert.is(await b.complete(task.task_id, lease.token, tricky), "ok");
    assert.equal((await b.get(task.task_id))!.result, tricky);
  });

  test("a copy each time: mutating a returned record changes nothing stored", async ({ under }) => {
    const b = under!.make();
    const task = newTask({ input: { list: [1, 2] } });
    const created = await b.create(task);
    (created.input as { list: number[] }).list.push(3);
    const read = await b.get(task.task_id);
    (read!.input as { list: number[] }).list.push(4);
    assert.equal((await b.get(task.task_id))!.input, { list: [1, 2] });
  });

  test("create with an id that exists is TASK_EXISTS, whatever the task's status; the first task is untouched", async ({ under }) => {
    const b = under!.make();
    const task = newTask();
    await b.create(task);
    await rejectsWith(() => b.create({ ...task, input: { other: true } }), "TASK_EXISTS");
    const lease = await takeOne(b);
    await rejectsWith(() => b.create(task), "TASK_EXISTS");
    await b.complete(task.task_id, lease.token, { ok: 1 });
    await rejectsWith(() => b.create(task), "TASK_EXISTS");
    const read = await b.get(task.task_id);
    assert.equal([read!.status, read!.input, read!.result], ["completed", task.input, { ok: 1 }]);
    assert.is(await b.depth(), 0, "the refused creates queued nothing");
  });

  test("concurrent creates of one id: exactly one wins", async ({ under }) => {
    const [b1, b2] = [under!.make(), under!.make()];
    const task = newTask();
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? b1 : b2).create({ ...task, input: i })));
    assert.is(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of results) if (r.status === "rejected") assert.is((r.reason as ManifoldError).code, "TASK_EXISTS");
    assert.is(await b1.depth(), 1);
  });

  test("an invalid task is INVALID_INPUT and nothing is stored", async ({ under }) => {
    const b = under!.make();
    const bad: NewTask[] = [
      newTask({ task_id: "has space" }),
      newTask({ task_id: "{brace}" }),
      newTask({ task_id: "" }),
      newTask({ type: "" }),
      newTask({ timeout_ms: 0 }),
      newTask({ timeout_ms: 1.5 }),
      newTask({ input: { n: 10n } }),
    ];
    for (const task of bad) await rejectsWith(() => b.create(task), "INVALID_INPUT");
    await rejectsWith(() => b.get("x{y}"), "INVALID_INPUT");
    assert.is(await b.depth(), 0);
  });

  test("dequeue: queued → running in FIFO order, deliveries 1, started_at, a token per lease, the lease's expiry", async ({ under }) => {
    const b = under!.make();
    const tasks = [newTask(), newTask(), newTask()];
    for (const t of tasks) await b.create(t);
    const before = Date.now();
    const leases = await b.dequeue({ count: 2, leaseMs: 10_000, blockMs: 0 });
    const after = Date.now();
    assert.equal(
      leases.map((l) => l.task.task_id),
      [tasks[0]!.task_id, tasks[1]!.task_id],
    );
    for (const lease of leases) {
      assert.equal([lease.task.status, lease.task.deliveries], ["running", 1]);
      between(lease.task.started_at, before, after);
      assert.ok(lease.expiresAt === Date.parse(lease.task.started_at!) + 10_000, "expiry is now + leaseMs");
      assert.equal(await b.get(lease.task.task_id), lease.task, "the lease carries the stored record");
    }
    assert.is.not(leases[0]!.token, leases[1]!.token);
    assert.is(await b.depth(), 1);
    const last = await b.dequeue({ count: 5, leaseMs: 10_000, blockMs: 0 });
    assert.equal(
      last.map((l) => l.task.task_id),
      [tasks[2]!.task_id],
    );
    assert.equal(await b.dequeue({ count: 5, leaseMs: 10_000, blockMs: 0 }), [], "empty queue");
  });

  test("complete: running → completed with its result and completed_at; every later write is refused", async ({ under }) => {
    const b = under!.make();
    const task = newTask();
    await b.create(task);
    const lease = await takeOne(b);
    assert.is(await b.progress(task.task_id, lease.token, { percentage: 50 }), "ok");
    const before = Date.now();
    assert.is(await b.complete(task.task_id, lease.token, { answer: 42 }), "ok");
    const after = Date.now();
    const done = (await b.get(task.task_id))!;
    assert.equal([done.status, done.result, done.error, done.deliveries, done.progress], ["completed", { answer: 42 }, undefined, 1, { percentage: 50 }]);
    between(done.completed_at, before, after);
    assert.is(await b.complete(task.task_id, lease.token, { answer: 0 }), "lost");
    assert.is(await b.fail(task.task_id, lease.token, { code: "HANDLER_ERROR", message: "late" }), "lost");
    assert.is(await b.progress(task.task_id, lease.token, { percentage: 99 }), "lost");
    assert.is(await b.release(task.task_id, lease.token), "lost");
    assert.equal(await b.extend([{ taskId: task.task_id, token: lease.token }], 1_000), new Map([[task.task_id, "lost"]]));
    assert.equal(await b.get(task.task_id), done, "unchanged by the refused writes");
    assert.is(await b.depth(), 0);
  });

  test("a handler that returns nothing completes with no result", async ({ under }) => {
    const b = under!.make();
    const task = newTask();
    await b.create(task);
    const lease = await takeOne(b);
    assert.is(await b.complete(task.task_id, lease.token, undefined), "ok");
    const done = (await b.get(task.task_id))!;
    assert.equal([done.status, "result" in done], ["completed", false]);
  });

  test("fail: running → failed with its error; complete afterwards is refused", async ({ under }) => {
    const b = under!.make();
    const task = newTask();
    await b.create(task);
    const lease = await takeOne(b);
    const before = Date.now();
    assert.is(await b.fail(task.task_id, lease.token, { code: "HANDLER_ERROR", message: "no such city" }), "ok");
    const after = Date.now();
    assert.is(await b.complete(task.task_id, lease.token, {}), "lost");
    const failed = (await b.get(task.task_id))!;
    assert.equal([failed.status, failed.error, failed.result], ["failed", { code: "HANDLER_ERROR", message: "no such city" }, undefined]);
    between(failed.completed_at, before, after);
  });

  test("writes that need a lease are refused on a queued task, and with a wrong token on a running one", async ({ under }) => {
    const b = under!.make();
    const queued = newTask();
    await b.create(queued);
    for (const write of [
      () => b.complete(queued.task_id, "forged", {}),
      () => b.fail(queued.task_id, "forged", { code: "HANDLER_ERROR", message: "x" }),
      () => b.progress(queued.task_id, "forged", { percentage: 1 }),
      () => b.release(queued.task_id, "forged"),
    ])
      assert.is(await write(), "lost");
    assert.equal(await b.extend([{ taskId: queued.task_id, token: "" }], 1_000), new Map([[queued.task_id, "lost"]]));
    assert.is((await b.get(queued.task_id))!.status, "queued");

    const lease = await takeOne(b);
    assert.is(await b.complete(queued.task_id, `${lease.token}x`, {}), "lost");
    assert.is(await b.complete(queued.task_id, "", {}), "lost");
    assert.is(await b.progress(queued.task_id, "forged", { percentage: 1 }), "lost");
    const running = (await b.get(queued.task_id))!;
    assert.equal([running.status, running.progress], ["running", undefined]);
    assert.is(await b.complete("never-created", lease.token, {}), "lost", "an unknown id");
  });

  test("finishMany: each outcome checked on its own, answered in order; a result JSON cannot carry fails the task", async ({ under }) => {
    const b = under!.make();
    const tasks = [newTask(), newTask(), newTask(), newTask(), newTask()];
    for (const t of tasks) await b.create(t);
    const leases = await b.dequeue({ count: 5, leaseMs: 30_000, blockMs: 0 });
    const [l0, l1, l2, l3, l4] = leases as [
      (typeof leases)[0] & object,
      (typeof leases)[0] & object,
      (typeof leases)[0] & object,
      (typeof leases)[0] & object,
      (typeof leases)[0] & object,
    ];
    await b.cancel(l2.task.task_id);
    assert.equal(await b.finishMany([]), []);
    const answers = await b.finishMany([
      { status: "completed", taskId: l0.task.task_id, token: l0.token, result: { n: 0 } },
      { status: "failed", taskId: l1.task.task_id, token: l1.token, error: { code: "HANDLER_ERROR", message: "bad" } },
      { status: "completed", taskId: l2.task.task_id, token: l2.token, result: { n: 2 } },
      { status: "completed", taskId: l3.task.task_id, token: "stale", result: { n: 3 } },
      { status: "completed", taskId: l4.task.task_id, token: l4.token, result: { n: 10n } },
    ]);
    assert.equal(answers, ["ok", "ok", "cancelled", "lost", "ok"]);
    const read = await Promise.all(leases.map((l) => b.get(l.task.task_id)));
    assert.equal(
      read.map((r) => r!.status),
      ["completed", "failed", "cancelled", "running", "failed"],
    );
    assert.equal(read[0]!.result, { n: 0 });
    assert.is(read[2]!.result, undefined, "a cancelled task is not overwritten");
    assert.is(read[4]!.error!.code, "HANDLER_PANIC");
  });

  test("progress: the lease holder's latest progress is visible through get", async ({ under }) => {
    const b = under!.make();
    const task = newTask();
    await b.create(task);
    const lease = await takeOne(b);
    const progress = { current_step: 2, total_steps: 4, step_name: "weather", percentage: 50, message: "half way" };
    assert.is(await b.progress(task.task_id, lease.token, { current_step: 1, total_steps: 4 }), "ok");
    assert.is(await b.progress(task.task_id, lease.token, progress), "ok");
    assert.equal((await b.get(task.task_id))!.progress, progress);
  });

  test("cancel a queued task: cancelled with TASK_CANCELLED, and never dequeued", async ({ under }) => {
    const b = under!.make();
    const [first, second] = [newTask(), newTask()];
    await b.create(first);
    await b.create(second);
    const before = Date.now();
    const { outcome, task } = await b.cancel(first.task_id);
    const after = Date.now();
    assert.is(outcome, "cancelled");
    assert.equal([task!.status, task!.error], ["cancelled", { code: "TASK_CANCELLED", message: task!.error!.message }]);
    between(task!.completed_at, before, after);
    assert.equal(await b.get(first.task_id), task);
    assert.is(await b.depth(), 1);
    const taken = await b.dequeue({ count: 10, leaseMs: 30_000, blockMs: 0 });
    assert.equal(
      taken.map((l) => l.task.task_id),
      [second.task_id],
      "the cancelled task is skipped",
    );
    assert.equal(await b.dequeue({ count: 10, leaseMs: 30_000, blockMs: 0 }), []);
    assert.is((await b.get(first.task_id))!.status, "cancelled");
    assert.is(await b.depth(), 0);
  });

  test("cancel a running task: extend reports cancelled, every write by the worker is refused, the lease never redelivers it", async ({ under }) => {
    const b = under!.make();
    const task = newTask();
    await b.create(task);
    const lease = await takeOne(b, 200);
    assert.is(await b.progress(task.task_id, lease.token, { percentage: 10 }), "ok");
    const { outcome, task: cancelled } = await b.cancel(task.task_id);
    assert.is(outcome, "cancelled");
    assert.equal([cancelled!.status, cancelled!.error!.code, cancelled!.progress], ["cancelled", "TASK_CANCELLED", { percentage: 10 }]);
    assert.equal(await b.extend([{ taskId: task.task_id, token: lease.token }], 1_000), new Map([[task.task_id, "cancelled"]]));
    assert.is(await b.complete(task.task_id, lease.token, { late: true }), "cancelled");
    assert.is(await b.fail(task.task_id, lease.token, { code: "HANDLER_ERROR", message: "x" }), "cancelled");
    assert.is(await b.progress(task.task_id, lease.token, { percentage: 90 }), "cancelled");
    assert.is(await b.release(task.task_id, lease.token), "cancelled");
    await sleep(350);
    assert.equal(await b.dequeue({ count: 10, leaseMs: 1_000, blockMs: 0 }), [], "not redelivered after its lease lapsed");
    assert.equal(await b.get(task.task_id), cancelled, "still cancelled, nothing overwritten");
  });

  test("cancel a finished task is `finished` with the record unchanged; an unknown id is `not_found`", async ({ under }) => {
    const b = under!.make();
    const [completed, failed, cancelled] = [newTask(), newTask(), newTask()];
    for (const t of [completed, failed, cancelled]) await b.create(t);
    const [l1, l2] = await b.dequeue({ count: 2, leaseMs: 30_000, blockMs: 0 });
    await b.complete(completed.task_id, l1!.token, { ok: true });
    await b.fail(failed.task_id, l2!.token, { code: "HANDLER_PANIC", message: "boom" });
    await b.cancel(cancelled.task_id);
    for (const t of [completed, failed, cancelled]) {
      const before = await b.get(t.task_id);
      assert.equal(await b.cancel(t.task_id), { outcome: "finished", task: before });
      assert.equal(await b.get(t.task_id), before);
    }
    assert.equal(await b.cancel("no-such-task"), { outcome: "not_found" });
  });

  test("release puts a running task back at the head of the queue, its delivery not counted", async ({ under }) => {
    const b = under!.make();
    const [a, c] = [newTask(), newTask()];
    await b.create(a);
    await b.create(c);
    const lease = await takeOne(b);
    assert.is(lease.task.task_id, a.task_id);
    assert.is(await b.progress(a.task_id, lease.token, { percentage: 30 }), "ok");
    assert.is(await b.release(a.task_id, lease.token), "ok");
    const released = (await b.get(a.task_id))!;
    assert.equal([released.status, released.deliveries], ["queued", 0]);
    assert.is(await b.depth(), 2);
    assert.is(await b.complete(a.task_id, lease.token, {}), "lost", "the released lease is dead");
    const again = await takeOne(b);
    assert.equal([again.task.task_id, again.task.deliveries], [a.task_id, 1], "first in line, still its first delivery");
    assert.is.not(again.token, lease.token);
    assert.is(again.task.started_at, lease.task.started_at, "started_at keeps the first start");
    assert.is(await b.release(a.task_id, lease.token), "lost");
  });

  test("depth counts queued tasks only", async ({ under }) => {
    const b = under!.make();
    assert.is(await b.depth(), 0);
    const tasks = Array.from({ length: 5 }, () => newTask());
    for (const t of tasks) await b.create(t);
    assert.is(await b.depth(), 5);
    const leases = await b.dequeue({ count: 2, leaseMs: 30_000, blockMs: 0 });
    assert.is(await b.depth(), 3);
    await b.cancel(tasks[4]!.task_id);
    assert.is(await b.depth(), 2);
    await b.release(leases[0]!.task.task_id, leases[0]!.token);
    assert.is(await b.depth(), 3);
    await b.cancel(leases[1]!.task.task_id);
    assert.is(await b.depth(), 3, "cancelling a running task leaves the queue as it was");
  });

  test("finished records expire after ttlMs; queued and running ones never do", async ({ under }) => {
    const b = under!.make({ ttlMs: 300 });
    const [completed, failed, cancelled, waiting, running] = Array.from({ length: 5 }, () => newTask());
    for (const t of [completed, failed, running, cancelled, waiting]) await b.create(t!);
    const [l1, l2, l3] = await b.dequeue({ count: 3, leaseMs: 30_000, blockMs: 0 });
    assert.equal([l1!.task.task_id, l2!.task.task_id, l3!.task.task_id], [completed!.task_id, failed!.task_id, running!.task_id]);
    await b.complete(completed!.task_id, l1!.token, {});
    await b.fail(failed!.task_id, l2!.token, { code: "HANDLER_ERROR", message: "x" });
    await b.cancel(cancelled!.task_id);
    assert.ok(await b.get(completed!.task_id), "kept at first");
    await sleep(550);
    for (const t of [completed, failed, cancelled]) assert.is(await b.get(t!.task_id), undefined, `${t!.task_id} expired`);
    assert.is((await b.get(waiting!.task_id))!.status, "queued");
    assert.is((await b.get(running!.task_id))!.status, "running");
    assert.equal(await b.cancel(completed!.task_id), { outcome: "not_found" });
    const taken = await b.dequeue({ count: 10, leaseMs: 30_000, blockMs: 0 });
    assert.equal(
      taken.map((l) => l.task.task_id),
      [waiting!.task_id],
      "the expired cancelled task is not dequeued",
    );
  });

  test("queues are separate: a task of one queue is invisible to another", async ({ under }) => {
    const a = under!.make({ queue: "agent-a" });
    const other = under!.make({ queue: "agent-b" });
    const task = newTask();
    await a.create(task);
    assert.is(await other.get(task.task_id), undefined);
    assert.equal(await other.dequeue({ count: 10, leaseMs: 1_000, blockMs: 0 }), []);
    assert.equal(await other.cancel(task.task_id), { outcome: "not_found" });
    assert.is(await other.depth(), 0);
    await other.create(task);
    assert.is(await a.depth(), 1, "the same id in another queue is another task");
  });

  test("a closed backend refuses calls with UNAVAILABLE", async ({ under }) => {
    const b = under!.make();
    await b.create(newTask());
    await b.close();
    await b.close();
    await rejectsWith(() => b.get("x"), "UNAVAILABLE");
    await rejectsWith(() => b.create(newTask()), "UNAVAILABLE");
    await rejectsWith(() => b.dequeue(LEASE), "UNAVAILABLE");
    assert.is(await under!.make().depth(), 1, "another backend on the same data is unaffected");
  });

  test("bad dequeue and extend options are refused before anything is taken", async ({ under }) => {
    const b = under!.make();
    await b.create(newTask());
    for (const options of [
      { count: 0, leaseMs: 1_000, blockMs: 0 },
      { count: 1, leaseMs: 0, blockMs: 0 },
      { count: 1, leaseMs: 1_000, blockMs: -1 },
      { count: 1.5, leaseMs: 1_000, blockMs: 0 },
    ]) {
      try {
        await b.dequeue(options);
        assert.unreachable(`accepted ${JSON.stringify(options)}`);
      } catch (error) {
        assert.instance(error, RangeError);
      }
    }
    assert.is(await b.depth(), 1);
  });

  test.run();
}
