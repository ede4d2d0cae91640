/**
 * The task backend contract, transition half: TASK_TRANSITIONS (runtime/tasks/types.ts) is the
 * adapters' rule, not just documentation. For every (from, to) pair of statuses a task is driven into
 * `from` through the public operations only, then the operation that would take it to `to` is tried;
 * it must succeed exactly when the table (or the one documented exception) allows it, and a refused
 * attempt must leave the record as it was. Run by the same adapter suites as tasks.cases.ts.
 *
 * Every target status has an operation that attempts it, so no pair goes untried:
 *   → queued     release (create with a taken id is TASK_EXISTS whatever the status: tasks.cases.ts)
 *   → running    dequeue (running → running by a second dequeue is refused while the lease holds; a
 *                redelivery after a lapse is a new lease, not a status change: tasks-delivery.cases.ts)
 *   → completed  complete, with the task's lease token (or a made-up one when it never had a lease)
 *   → failed     fail, likewise (running → failed by a spent redelivery budget: tasks-delivery.cases.ts)
 *   → cancelled  cancel
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { TASK_TRANSITIONS, type TaskBackend, type TaskStatus } from "../../runtime/tasks/types.js";
import { LEASE, newTask, takeOne, type TasksFactory, type TasksUnderTest } from "./tasks.cases.js";

const STATUSES: readonly TaskStatus[] = ["queued", "running", "completed", "failed", "cancelled"];

/**
 * Status changes the adapters make outside the table, each documented where it is made. Release hands
 * a running task back on graceful shutdown (TaskBackend.release; release-4.lua's header): the task is
 * not done, so it is not a transition a task's lifecycle goes through.
 */
const DOCUMENTED_EXCEPTIONS: readonly { from: TaskStatus; to: TaskStatus; operation: string }[] = [{ from: "running", to: "queued", operation: "release" }];

/** No lease was ever issued for a task that never ran; writes needing one are tried with this. */
const NO_LEASE = "never-leased";

interface Route {
  readonly status: TaskStatus;
  readonly how: string;
  /** Brings a new task to `status`; returns its id and the token of its last lease. */
  drive(b: TaskBackend): Promise<{ taskId: string; token: string }>;
}

async function running(b: TaskBackend) {
  const task = newTask();
  await b.create(task);
  return { taskId: task.task_id, token: (await takeOne(b)).token };
}

/** Both ways into `cancelled`: a cancelled task that once held a lease is tried with that lease. */
const ROUTES: readonly Route[] = [
  {
    status: "queued",
    how: "created",
    drive: async (b) => {
      const task = newTask();
      await b.create(task);
      return { taskId: task.task_id, token: NO_LEASE };
    },
  },
  { status: "running", how: "dequeued", drive: running },
  {
    status: "completed",
    how: "completed by its lease holder",
    drive: async (b) => {
      const driven = await running(b);
      assert.is(await b.complete(driven.taskId, driven.token, { done: true }), "ok");
      return driven;
    },
  },
  {
    status: "failed",
    how: "failed by its lease holder",
    drive: async (b) => {
      const driven = await running(b);
      assert.is(await b.fail(driven.taskId, driven.token, { code: "HANDLER_ERROR", message: "x" }), "ok");
      return driven;
    },
  },
  {
    status: "cancelled",
    how: "cancelled while queued",
    drive: async (b) => {
      const task = newTask();
      await b.create(task);
      assert.is((await b.cancel(task.task_id)).outcome, "cancelled");
      return { taskId: task.task_id, token: NO_LEASE };
    },
  },
  {
    status: "cancelled",
    how: "cancelled while running",
    drive: async (b) => {
      const driven = await running(b);
      assert.is((await b.cancel(driven.taskId)).outcome, "cancelled");
      return driven;
    },
  },
];

/** The operation that would take a task to each status; resolves whether the adapter applied it. */
const ATTEMPTS: Readonly<Record<TaskStatus, { operation: string; run(b: TaskBackend, taskId: string, token: string): Promise<boolean> }>> = {
  queued: { operation: "release", run: async (b, taskId, token) => (await b.release(taskId, token)) === "ok" },
  running: { operation: "dequeue", run: async (b, taskId) => (await b.dequeue({ ...LEASE, count: 10 })).some((l) => l.task.task_id === taskId) },
  completed: { operation: "complete", run: async (b, taskId, token) => (await b.complete(taskId, token, { late: true })) === "ok" },
  failed: { operation: "fail", run: async (b, taskId, token) => (await b.fail(taskId, token, { code: "HANDLER_ERROR", message: "late" })) === "ok" },
  cancelled: { operation: "cancel", run: async (b, taskId) => (await b.cancel(taskId)).outcome === "cancelled" },
};

function allowed(from: TaskStatus, to: TaskStatus): boolean {
  return TASK_TRANSITIONS[from].includes(to) || DOCUMENTED_EXCEPTIONS.some((e) => e.from === from && e.to === to && e.operation === ATTEMPTS[to].operation);
}

export function taskTransitionCases(adapter: string, create: TasksFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite<{ under?: TasksUnderTest }>(`task backend contract, transitions (${adapter})`, {});
  test.after(teardown);
  test.before.each(async (context) => {
    context.under = await create();
  });
  test.after.each(async ({ under }) => {
    await under?.close();
  });

  test("the table names only statuses, never a status to itself; the documented exceptions lie outside it", () => {
    assert.equal(Object.keys(TASK_TRANSITIONS).sort(), [...STATUSES].sort());
    for (const from of STATUSES) {
      for (const to of TASK_TRANSITIONS[from]) assert.ok(STATUSES.includes(to) && to !== from, `${from} → ${to}`);
    }
    for (const { from, to } of DOCUMENTED_EXCEPTIONS) assert.not.ok(TASK_TRANSITIONS[from].includes(to), `${from} → ${to} is an exception, not in the table`);
    assert.equal(
      ROUTES.map((r) => r.status).filter((s, i, all) => all.indexOf(s) === i),
      [...STATUSES],
      "every status has a route into it",
    );
  });

  for (const route of ROUTES) {
    test(`from ${route.status} (${route.how}): each target is reached exactly when the table allows it`, async ({ under }) => {
      for (const to of STATUSES) {
        const pair = `${route.status} → ${to} by ${ATTEMPTS[to].operation}`;
        // A queue of its own per pair, so a dequeue sees no other pair's tasks.
        const b = under!.make({ queue: `${route.status}-${route.how.replaceAll(" ", "-")}-${to}` });
        const { taskId, token } = await route.drive(b);
        const before = await b.get(taskId);
        assert.is(before?.status, route.status, `${pair}: driven into ${route.status}`);
        const applied = await ATTEMPTS[to].run(b, taskId, token);
        const after = await b.get(taskId);
        assert.is(applied, allowed(route.status, to), `${pair}: ${allowed(route.status, to) ? "allowed but refused" : "refused by the table but applied"}`);
        if (applied) assert.is(after?.status, to, `${pair}: the record is ${to}`);
        else assert.equal(after, before, `${pair}: a refused attempt leaves the record unchanged`);
      }
    });
  }

  test.run();
}
