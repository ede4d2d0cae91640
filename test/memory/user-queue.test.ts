/**
 * The extraction queue: never more than its concurrency in flight, a bounded wait list that drops
 * (and says so) when full, whenIdle() for tests, and stop() dropping what waits and aborting what runs.
 * Each item's work is a promise the test settles, so nothing depends on timing.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { queuedTurn } from "../../runtime/memory/user/index.js";
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
    for (let i = 0; i < 100 && !gates.has(item); i++) await new Promise<void>((resolve) => setImmediate(resolve));
    gates.get(item)!.open();
  }
  await whenIdle;
  assert.ok(idle);
  assert.equal(started, [1, 2, 3, 4, 5]);
  assert.is(inFlight.max, 2);
});

test("items with one key run one after another, in order, while other keys' items go ahead", async () => {
  const gates = new Map<string, ReturnType<typeof gate>>();
  const started: string[] = [];
  const queue = createWorkQueue<string>({
    concurrency: 3,
    keyOf: (item) => item.split(":")[0]!,
    run: async (item) => {
      started.push(item);
      const g = gate();
      gates.set(item, g);
      await g.promise;
    },
    onError: () => undefined,
  });
  for (const item of ["alice:1", "alice:2", "bob:1", "alice:3"]) queue.push(item);
  await Promise.resolve();
  assert.equal(started, ["alice:1", "bob:1"], "alice's second turn waits for her first; bob's does not");
  const whenIdle = queue.whenIdle();
  for (const item of ["alice:1", "alice:2", "bob:1", "alice:3"]) {
    for (let i = 0; i < 100 && !gates.has(item); i++) await new Promise<void>((resolve) => setImmediate(resolve));
    gates.get(item)!.open();
  }
  await whenIdle;
  assert.equal(started, ["alice:1", "bob:1", "alice:2", "alice:3"]);
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
  for (let i = 0; i < 100 && ran.length < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  await queue.stop();
  assert.equal(ran, [1, 2], "3 was dropped");
  assert.equal(aborted, [2]);
  assert.is(errors.length, 1);
  assert.is(queue.push(4), false);
  await queue.whenIdle();
});

test("a queued turn holds only what the extraction prompt quotes: 100 waiting turns of 1 MiB each hold a few KiB each", () => {
  const identity = { subject: "alice", kind: "user", via: "header" } as const;
  const held = queuedTurn({ identity, session_id: "s", user_message_id: "m", request_id: "r", message: "é".repeat(1 << 20), answer: "a".repeat(1 << 20) });
  assert.ok(Buffer.byteLength(held.message) <= 4096 && Buffer.byteLength(held.answer) <= 4096, `${held.message.length} ${held.answer.length}`);
  assert.equal([held.identity, held.session_id, held.request_id], [identity, "s", "r"]);
});

test.run();
