/**
 * What only the Redis task backend has: its key layout and TTLs, the compact record, blocking
 * without polling, an outage and a restart, and `createTaskBackend` choosing it from the store. The
 * behaviour both adapters share is in test/contract/tasks*.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/backend.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { NewTask, TaskBackend } from "../../runtime/tasks/types.js";
import { startRedisServer } from "../support/redis.js";
import { eventually, sleep, within } from "../support/wait.js";

const PASSWORD = "s3cret-pass-word";
const server = await startRedisServer({ password: PASSWORD });
const open: { backend: TaskBackend; store: RedisStore }[] = [];

function redisBackend(options: Parameters<typeof createRedisTaskBackend>[1] = {}) {
  const store = createStore({ env: { REDIS_URL: server.url }, log: () => undefined }) as RedisStore;
  const namespace = options.namespace ?? `t${randomBytes(4).toString("hex")}`;
  const backend = createRedisTaskBackend(store.client, { namespace, ...options });
  open.push({ backend, store });
  return { backend, store, namespace };
}

let seq = 0;
const newTask = (overrides: Partial<NewTask> = {}): NewTask => ({
  task_id: `r-${(seq += 1)}`,
  type: "research",
  input: { n: seq },
  timeout_ms: 60_000,
  ...overrides,
});

const cli = (...args: string[]) => server.cli(...args).trim();

test.after.each(async () => {
  for (const { backend, store } of open.splice(0)) {
    await backend.close();
    await store.close();
  }
});
test.after(() => server.close());

test("keys: manifold:v1:<ns>:{tasks:<queue>}:…, no TTL while queued or running, ttlMs once finished", async () => {
  const { backend, namespace } = redisBackend({ queue: "travel-agent", ttlMs: 60_000 });
  const task = newTask();
  await backend.create(task);
  const base = `manifold:v1:${namespace}:{tasks:travel-agent}`;
  const record = `${base}:task:${task.task_id}`;
  assert.is(cli("TYPE", record), "string");
  assert.is(cli("PTTL", record), "-1", "a queued task waits as long as it takes");
  assert.is(cli("LRANGE", `${base}:queue`, "0", "-1"), task.task_id);
  const [lease] = await backend.dequeue({ count: 1, leaseMs: 10_000, blockMs: 0 });
  assert.is(cli("PTTL", record), "-1");
  const score = Number(cli("ZSCORE", `${base}:leases`, task.task_id));
  assert.is(score, lease!.expiresAt, "the lease's expiry is its score");
  await backend.complete(task.task_id, lease!.token, { ok: true });
  const ttl = Number(cli("PTTL", record));
  assert.ok(ttl > 55_000 && ttl <= 60_000, `PTTL ${ttl} once finished`);
  assert.is(cli("ZSCORE", `${base}:leases`, task.task_id), "");
  const keys = cli("KEYS", `manifold:v1:${namespace}:*`).split("\n").sort();
  // Empty lists and sorted sets vanish; the wake marker left by the create is still there.
  assert.equal(keys, [`${base}:task:${task.task_id}`, `${base}:wake`]);
  for (const key of keys) assert.ok(key.startsWith(`${base}:`), `${key} carries the queue's hash tag`);
});

test("the record is one string, far smaller than a hash once the result passes 64 bytes", async () => {
  const { backend, namespace } = redisBackend({ queue: "q" });
  const result = {
    temperature: 21.5,
    condition: "sunny",
    headline: "It is sunny in Paris",
    rate: 1.0832,
    converted: 1299.84,
    country: { name: "France", capital: "Paris" },
  };
  const task = newTask({ task_id: "3f1c2a8e-4b7d-4e0a-9c1e-5d2f6a7b8c9d", input: { destination: "Paris", amount: 1200, currency: "EUR", days: 5 } });
  await backend.create(task);
  const [lease] = await backend.dequeue({ count: 1, leaseMs: 10_000, blockMs: 0 });
  await backend.complete(task.task_id, lease!.token, result);
  const bytes = Number(cli("MEMORY", "USAGE", `manifold:v1:${namespace}:{tasks:q}:task:${task.task_id}`));
  // 432 bytes measured on Redis 7.0; the same fields as a hash take 872 (hashtable encoding). See redis-record.ts.
  assert.ok(bytes < 700, `a finished task takes ${bytes} bytes`);
  assert.equal((await backend.get(task.task_id))!.result, result);
});

test("a value that is not a task record reads as no task", async () => {
  const { backend, namespace } = redisBackend({ queue: "q" });
  cli("SET", `manifold:v1:${namespace}:{tasks:q}:task:junk`, "not a record");
  assert.is(await backend.get("junk"), undefined);
  assert.equal(await backend.cancel("junk"), { outcome: "not_found" });
  assert.is(await backend.complete("junk", "x", {}), "lost");
});

test("a blocked dequeue waits on BLPOP, not by polling the queue", async () => {
  const { backend } = redisBackend();
  await backend.depth();
  cli("CONFIG", "RESETSTAT");
  const started = Date.now();
  assert.equal(await backend.dequeue({ count: 10, leaseMs: 1_000, blockMs: 1_500 }), []);
  assert.ok(Date.now() - started >= 1_400);
  const stats = cli("INFO", "commandstats");
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  assert.ok(calls("evalsha") + calls("eval") <= 3, `${calls("evalsha") + calls("eval")} script calls in 1.5 s`);
  assert.ok(calls("blpop") >= 1 && calls("blpop") <= 2, `${calls("blpop")} BLPOP`);
});

test("a finish sent by the dequeuing worker stores the record the script would build; progress stored meanwhile is kept", async () => {
  const { backend, store, namespace } = redisBackend();
  const other = createRedisTaskBackend(store.client, { namespace });
  const tasks = [newTask(), newTask(), newTask(), newTask(), newTask()];
  for (const t of tasks) await backend.create(t);
  const leases = await backend.dequeue({ count: 5, leaseMs: 10_000, blockMs: 0 });
  const [plain, progressed, progressedElsewhere, elsewhere, failed] = leases.map((l) => ({ taskId: l.task.task_id, token: l.token }));
  assert.is(await backend.progress(progressed!.taskId, progressed!.token, { percentage: 40 }), "ok");
  assert.is(await other.progress(progressedElsewhere!.taskId, progressedElsewhere!.token, { percentage: 60 }), "ok");
  // This backend kept the records its dequeue returned; the other has none and sends the outcome alone.
  assert.equal(await other.finishMany([{ status: "completed", ...elsewhere!, result: { by: "other" } }]), ["ok"]);
  const answers = await backend.finishMany([
    { status: "completed", ...plain!, result: { ok: 1 } },
    { status: "completed", ...progressed!, result: { ok: 2 } },
    { status: "completed", ...progressedElsewhere!, result: { ok: 3 } },
    { status: "completed", ...elsewhere!, result: { late: true } },
    { status: "failed", ...failed!, error: { code: "HANDLER_ERROR", message: "no" } },
  ]);
  assert.equal(answers, ["ok", "ok", "ok", "lost", "ok"]);
  const key = (id: string) => `manifold:v1:${namespace}:{tasks:default}:task:${id}`;
  const fixed = (t: NewTask) => `{"type":"research","timeout_ms":60000,"input":${JSON.stringify(t.input)}}`;
  const header = (status: string) => new RegExp(`^${status}\\|1\\|\\|\\d{13}\\|\\d{13}\\|\\d{13}$`);
  const stored = tasks.map((t) => cli("GET", key(t.task_id)).split("\n"));
  assert.equal(
    stored.map((lines) => lines.slice(1)),
    [
      ["", "", '{"ok":1}', fixed(tasks[0]!)],
      ['{"percentage":40}', "", '{"ok":2}', fixed(tasks[1]!)],
      ['{"percentage":60}', "", '{"ok":3}', fixed(tasks[2]!)],
      ["", "", '{"by":"other"}', fixed(tasks[3]!)],
      ["", '{"code":"HANDLER_ERROR","message":"no"}', "", fixed(tasks[4]!)],
    ],
  );
  stored.forEach((lines, i) => assert.match(lines[0]!, header(i === 4 ? "failed" : "completed")));
  for (const t of tasks) assert.ok(Number(cli("PTTL", key(t.task_id))) > 0, "a finished record expires");
  const read = await backend.get(tasks[0]!.task_id);
  assert.equal(
    [read!.status, read!.deliveries, read!.result, read!.started_at, read!.created_at],
    ["completed", 1, { ok: 1 }, leases[0]!.task.started_at, leases[0]!.task.created_at],
  );
  await other.close();
});

/** Calls of each command since `CONFIG RESETSTAT`, from INFO commandstats (script calls included). */
function commandCalls(): (name: string) => number {
  const stats = cli("INFO", "commandstats");
  return (name) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
}

test("a batch costs Redis a few commands, not a read and a write per task: create, dequeue and finish of 50", async () => {
  const { backend } = redisBackend();
  await backend.depth();
  cli("CONFIG", "RESETSTAT");
  const tasks = Array.from({ length: 50 }, () => newTask());
  await Promise.all(tasks.map((t) => backend.create(t)));
  const leases = await backend.dequeue({ count: 50, leaseMs: 10_000, blockMs: 0 });
  assert.is(leases.length, 50);
  const answers = await backend.finishMany(leases.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: 1 } })));
  assert.ok(answers.every((a) => a === "ok"));
  const calls = commandCalls();
  assert.is(calls("evalsha") + calls("eval"), 3, "one script call each for the creates, the dequeue and the finishes");
  assert.is(calls("get"), 0, "records are read with MGET, one per batch");
  // The dequeue's: the finish reads no record, its worker sends the finished one (finish-2.lua).
  assert.is(calls("mget"), 1);
  // The one command per task left: a finished record's own TTL (PEXPIREAT); the 50 finished records
  // are one MSET, and 50 creates are one MSETNX.
  assert.is(calls("set"), 0);
  assert.is(calls("pexpireat"), 50);
  assert.is(calls("msetnx"), 1);
  // Taking 50 writes no record: their leases are one HSET of states (and one ZADD); finishing checks them with one HMGET.
  assert.is(calls("mset"), 1);
  assert.is(calls("hset"), 1);
  assert.is(calls("hmget"), 1);
  assert.equal((await backend.get(tasks[49]!.task_id))!.result, { ok: 1 });
});

test("an id met twice in one dequeue (a stale copy left by a cancel, its record expired and made again) is leased once", async () => {
  const { backend, namespace } = redisBackend({ queue: "q" });
  const task = newTask();
  await backend.create(task);
  await backend.cancel(task.task_id);
  cli("DEL", `manifold:v1:${namespace}:{tasks:q}:task:${task.task_id}`); // what the cancelled record's TTL does
  await backend.create(task);
  const leases = await backend.dequeue({ count: 5, leaseMs: 10_000, blockMs: 0 });
  assert.equal(
    leases.map((l) => [l.task.task_id, l.task.deliveries]),
    [[task.task_id, 1]],
  );
  assert.is(await backend.depth(), 0);
  assert.is(await backend.complete(task.task_id, leases[0]!.token, 1), "ok");
});

test("Redis down: calls fail fast with UNAVAILABLE and no password; after a restart (data and scripts gone) it works again", async () => {
  // Once connected, a call while Redis is down must not wait for it: with a connection wait of ten
  // minutes, only failing fast ends these calls within the hang guard.
  const { backend } = redisBackend({ connectWaitMs: 600_000 });
  await backend.create(newTask());
  // Its outcome is read once Redis is down; the handlers are attached now so nothing goes unhandled.
  const blocked = backend
    .dequeue({ count: 1, leaseMs: 1_000, blockMs: 0 })
    .then(() => backend.dequeue({ count: 1, leaseMs: 1_000, blockMs: 600_000 }))
    .then(
      () => "returned",
      (error: ManifoldError) => error.code,
    );
  await sleep(200);
  await server.stop();
  for (const call of [
    () => backend.create(newTask()),
    () => backend.get("x"),
    () => backend.depth(),
    () => backend.cancel("x"),
  ] as (() => Promise<unknown>)[]) {
    try {
      await within("a call with Redis down to fail", call());
      assert.unreachable("succeeded with Redis down");
    } catch (error) {
      assert.instance(error, ManifoldError);
      assert.is((error as ManifoldError).code, "UNAVAILABLE");
      assert.not.match((error as Error).message, PASSWORD);
    }
  }
  // Its block is ten minutes: the outage is what ends it.
  const outcome = await within("the outage to end the blocked dequeue", blocked);
  assert.ok(outcome === "UNAVAILABLE" || outcome === "returned", `the blocked dequeue ended: ${outcome}`);
  await server.start();
  const task = newTask();
  await eventually(
    "create to work again after the restart",
    () =>
      backend.create(task).then(
        () => true,
        () => false,
      ),
    { intervalMs: 100 },
  );
  assert.equal(
    (await backend.dequeue({ count: 5, leaseMs: 1_000, blockMs: 0 })).map((l) => l.task.task_id),
    [task.task_id],
  );
});

test("a task the previous layout left running (lease token in its record) reads as running, cancels, and is redelivered once its lease lapses", async () => {
  const { backend, namespace } = redisBackend({ queue: "q" });
  const base = `manifold:v1:${namespace}:{tasks:q}`;
  const fixed = JSON.stringify({ type: "research", timeout_ms: 60_000, input: { n: 1 } });
  // What the previous layout's dequeue stored: status running, 1 delivery, its token, created 900, started 1000; leases lapsed at 1.
  for (const id of ["old-1", "old-2"]) {
    cli("SET", `${base}:task:${id}`, `running|1|old.1.${id}|900|1000|\n\n\n\n${fixed}`);
    cli("ZADD", `${base}:leases`, "1", id);
  }
  const read = await backend.get("old-1");
  assert.equal([read?.status, read?.deliveries, read?.started_at, read?.input], ["running", 1, new Date(1_000).toISOString(), { n: 1 }]);
  assert.is((await backend.cancel("old-2")).outcome, "cancelled");
  assert.is(cli("ZSCORE", `${base}:leases`, "old-2"), "", "a cancelled task is never redelivered");
  const leases = await backend.dequeue({ count: 5, leaseMs: 10_000, blockMs: 0 });
  assert.equal(
    leases.map((l) => [l.task.task_id, l.task.status, l.task.deliveries, l.task.started_at, l.task.created_at]),
    [["old-1", "running", 2, new Date(1_000).toISOString(), new Date(900).toISOString()]],
  );
  assert.equal(await backend.get("old-1"), leases[0]!.task);
  assert.is(await backend.complete("old-1", "old.1.old-1", {}), "lost", "the previous worker's token is refused");
  assert.is(await backend.complete("old-1", leases[0]!.token, { done: true }), "ok");
  const done = await backend.get("old-1");
  assert.equal([done?.status, done?.deliveries, done?.result], ["completed", 2, { done: true }]);
});

test("createTaskBackend uses Redis when the store is Redis, the process-wide memory store otherwise", async () => {
  const store = createStore({
    env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: `t${randomBytes(4).toString("hex")}` },
    log: () => undefined,
  }) as RedisStore;
  const backend = createTaskBackend({ store, queue: "agent" });
  const task = newTask();
  await backend.create(task);
  assert.is(cli("TYPE", `manifold:v1:${store.namespace}:{tasks:agent}:task:${task.task_id}`), "string");
  await backend.close();
  await store.close();

  const memoryStore = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "shared-ns" }, log: () => undefined });
  const [api, worker, other] = [
    createTaskBackend({ store: memoryStore, queue: "agent" }),
    createTaskBackend({ store: memoryStore, queue: "agent" }),
    createTaskBackend({ store: memoryStore, queue: "other" }),
  ];
  await api.create(task);
  assert.equal(
    (await worker.dequeue({ count: 1, leaseMs: 1_000, blockMs: 0 })).map((l) => l.task.task_id),
    [task.task_id],
    "same namespace and queue: same tasks",
  );
  assert.is(await other.get(task.task_id), undefined);
  await Promise.all([api.close(), worker.close(), other.close()]);
});

test.run();
