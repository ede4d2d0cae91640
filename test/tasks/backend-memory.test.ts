/**
 * What only the memory task backend has: an injectable clock, timers that never keep a process
 * alive, and state shared through the process-wide memory store. The behaviour both adapters share is
 * in test/contract/tasks*.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createStore } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/backend.js";
import { createMemoryTaskBackend } from "../../runtime/tasks/memory-backend.js";
import { createManualClock } from "../support/clock.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("the `clock` option is the clock of timestamps, leases and TTLs", async () => {
  const clock = createManualClock(Date.UTC(2030, 0, 1));
  const backend = createMemoryTaskBackend({ clock, ttlMs: 60_000 });
  const created = await backend.create({ task_id: "a", type: "research", input: {}, timeout_ms: 1_000 });
  assert.is(created.created_at, "2030-01-01T00:00:00.000Z");
  await clock.advance(500);
  const [lease] = await backend.dequeue({ count: 1, leaseMs: 10_000, blockMs: 0 });
  assert.equal([lease!.task.started_at, lease!.expiresAt], ["2030-01-01T00:00:00.500Z", clock.now() + 10_000]);
  await clock.advance(9_999);
  assert.equal(await backend.dequeue({ count: 1, leaseMs: 10_000, blockMs: 0 }), [], "the lease holds until its expiry");
  await clock.advance(2);
  const [again] = await backend.dequeue({ count: 1, leaseMs: 10_000, blockMs: 0 });
  assert.equal([again!.task.task_id, again!.task.deliveries], ["a", 2], "lapsed on the injected clock");
  assert.is(await backend.complete("a", again!.token, 1), "ok");
  assert.is((await backend.get("a"))!.completed_at, new Date(clock.now()).toISOString());
  await clock.advance(59_999);
  assert.ok(await backend.get("a"), "kept until ttlMs has passed");
  await clock.advance(1);
  assert.is(await backend.get("a"), undefined, "gone at ttlMs");
  await backend.close();
});

test("a blocked dequeue waits on the clock: woken by the earliest lapsing lease, else it ends at blockMs", async () => {
  const clock = createManualClock();
  const backend = createMemoryTaskBackend({ clock });
  await backend.create({ task_id: "held", type: "x", input: {}, timeout_ms: 1_000 });
  const [first] = await backend.dequeue({ count: 1, leaseMs: 1_000, blockMs: 0 });
  let settled: string[] | undefined;
  void backend.dequeue({ count: 1, leaseMs: 600_000, blockMs: 60_000 }).then((leases) => (settled = leases.map((l) => l.task.task_id)));
  await clock.advance(999);
  assert.is(settled, undefined, "the lease has not lapsed");
  await clock.advance(2);
  assert.equal(settled, ["held"], "redelivered once the lease lapsed, long before blockMs");
  assert.is(await backend.complete("held", first!.token, 1), "lost");

  let empty: unknown;
  void backend.dequeue({ count: 1, leaseMs: 1_000, blockMs: 5_000 }).then((leases) => (empty = leases));
  await clock.advance(4_999);
  assert.is(empty, undefined, "still blocked before blockMs");
  await clock.advance(1);
  assert.equal(empty, [], "an empty block ends at blockMs");
  await backend.close();
});

test("a process with live tasks and finished records exits by itself: no timer holds it", async () => {
  const script = `
    import { createMemoryTaskBackend } from "./runtime/tasks/memory-backend.ts";
    const backend = createMemoryTaskBackend();
    for (const i of [0, 1, 2]) await backend.create({ task_id: "t" + i, type: "x", input: i, timeout_ms: 1000 });
    const leases = await backend.dequeue({ count: 2, leaseMs: 60000, blockMs: 0 });
    await backend.complete(leases[0].task.task_id, leases[0].token, { ok: true });
    console.log("done");
  `;
  const child = spawn(process.execPath, [...TS_NODE_ARGS, "--input-type=module", "-e", script], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(null);
    }, 15_000);
    child.on("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  assert.is(code, 0, `exited on its own (output: ${output})`);
  assert.match(output, /done/);
});

test("createTaskBackend over the memory store: one namespace and queue share tasks, as on Redis", async () => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "memory-shared" }, log: () => undefined });
  const api = createTaskBackend({ store, queue: "travel-agent" });
  const worker = createTaskBackend({ store: createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "memory-shared" }, log: () => undefined }), queue: "travel-agent" });
  const elsewhere = createTaskBackend({ store: createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "another" }, log: () => undefined }), queue: "travel-agent" });
  const waiting = worker.dequeue({ count: 1, leaseMs: 1_000, blockMs: 2_000 });
  await api.create({ task_id: "shared", type: "research", input: {}, timeout_ms: 1_000 });
  assert.equal(
    (await waiting).map((l) => l.task.task_id),
    ["shared"],
    "a create on one backend wakes a dequeue on another",
  );
  assert.is(await elsewhere.get("shared"), undefined, "another namespace");
  await api.close();
  assert.is((await worker.get("shared"))!.status, "running", "closing one backend leaves the data to the others");
  await Promise.all([worker.close(), elsewhere.close()]);
});

test("budgets: past the count or bytes the oldest finished records go first; live ones alone fill it and a create is 503", async () => {
  const backend = createMemoryTaskBackend({ maxRecords: 5, maxBytes: 50_000 });
  const task = (id: string, input: unknown = {}) => backend.create({ task_id: id, type: "t", input, timeout_ms: 60_000 });
  for (const id of ["a", "b", "c", "d", "e"]) await task(id);
  // a, b, c finish, in that order.
  for (const id of ["a", "b", "c"]) {
    const [lease] = await backend.dequeue({ count: 1, leaseMs: 10_000, blockMs: 0 });
    assert.is(lease!.task.task_id, id);
    assert.is(await backend.complete(id, lease!.token, { done: id }), "ok");
  }
  await task("f");
  await task("g");
  assert.is(await backend.get("a"), undefined, "the oldest finished record made room");
  assert.is(await backend.get("b"), undefined);
  assert.is((await backend.get("c"))?.status, "completed");
  await task("h");
  assert.is(await backend.get("c"), undefined);
  // Five live records: nothing finished is left to evict.
  try {
    await task("i");
    assert.unreachable("the store is full of live tasks");
  } catch (error) {
    assert.is((error as { code: string }).code, "UNAVAILABLE");
    assert.match((error as Error).message, /full of live tasks.*configure Redis/);
  }
  assert.is(await backend.get("i"), undefined, "nothing half-stored");
  for (const id of ["d", "e", "f", "g", "h"]) assert.is((await backend.get(id))?.status, "queued");

  // Bytes: one 40 KB input fits the 50 KB budget with room for little else.
  const bytes = createMemoryTaskBackend({ maxRecords: 1_000, maxBytes: 50_000 });
  await bytes.create({ task_id: "big", type: "t", input: { text: "x".repeat(20_000) }, timeout_ms: 60_000 });
  try {
    await bytes.create({ task_id: "big2", type: "t", input: { text: "x".repeat(20_000) }, timeout_ms: 60_000 });
    assert.unreachable("over the byte budget");
  } catch (error) {
    assert.is((error as { code: string }).code, "UNAVAILABLE");
  }
  await backend.close();
  await bytes.close();
});

test("bad options are a RangeError at creation", () => {
  for (const options of [{ ttlMs: 0 }, { maxDeliveries: 0 }, { delivery: "exactly-once" as "at-most-once" }, { namespace: "a{b}" }, { queue: "a b" }]) {
    assert.throws(() => createMemoryTaskBackend(options), RangeError, JSON.stringify(options));
  }
});

test.run();
