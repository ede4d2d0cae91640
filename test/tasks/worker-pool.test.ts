/**
 * The worker pool against the memory backend: each outcome (completed, HANDLER_ERROR, HANDLER_PANIC,
 * TASK_TIMEOUT, cancelled while queued or running), leases kept alive, concurrency, graceful shutdown.
 */
import { randomUUID } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createWorkerPool, type TaskBackend, type TaskContext, type TaskHandler, type TaskRecord, type WorkerPool } from "../../runtime/tasks/index.js";
import { createMemoryTaskBackend } from "../../runtime/tasks/memory-backend.js";
import type { Clock } from "../../runtime/util/index.js";
import { createManualClock } from "../support/clock.js";
import { eventually, sleep, within } from "../support/wait.js";
import { silentLogger } from "./support.js";

interface Context {
  backend: TaskBackend;
  pools: WorkerPool[];
  lines: string[];
}
const test = suite<Context>("worker pool", { backend: createMemoryTaskBackend(), pools: [], lines: [] });

test.before.each((context) => {
  context.backend = createMemoryTaskBackend();
  context.pools = [];
  context.lines = [];
});
test.after.each(async ({ backend, pools }) => {
  await Promise.all(pools.map((p) => p.stop(1_000)));
  await backend.close();
});

function startPool(
  context: Context,
  handlers: Record<string, TaskHandler>,
  options: { workerCount?: number; leaseMs?: number; tickMs?: number; clock?: Clock } = {},
): WorkerPool {
  const pool = createWorkerPool({
    backend: context.backend,
    handlers,
    workerCount: options.workerCount ?? 2,
    leaseMs: options.leaseMs ?? 3_000,
    idleWaitMs: 200,
    log: silentLogger(context.lines),
    env: {},
    ...(options.tickMs === undefined ? {} : { tickMs: options.tickMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  context.pools.push(pool);
  return pool;
}

async function create(backend: TaskBackend, type: string, input: unknown = {}, timeoutMs = 60_000): Promise<string> {
  const taskId = randomUUID();
  await backend.create({ task_id: taskId, type, input, timeout_ms: timeoutMs });
  return taskId;
}

function settled(backend: TaskBackend, taskId: string): Promise<TaskRecord> {
  return eventually(`task ${taskId} finished`, async () => {
    const t = (await backend.get(taskId))!;
    return t.status !== "queued" && t.status !== "running" ? t : undefined;
  });
}

/** A promise and its resolver, to hold a handler until the test lets it go. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** A promise that never settles: a handler that ignores its signal. */
const forever = (): Promise<never> => new Promise(() => undefined);

/** Resolves with the signal's reason once it aborts. */
const aborted = (signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

test("a handler that returns completes the task with its result; the context carries the task's id, type, attempt and input", async (context) => {
  const seen: Omit<TaskContext, "signal" | "progress">[] = [];
  startPool(context, {
    double: async (input, ctx) => {
      seen.push({ input: ctx.input, taskId: ctx.taskId, type: ctx.type, attempt: ctx.attempt });
      return { doubled: (input as { n: number }).n * 2 };
    },
    nothing: () => undefined,
  });
  const id = await create(context.backend, "double", { n: 21 });
  const done = await settled(context.backend, id);
  assert.is(done.status, "completed");
  assert.equal(done.result, { doubled: 42 });
  assert.ok(done.completed_at !== undefined && done.started_at !== undefined);
  assert.equal(seen, [{ input: { n: 21 }, taskId: id, type: "double", attempt: 1 }]);
  const empty = await settled(context.backend, await create(context.backend, "nothing"));
  assert.is(empty.status, "completed", "a synchronous handler returning nothing completes too");
});

test("a handler that throws a ManifoldError fails the task HANDLER_ERROR with its message", async (context) => {
  startPool(context, {
    lookup: async () => {
      throw new ManifoldError("NOT_FOUND", "no city called Atlantis");
    },
  });
  const done = await settled(context.backend, await create(context.backend, "lookup"));
  assert.is(done.status, "failed");
  assert.equal(done.error, { code: "HANDLER_ERROR", message: "no city called Atlantis" });
});

test("a thrown Error fails HANDLER_ERROR with its message; a TypeError, a ReferenceError or a non-Error fails HANDLER_PANIC without internals; the worker serves the next task", async (context) => {
  let calls = 0;
  startPool(
    context,
    {
      refuses: async () => {
        throw new Error("the hotel is full");
      },
      explode: async () => {
        calls += 1;
        throw new TypeError("cannot read postgres://admin:hunter2@db of undefined");
      },
      missing: async () => {
        throw new ReferenceError("hunter3 is not defined");
      },
      throwsSync: () => {
        throw "a bare string";
      },
      fine: async () => "still here",
    },
    { workerCount: 1 },
  );
  const refused = await settled(context.backend, await create(context.backend, "refuses"));
  assert.equal([refused.status, refused.error], ["failed", { code: "HANDLER_ERROR", message: "the hotel is full" }]);
  const first = await settled(context.backend, await create(context.backend, "explode"));
  assert.is(first.status, "failed");
  assert.equal(first.error, { code: "HANDLER_PANIC", message: "the task handler failed unexpectedly" });
  assert.not.match(JSON.stringify(first), /hunter2|postgres/);
  assert.ok(
    context.lines.some((line) => line.includes("handler failed") && line.includes('"level":"error"')),
    "the real error goes to the log",
  );
  const missing = await settled(context.backend, await create(context.backend, "missing"));
  assert.equal(missing.error, { code: "HANDLER_PANIC", message: "the task handler failed unexpectedly" });
  const sync = await settled(context.backend, await create(context.backend, "throwsSync"));
  assert.is(sync.error?.code, "HANDLER_PANIC");
  const next = await settled(context.backend, await create(context.backend, "fine"));
  assert.is(next.status, "completed");
  assert.is(next.result, "still here");
  assert.is(calls, 1);
});

test("a handler past its timeout: the task fails TASK_TIMEOUT, its signal aborts, and its slot serves the next task", async (context) => {
  // Time is the pool's clock, moved by hand: the timeout is checked on the tick (every 100 ms here).
  const clock = createManualClock();
  let reason: unknown;
  const pool = startPool(
    context,
    {
      stuck: async (_input, ctx) => {
        reason = await aborted(ctx.signal);
        await forever(); // ignores the signal: the slot is given back anyway
      },
      quick: () => "ok",
    },
    { workerCount: 1, tickMs: 100, clock },
  );
  const id = await create(context.backend, "stuck", {}, 300);
  await eventually("the stuck task running", () => pool.active === 1);
  await clock.advance(299);
  assert.is((await context.backend.get(id))?.status, "running", "not timed out before its timeout");
  assert.is(reason, undefined);
  await clock.advance(1);
  const done = await settled(context.backend, id);
  assert.is(done.status, "failed");
  assert.is(done.error?.code, "TASK_TIMEOUT");
  assert.match(done.error?.message ?? "", /timeout of 300 ms/);
  assert.instance(reason, ManifoldError);
  assert.is((reason as ManifoldError).code, "TASK_TIMEOUT");
  assert.is((await settled(context.backend, await create(context.backend, "quick"))).status, "completed");
});

test("cancel while queued: the task never runs", async (context) => {
  const hold = gate();
  const ran: string[] = [];
  startPool(
    context,
    {
      block: async () => hold.promise,
      record: async (input) => void ran.push((input as { name: string }).name),
    },
    { workerCount: 1 },
  );
  const blocker = await create(context.backend, "block");
  await eventually("blocker running", async () => {
    const s = (await context.backend.get(blocker))!.status;
    return s === "running" ? s : undefined;
  });
  const victim = await create(context.backend, "record", { name: "victim" });
  const after = await create(context.backend, "record", { name: "after" });
  assert.is((await context.backend.cancel(victim)).outcome, "cancelled");
  hold.open();
  await settled(context.backend, after);
  assert.equal(ran, ["after"]);
  assert.is((await context.backend.get(victim))?.status, "cancelled");
});

test("cancel while running: the handler's signal aborts on the next tick (at most 500 ms apart) and the task stays cancelled (TASK_CANCELLED)", async (context) => {
  const clock = createManualClock();
  let reason: unknown;
  const pool = startPool(
    context,
    {
      long: async (_input, { signal }) => {
        reason = await aborted(signal);
        return "finished anyway"; // too late: must not overwrite the cancel
      },
    },
    { clock },
  );
  assert.ok(pool.settings.tickMs <= 500, `tick ${pool.settings.tickMs} ms`);
  const id = await create(context.backend, "long");
  await eventually("running", async () => (await context.backend.get(id))!.status === "running");
  assert.is((await context.backend.cancel(id)).outcome, "cancelled");
  await clock.advance(pool.settings.tickMs - 1);
  assert.is(reason, undefined, "the pool learns of a cancel on its tick");
  await clock.advance(1);
  await eventually("the handler saw the abort", () => reason !== undefined);
  assert.is((reason as ManifoldError).code, "TASK_CANCELLED");
  await sleep(100);
  const record = await context.backend.get(id);
  assert.is(record?.status, "cancelled");
  assert.equal(record?.error?.code, "TASK_CANCELLED");
  assert.is(record?.result, undefined);
});

test("a handler that first looks at its signal after the cancel finds it already aborted", async (context) => {
  const hold = gate();
  let seen: { aborted: boolean; code: unknown } | undefined;
  const clock = createManualClock();
  const pool = startPool(
    context,
    {
      late: async (_input, ctx) => {
        await hold.promise;
        seen = { aborted: ctx.signal.aborted, code: (ctx.signal.reason as ManifoldError).code };
      },
    },
    { clock },
  );
  const id = await create(context.backend, "late");
  await eventually("running", async () => {
    const s = (await context.backend.get(id))!.status;
    return s === "running" ? s : undefined;
  });
  await context.backend.cancel(id);
  await clock.advance(pool.settings.tickMs);
  // The pool has learnt of the cancel: the run is abandoned and its slot freed.
  await eventually("the pool to abandon the cancelled run", () => pool.active === 0);
  hold.open();
  await eventually("handler looked", async () => {
    const s = seen;
    return s !== undefined ? s : undefined;
  });
  assert.equal(seen, { aborted: true, code: "TASK_CANCELLED" });
});

test("progress is stored (latest value wins) and malformed progress is a TypeError in the handler", async (context) => {
  const hold = gate();
  const problems: string[] = [];
  startPool(context, {
    steps: async (_input, { progress }) => {
      void progress({ current_step: 1, total_steps: 3, step_name: "fetch", percentage: 10 });
      await progress({ current_step: 2, total_steps: 3, step_name: "think", percentage: 66.5, message: "halfway" });
      for (const bad of [{ percentage: 120 }, { current_step: -1 }, { colour: "red" }, "50%"]) {
        try {
          await progress(bad as never);
        } catch (error) {
          problems.push(`${(error as Error).name}: ${(error as Error).message}`);
        }
      }
      await hold.promise;
      return "done";
    },
  });
  const id = await create(context.backend, "steps");
  const running = await eventually("progress stored", async () => {
    const t = (await context.backend.get(id))!;
    return t.progress?.current_step === 2 ? t : undefined;
  });
  assert.equal(running.progress, { current_step: 2, total_steps: 3, step_name: "think", percentage: 66.5, message: "halfway" });
  assert.equal(problems, [
    "TypeError: progress.percentage must be a number from 0 to 100",
    "TypeError: progress.current_step must be a non-negative integer",
    "TypeError: progress.colour is not a progress field (current_step, total_steps, step_name, percentage, message)",
    "TypeError: progress must be an object",
  ]);
  hold.open();
  assert.is((await settled(context.backend, id)).status, "completed");
});

test("no more than workerCount handlers run at once", async (context) => {
  let running = 0;
  let most = 0;
  startPool(
    context,
    {
      nap: async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(50);
        running -= 1;
      },
    },
    { workerCount: 3 },
  );
  const ids = await Promise.all(Array.from({ length: 12 }, () => create(context.backend, "nap")));
  for (const id of ids) assert.is((await settled(context.backend, id)).status, "completed");
  assert.is(most, 3);
});

test("a handler that outlives its lease keeps it (extended every tick): delivered once, completed once", async (context) => {
  let calls = 0;
  startPool(
    context,
    {
      long: async () => {
        calls += 1;
        // Three lease lengths: only the pool's extensions (every third of a lease) keep it. The lease is
        // a second, not less, so that a loaded machine's stall of a few hundred ms cannot lapse it.
        await sleep(3_000);
        return "slow but fine";
      },
    },
    { leaseMs: 1_000 },
  );
  const id = await create(context.backend, "long");
  // A second pool on the same backend would take the task if its lease lapsed.
  startPool(
    context,
    {
      long: async () => {
        calls += 1;
        return "stolen";
      },
    },
    { leaseMs: 1_000 },
  );
  const done = await settled(context.backend, id);
  assert.is(done.result, "slow but fine");
  assert.is(done.deliveries, 1);
  assert.is(calls, 1);
});

test("a task type this worker has no handler for fails UNKNOWN_TASK_TYPE", async (context) => {
  startPool(context, { known: () => 1 });
  const done = await settled(context.backend, await create(context.backend, "unknown_here"));
  assert.equal(done.error?.code, "UNKNOWN_TASK_TYPE");
});

test("graceful stop: finished within the grace period → completed; still running → aborted and released; another pool finishes them", async (context) => {
  const reasons: unknown[] = [];
  const clock = createManualClock();
  const quickGate = gate();
  const first = startPool(
    context,
    {
      quick: async () => {
        await quickGate.promise;
        return "first pool";
      },
      stubborn: async (_input, ctx) => {
        reasons.push(await aborted(ctx.signal));
        return "never stored";
      },
    },
    { workerCount: 4, clock },
  );
  const quick = await create(context.backend, "quick");
  const stubborn = [await create(context.backend, "stubborn"), await create(context.backend, "stubborn")];
  await eventually("three running", async () => {
    const n = first.active;
    return n === 3 ? n : undefined;
  });
  let stopped = false;
  const stopping = first.stop(400).then(() => void (stopped = true));
  quickGate.open(); // finishes within the grace period
  await eventually("the quick task written", async () => (await context.backend.get(quick))?.status === "completed");
  // The tick and the grace period's timer: stop is waiting on the clock for the stubborn two.
  await eventually("stop waiting for the grace period", () => clock.pending() === 2);
  await clock.advance(399);
  assert.is(stopped, false, "running handlers get the whole grace period");
  await clock.advance(1);
  await within("stop, once the grace period is over", stopping);
  assert.is((await context.backend.get(quick))?.result, "first pool");
  assert.equal(
    reasons.map((r) => (r as ManifoldError).code),
    ["UNAVAILABLE", "UNAVAILABLE"],
  );
  for (const id of stubborn) assert.is((await context.backend.get(id))?.status, "queued", "released to the queue");
  const late = await create(context.backend, "quick");
  await sleep(150);
  assert.is((await context.backend.get(late))?.status, "queued", "a stopped pool takes nothing new");

  const attempts: number[] = [];
  startPool(context, { stubborn: (_input, ctx) => void attempts.push(ctx.attempt), quick: () => "second pool" });
  for (const id of stubborn) assert.is((await settled(context.backend, id)).status, "completed");
  assert.equal(attempts, [1, 1], "a release is not a death: the delivery is not counted");
  assert.is((await settled(context.backend, late)).result, "second pool");
});

test("stop with nothing running returns without waiting on any timer, and is idempotent", async (context) => {
  const clock = createManualClock();
  const pool = startPool(context, { any: () => 1 }, { clock });
  const stopping = pool.stop();
  assert.is(pool.stop(), stopping, "one stop, however often it is asked for");
  await within("stop with nothing running, the clock standing still", stopping);
});

test("bad settings fail at creation with the variable's name", async (context) => {
  assert.throws(() => createWorkerPool({ backend: context.backend, handlers: {}, env: { WORKER_COUNT: "lots" } }), /WORKER_COUNT must be an integer/);
  assert.throws(() => createWorkerPool({ backend: context.backend, handlers: {}, env: { WORKER_COUNT: "0" } }), /WORKER_COUNT must be an integer from 1/);
  assert.throws(
    () => createWorkerPool({ backend: context.backend, handlers: {}, env: { MANIFOLD_TASK_LEASE_MS: "10" } }),
    /MANIFOLD_TASK_LEASE_MS must be an integer from 100/,
  );
  const pool = createWorkerPool({ backend: context.backend, handlers: {}, env: { WORKER_COUNT: "7", MANIFOLD_TASK_LEASE_MS: "1500" }, log: silentLogger() });
  context.pools.push(pool);
  assert.equal(pool.settings, { workerCount: 7, leaseMs: 1_500, tickMs: 500, idleWaitMs: 1_000 });
  const defaults = createWorkerPool({ backend: context.backend, handlers: {}, env: {}, log: silentLogger() });
  context.pools.push(defaults);
  assert.equal(defaults.settings, { workerCount: 5, leaseMs: 30_000, tickMs: 500, idleWaitMs: 1_000 });
});

test.run();
