/**
 * The task backend contract, delivery half: leases that lapse (redelivery, zombie workers, the
 * redelivery budget, at-most-once), blocking dequeues, and many dequeuers at once. Run by the same
 * adapter suites as tasks.cases.ts, with the same factory.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { Lease } from "../../runtime/tasks/types.js";
import { sleep, within } from "../support/wait.js";
import { newTask, takeOne, type TasksFactory, type TasksUnderTest } from "./tasks.cases.js";

export function taskDeliveryCases(adapter: string, create: TasksFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite<{ under?: TasksUnderTest }>(`task backend contract, delivery (${adapter})`, {});
  test.after(teardown);
  test.before.each(async (context) => {
    context.under = await create();
  });
  test.after.each(async ({ under }) => {
    await under?.close();
  });

  test("a lapsed lease is redelivered with deliveries + 1 and a new token; the zombie's writes are `lost`", async ({ under }) => {
    const [zombie, live] = [under!.make(), under!.make()];
    const task = newTask();
    await zombie.create(task);
    const first = await takeOne(zombie, 150);
    assert.equal(await live.dequeue({ count: 1, leaseMs: 150, blockMs: 0 }), [], "not while the lease holds");
    await sleep(250);
    const second = await takeOne(live, 30_000);
    assert.equal([second.task.task_id, second.task.status, second.task.deliveries], [task.task_id, "running", 2]);
    assert.is.not(second.token, first.token);
    assert.is(second.task.started_at, first.task.started_at, "started_at keeps the first start");
    assert.is(await zombie.progress(task.task_id, first.token, { percentage: 99 }), "lost");
    assert.equal(await zombie.extend([{ taskId: task.task_id, token: first.token }], 30_000), new Map([[task.task_id, "lost"]]));
    assert.is(await zombie.complete(task.task_id, first.token, { from: "zombie" }), "lost");
    assert.is(await zombie.release(task.task_id, first.token), "lost");
    assert.is(await live.complete(task.task_id, second.token, { from: "live" }), "ok");
    assert.equal((await live.get(task.task_id))!.result, { from: "live" });
  });

  test("extend keeps a lease alive past its first expiry; a lapsed but unclaimed lease may still be extended", async ({ under }) => {
    const [worker, other] = [under!.make(), under!.make()];
    const task = newTask();
    await worker.create(task);
    // Leases of a second extended every half second: five extensions carry it well past its first
    // expiry, and a loaded machine's stall of a few hundred ms between an extend and the other
    // worker's dequeue cannot lapse it.
    const lease = await takeOne(worker, 1_000);
    for (let i = 0; i < 5; i += 1) {
      await sleep(500);
      assert.equal(await worker.extend([{ taskId: task.task_id, token: lease.token }], 1_000), new Map([[task.task_id, "ok"]]));
      assert.equal(await other.dequeue({ count: 1, leaseMs: 1_000, blockMs: 0 }), [], `still leased after ${(i + 1) * 500} ms`);
    }
    await sleep(1_250);
    assert.equal(await worker.extend([{ taskId: task.task_id, token: lease.token }], 30_000), new Map([[task.task_id, "ok"]]), "nobody reclaimed it yet");
    assert.equal(await other.dequeue({ count: 1, leaseMs: 200, blockMs: 0 }), []);
    assert.is(await worker.complete(task.task_id, lease.token, 1), "ok");
  });

  test("extend answers per task in one call: ok, lost and cancelled together", async ({ under }) => {
    const b = under!.make();
    const tasks = [newTask(), newTask(), newTask()];
    for (const t of tasks) await b.create(t);
    const [a, c, d] = await b.dequeue({ count: 3, leaseMs: 30_000, blockMs: 0 });
    await b.cancel(d!.task.task_id);
    const answers = await b.extend(
      [
        { taskId: a!.task.task_id, token: a!.token },
        { taskId: c!.task.task_id, token: "not-the-token" },
        { taskId: d!.task.task_id, token: d!.token },
        { taskId: "never-created", token: "x" },
      ],
      30_000,
    );
    assert.equal(
      [...answers],
      [
        [a!.task.task_id, "ok"],
        [c!.task.task_id, "lost"],
        [d!.task.task_id, "cancelled"],
        ["never-created", "lost"],
      ],
    );
    assert.equal(await b.extend([], 1_000), new Map());
  });

  test("past maxDeliveries a task whose workers keep dying is failed TASK_REDELIVERY_EXCEEDED", async ({ under }) => {
    const b = under!.make({ maxDeliveries: 2 });
    const task = newTask();
    await b.create(task);
    const first = await takeOne(b, 100);
    await sleep(180);
    const second = await takeOne(b, 100);
    assert.is(second.task.deliveries, 2);
    await sleep(180);
    assert.equal(await b.dequeue({ count: 5, leaseMs: 100, blockMs: 0 }), [], "not delivered a third time");
    const failed = (await b.get(task.task_id))!;
    assert.equal([failed.status, failed.error!.code, failed.deliveries], ["failed", "TASK_REDELIVERY_EXCEEDED", 2]);
    assert.ok(failed.completed_at !== undefined);
    assert.is(await b.complete(task.task_id, second.token, {}), "lost");
    assert.is(await b.complete(task.task_id, first.token, {}), "lost");
  });

  test("at-most-once: a lapsed lease fails the task, it is never delivered twice", async ({ under }) => {
    const b = under!.make({ delivery: "at-most-once" });
    const task = newTask();
    await b.create(task);
    const lease = await takeOne(b, 100);
    await sleep(180);
    assert.equal(await b.dequeue({ count: 5, leaseMs: 100, blockMs: 0 }), []);
    const failed = (await b.get(task.task_id))!;
    assert.equal([failed.status, failed.error!.code, failed.deliveries], ["failed", "TASK_REDELIVERY_EXCEEDED", 1]);
    assert.match(failed.error!.message, /at-most-once/);
    assert.is(await b.complete(task.task_id, lease.token, {}), "lost");
  });

  test("a dequeue takes redeliveries and fresh tasks in one batch", async ({ under }) => {
    const b = under!.make();
    const [old, fresh] = [newTask(), newTask()];
    await b.create(old);
    await takeOne(b, 100);
    await b.create(fresh);
    await sleep(180);
    const leases = await b.dequeue({ count: 5, leaseMs: 30_000, blockMs: 0 });
    assert.equal(
      leases.map((l) => [l.task.task_id, l.task.deliveries]),
      [
        [old.task_id, 2],
        [fresh.task_id, 1],
      ],
    );
  });

  // The blocks below are ten minutes long: whatever ends a wait well within the hang guard
  // (test/support/wait.ts) is the create, release, lapse, abort or close the test made. How fast
  // they wake is measured in bench/tasks/wake.ts, not asserted here.
  const LONG_BLOCK_MS = 600_000;

  test("a blocking dequeue wakes when a task is created", async ({ under }) => {
    const [worker, api] = [under!.make(), under!.make()];
    await worker.dequeue({ count: 1, leaseMs: 1_000, blockMs: 0 }); // connections warm
    const waiting = worker.dequeue({ count: 5, leaseMs: 30_000, blockMs: LONG_BLOCK_MS });
    await sleep(150);
    const task = newTask();
    await api.create(task);
    const leases = await within("the create to wake the blocked dequeue", waiting);
    assert.equal(
      leases.map((l) => l.task.task_id),
      [task.task_id],
    );
  });

  test("blocked dequeuers each wake for work, and a released task wakes one too", async ({ under }) => {
    const workers = [under!.make(), under!.make(), under!.make()];
    const api = under!.make();
    const waiting = workers.map((w) => w.dequeue({ count: 1, leaseMs: 30_000, blockMs: LONG_BLOCK_MS }));
    await sleep(150);
    const tasks = [newTask(), newTask(), newTask()];
    for (const t of tasks) await api.create(t);
    const leases = (await within("the creates to wake all three blocked dequeues", Promise.all(waiting))).flat();
    assert.equal(leases.map((l) => l.task.task_id).sort(), tasks.map((t) => t.task_id).sort());

    const again = workers[0]!.dequeue({ count: 1, leaseMs: 30_000, blockMs: LONG_BLOCK_MS });
    await sleep(150);
    await workers[1]!.release(leases[1]!.task.task_id, leases[1]!.token);
    assert.equal(
      (await within("the release to wake the blocked dequeue", again)).map((l) => l.task.task_id),
      [leases[1]!.task.task_id],
    );
  });

  test("a blocking dequeue picks up a lapsed lease without any new task, not before the lease lapsed", async ({ under }) => {
    const [dead, live] = [under!.make(), under!.make()];
    const task = newTask();
    await dead.create(task);
    await takeOne(dead, 300);
    const started = Date.now();
    const leases = await within("the lapsed lease to end the blocked dequeue", live.dequeue({ count: 1, leaseMs: 30_000, blockMs: LONG_BLOCK_MS }));
    const waited = Date.now() - started;
    assert.equal(
      leases.map((l) => [l.task.task_id, l.task.deliveries]),
      [[task.task_id, 2]],
    );
    assert.ok(waited >= 200, `redelivered after ${waited} ms, not before its 300 ms lease lapsed`);
  });

  test("an empty blocking dequeue returns [] after blockMs; the signal ends it; so does close", async ({ under }) => {
    const b = under!.make();
    const started = Date.now();
    assert.equal(await within("a 400 ms block to end", b.dequeue({ count: 1, leaseMs: 1_000, blockMs: 400 })), []);
    const waited = Date.now() - started;
    assert.ok(waited >= 350, `waited ${waited} ms for a 400 ms block`);

    const controller = new AbortController();
    const aborted = b.dequeue({ count: 1, leaseMs: 1_000, blockMs: LONG_BLOCK_MS, signal: controller.signal });
    await sleep(100);
    controller.abort();
    assert.equal(await within("the abort to end the wait", aborted), []);
    assert.equal(await b.dequeue({ count: 1, leaseMs: 1_000, blockMs: LONG_BLOCK_MS, signal: controller.signal }), [], "an aborted signal: no wait");

    const closing = under!.make();
    const pending = closing.dequeue({ count: 1, leaseMs: 1_000, blockMs: LONG_BLOCK_MS });
    await sleep(100);
    await closing.close();
    assert.equal(await within("close to end the wait", pending), []);

    const task = newTask();
    await b.create(task);
    assert.equal(
      (await b.dequeue({ count: 1, leaseMs: 1_000, blockMs: 1_000 })).map((l) => l.task.task_id),
      [task.task_id],
      "the backend still works after an aborted wait",
    );
  });

  test("1,000 tasks, 8 concurrent dequeuers: every task delivered exactly once", async ({ under }) => {
    const api = under!.make();
    const ids = Array.from({ length: 1_000 }, () => newTask());
    await Promise.all(ids.map((t) => api.create(t)));
    const workers = Array.from({ length: 8 }, () => under!.make());
    const seen: string[] = [];
    await Promise.all(
      workers.map(async (worker, w) => {
        for (let round = 0; round < 2_000; round += 1) {
          const leases: Lease[] = await worker.dequeue({ count: 1 + (w % 4) * 7, leaseMs: 30_000, blockMs: 0 });
          if (leases.length === 0) return;
          seen.push(...leases.map((l) => l.task.task_id));
          const answers = await worker.finishMany(
            leases.map((l) => ({ status: "completed" as const, taskId: l.task.task_id, token: l.token, result: { by: w } })),
          );
          assert.ok(
            answers.every((a) => a === "ok"),
            "every finish accepted",
          );
        }
      }),
    );
    assert.is(seen.length, 1_000, "no task delivered twice");
    assert.equal(new Set(seen).size, 1_000);
    assert.equal([...seen].sort(), ids.map((t) => t.task_id).sort());
    assert.is(await api.depth(), 0);
    const sample = await Promise.all(ids.slice(0, 50).map((t) => api.get(t.task_id)));
    assert.ok(sample.every((r) => r!.status === "completed" && r!.deliveries === 1));
  });

  test("large batches: 1,200 leases extended and finished in one call each, answered in order", async ({ under }) => {
    const b = under!.make();
    const tasks = Array.from({ length: 1_200 }, () => newTask());
    await Promise.all(tasks.map((t) => b.create(t)));
    const leases = [...(await b.dequeue({ count: 1_000, leaseMs: 30_000, blockMs: 0 })), ...(await b.dequeue({ count: 1_000, leaseMs: 30_000, blockMs: 0 }))];
    assert.is(leases.length, 1_200);
    const extended = await b.extend(
      leases.map((l) => ({ taskId: l.task.task_id, token: l.token })),
      30_000,
    );
    assert.is(extended.size, 1_200);
    assert.ok([...extended.values()].every((v) => v === "ok"));
    await b.cancel(leases[1_100]!.task.task_id);
    const answers = await b.finishMany(leases.map((l, i) => ({ status: "completed" as const, taskId: l.task.task_id, token: l.token, result: i })));
    assert.equal(
      answers.map((a, i) => (a === "ok" ? null : [i, a])).filter((x) => x !== null),
      [[1_100, "cancelled"]],
    );
    assert.equal((await b.get(leases[1_199]!.task.task_id))!.result, 1_199);
  });

  test("cancel racing complete: one of them wins, and a cancelled task stays cancelled", async ({ under }) => {
    const b = under!.make();
    for (let i = 0; i < 20; i += 1) {
      const task = newTask();
      await b.create(task);
      const lease = await takeOne(b);
      const [cancel, complete] = await Promise.all([b.cancel(task.task_id), b.complete(task.task_id, lease.token, { i })]);
      const final = (await b.get(task.task_id))!;
      if (complete === "ok") assert.equal([cancel.outcome, final.status, final.result], ["finished", "completed", { i }]);
      else assert.equal([complete, cancel.outcome, final.status, final.result], ["cancelled", "cancelled", "cancelled", undefined]);
    }
  });

  test.run();
}
