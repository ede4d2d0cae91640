/**
 * The extraction queue: never more than its concurrency in flight, a bounded wait list that drops
 * (and says so) when full, whenIdle() for tests, and stop() dropping what waits and aborting what runs.
 * Each item's work is a promise the test settles, so nothing depends on timing.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createWorkQueue } from "../../runtime/memory/user/queue.js";

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

test("at most `concurrency` run at once; past `limit` waiting an item is refused; whenIdle resolves once all are done", async () => {
  const gates = new Map<number, ReturnType<typeof gate>>();
  const started: number[] = [];
  const inFlight = { now: 0, max: 0 };
  const queue = createWorkQueue<number>({
    concurrency: 2,
    limit: 3,
    run: async (item) => {
      started.push(item);
      inFlight.max = Math.max(inFlight.max, ++inFlight.now);
      const g = gate();
      gates.set(item, g);
      await g.promise;
      inFlight.now -= 1;
    },
    onError: () => undefined,
  });
  const pushed = [1, 2, 3, 4, 5, 6].map((item) => queue.push(item));
  assert.equal(pushed, [true, true, true, true, true, false], "two running, three waiting, the sixth refused");
  await Promise.resolve();
  assert.equal(started, [1, 2]);
  let idle = false;
  const whenIdle = queue.whenIdle().then(() => (idle = true));
  for (const item of [1, 2, 3, 4, 5]) {
    while (!gates.has(item)) await new Promise<void>((resolve) => setImmediate(resolve));
    gates.get(item)!.open();
  }
  await whenIdle;
  assert.ok(idle);
  assert.equal(started, [1, 2, 3, 4, 5]);
  assert.is(inFlight.max, 2);
});

test("a failing item is reported and the queue goes on; stop() drops what waits, aborts what runs and refuses more", async () => {
  const errors: unknown[] = [];
  const aborted: number[] = [];
  const ran: number[] = [];
  const queue = createWorkQueue<number>({
    concurrency: 1,
    run: async (item, signal) => {
      ran.push(item);
      if (item === 1) throw new Error("boom");
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      aborted.push(item);
    },
    onError: (error) => errors.push(error),
  });
  queue.push(1);
  queue.push(2);
  queue.push(3);
  while (ran.length < 2) await new Promise<void>((resolve) => setImmediate(resolve));
  await queue.stop();
  assert.equal(ran, [1, 2], "3 was dropped");
  assert.equal(aborted, [2]);
  assert.is(errors.length, 1);
  assert.is(queue.push(4), false);
  await queue.whenIdle();
});

test.run();
