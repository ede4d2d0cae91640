/**
 * SPEC Limits: "Queue and store retry | Default 3 attempts, 100ms delay." The Redis task backend
 * retries a transient failure (Redis not connected, LOADING, TRYAGAIN, CLUSTERDOWN, MASTERDOWN; a
 * connection reset or timeout only for operations whose repeat is harmless) 3 attempts, 100 ms apart
 * on its Clock, against a real redis-server stopped and restarted between attempts; other errors are
 * not retried.
 */
import { randomBytes } from "node:crypto";
import { ReplyError } from "ioredis";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createRedisCaller, transientKind } from "../../runtime/tasks/redis-connection.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { NewTask, TaskBackend } from "../../runtime/tasks/types.js";
import { createManualClock } from "../support/clock.js";
import { startRedisServer } from "../support/redis.js";
import { eventually, within } from "../support/wait.js";

const server = await startRedisServer();
const open: { backend?: TaskBackend; store: RedisStore }[] = [];

function redisBackend() {
  const clock = createManualClock();
  const store = createStore({ env: { REDIS_URL: server.url }, log: () => undefined }) as RedisStore;
  const namespace = `retry${randomBytes(4).toString("hex")}`;
  const backend = createRedisTaskBackend(store.client, { namespace, retry: { clock } });
  open.push({ backend, store });
  return { backend, store, clock, namespace };
}

let seq = 0;
const newTask = (): NewTask => ({ task_id: `retry-${(seq += 1)}`, type: "research", input: { n: seq }, timeout_ms: 60_000 });

/** The promise's state now, without waiting for it. */
function track<T>(promise: Promise<T>): { settled: () => boolean; result: Promise<T> } {
  let settled = false;
  const result = promise.finally(() => void (settled = true));
  result.catch(() => undefined);
  return { settled: () => settled, result };
}

test.after.each(async () => {
  // A test that failed while Redis was stopped leaves it stopped: the next one needs it up.
  let up = false;
  try {
    up = server.cli("PING").trim() === "PONG";
  } catch {
    up = false;
  }
  if (!up) await server.start();
  for (const { backend, store } of open.splice(0)) {
    await backend?.close();
    await store.close();
  }
});
test.after(() => server.close());

test("Redis stopped, then back before the third attempt: the create and the read succeed, 100 ms apart on the clock", async () => {
  const { backend, store, clock } = redisBackend();
  await backend.create(newTask());
  await server.stop();
  await eventually("the client to see Redis go", () => store.client.status !== "ready");
  const task = newTask();
  const create = track(backend.create(task));
  const depth = track(backend.depth());
  await eventually("both calls to wait for their retry", () => clock.pending() === 2);
  assert.not.ok(create.settled() || depth.settled(), "the first attempt's failure is not the answer");
  await clock.advance(99);
  assert.is(clock.pending(), 2, "the delay is 100 ms");
  await server.start();
  await eventually("the client to reconnect", () => store.client.status === "ready");
  await clock.advance(1);
  await within("the retried create", create.result);
  assert.is(await within("the retried depth", depth.result), 0, "the restart lost the earlier queue (no persistence)");
  assert.is((await backend.get(task.task_id))?.task_id, task.task_id, "the retried create stored the task");
});

test("Redis down for all 3 attempts: UNAVAILABLE after the second delay, not before", async () => {
  const { backend, store, clock } = redisBackend();
  await backend.depth();
  await server.stop();
  await eventually("the client to see Redis go", () => store.client.status !== "ready");
  const read = track(backend.get("never"));
  await eventually("attempt 1 to fail", () => clock.pending() === 1);
  await clock.advance(100);
  await eventually("attempt 2 to fail", () => clock.pending() === 1);
  assert.not.ok(read.settled(), "two attempts are not all of them");
  await clock.advance(100);
  const error = await within("the third attempt", read.result).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(error, ManifoldError);
  assert.is((error as ManifoldError).code, "UNAVAILABLE");
  assert.is(clock.pending(), 0, "no fourth attempt");
});

test("an error that is not transient (WRONGTYPE) is not retried", async () => {
  const { backend, clock, namespace } = redisBackend();
  const task = newTask();
  server.cli("LPUSH", `manifold:v1:${namespace}:{tasks:default}:task:${task.task_id}`, "not-a-record");
  const error = await within("the failing read", backend.get(task.task_id)).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(error, ManifoldError);
  assert.match(String((error as ManifoldError).cause), /WRONGTYPE/);
  assert.is(clock.pending(), 0, "no retry was scheduled");
});

test("which failures are transient, and a reset is retried only for an operation whose repeat is harmless", async () => {
  for (const prefix of ["LOADING Redis is loading", "TRYAGAIN Multiple keys", "CLUSTERDOWN The cluster is down", "MASTERDOWN Link with MASTER is down"])
    assert.is(transientKind(new ReplyError(prefix)), "not_run", prefix);
  assert.is(transientKind(new ReplyError("WRONGTYPE Operation against a key")), undefined);
  assert.is(transientKind(new ReplyError("NOSCRIPT No matching script")), undefined);
  assert.is(transientKind(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })), "not_run");
  assert.is(transientKind(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })), "maybe_run");
  assert.is(transientKind(new Error("Command timed out")), "maybe_run");
  assert.is(transientKind(new Error("Connection is closed.")), "maybe_run");
  assert.is(transientKind(new TypeError("x is not a function")), undefined);

  const store = createStore({ env: { REDIS_URL: server.url }, log: () => undefined }) as RedisStore;
  open.push({ store });
  await store.client.ping();
  const clock = createManualClock();
  const caller = createRedisCaller(store.client, 1_000, { clock });
  const reset = () => Promise.reject(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
  let tries = 0;
  const counted = () => {
    tries += 1;
    return reset();
  };
  const idempotent = track(caller.call(counted, { idempotent: true }));
  for (let i = 0; i < 2; i += 1) {
    await eventually("a retry to wait", () => clock.pending() === 1);
    await clock.advance(100);
  }
  await idempotent.result.catch(() => undefined);
  assert.is(tries, 3, "a read or token write is tried 3 times");
  tries = 0;
  await caller.call(counted).catch(() => undefined);
  assert.is(tries, 1, "a create, cancel or finish may have run: not repeated");
  caller.dispose();
});

test.run();
