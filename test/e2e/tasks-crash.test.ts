/**
 * At-least-once delivery on real processes and a real Redis: one API process (MANIFOLD_MODE=api) takes
 * 2,000 task submissions over HTTP, three worker processes (MANIFOLD_MODE=worker, 1.5 s lease) run
 * them, and every two seconds one worker is killed with SIGKILL mid-work and a new one started. Every
 * task must end `completed` with the right result: none lost, none stuck in `running`. The handler
 * counts its runs in Redis, so the suite reports how many tasks ran more than once.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Redis } from "ioredis";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createTaskBackend, type TaskBackend, type TaskRecord } from "../../runtime/tasks/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { sleep, WAIT_LIMIT_MS } from "../support/wait.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

const TASKS = 2_000;
const WORKERS = 3;
const KILL_EVERY_MS = 2_000;
/** A hang guard, not a speed aim (the run's time is printed; its aim is a row in bench/README.md): past it the statuses say what is stuck. */
const GIVE_UP_MS = 4 * WAIT_LIMIT_MS;

let server: RedisServer;
let store: RedisStore;
let backend: TaskBackend;
let redis: Redis;
let api: Fixture;
let workers: Fixture[] = [];
let env: Record<string, string>;

test.before(async () => {
  server = await startRedisServer();
  env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "crash", MANIFOLD_TASK_LEASE_MS: "1500", WORKER_COUNT: "10", MANIFOLD_LOG_LEVEL: "error" };
  store = createStore({ env, log: () => undefined }) as RedisStore;
  backend = createTaskBackend({ store, queue: "crunch-agent" });
  redis = new Redis(server.url);
  [api, ...workers] = await Promise.all([
    startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "api" }),
    ...Array.from({ length: WORKERS }, () => startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "worker" })),
  ]);
});

test.after(async () => {
  killAll();
  redis?.disconnect();
  await backend?.close();
  await store?.close();
  await server?.close();
});

async function submitAll(): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const post = async (n: number): Promise<void> => {
    // 60–300 ms of work each, about 12 s of it across 30 slots: every kill lands mid-task.
    const body = JSON.stringify({ type: "crunch", input: { n, ms: 60 + ((n * 37) % 240) } });
    const response = await fetch(`${api.url}/api/v1/tasks`, { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.is(response.status, 202, await response.clone().text());
    ids.set(((await response.json()) as { task_id: string }).task_id, n);
  };
  for (let start = 0; start < TASKS; start += 100) await Promise.all(Array.from({ length: Math.min(100, TASKS - start) }, (_, i) => post(start + i)));
  return ids;
}

async function records(ids: readonly string[]): Promise<TaskRecord[]> {
  const out: TaskRecord[] = [];
  for (let i = 0; i < ids.length; i += 200) out.push(...(await Promise.all(ids.slice(i, i + 200).map(async (id) => (await backend.get(id))!))));
  return out;
}

test("2,000 tasks, three workers, one killed with SIGKILL every 2 s and restarted: every task completes, none lost, none stuck", async () => {
  const started = Date.now();
  let done = false;
  let kills = 0;
  let ticks = 0;
  const exits: Promise<unknown>[] = [];
  const starting: Promise<unknown>[] = [];
  // The killer runs from the first second on, through the submissions and the work, on a fixed
  // schedule: each tick kills the oldest worker that is up, and its replacement starts in the
  // background, so a slow start on a loaded machine never delays the next kill. What is asserted is
  // what happened: every tick that found a worker up killed it, and every kill was a SIGKILL.
  const up = [...workers];
  const killer = (async () => {
    for (;;) {
      await sleep(KILL_EVERY_MS);
      if (done) return;
      ticks += 1;
      const doomed = up.shift();
      if (doomed === undefined) continue;
      doomed.child.kill("SIGKILL");
      exits.push(doomed.exited);
      kills += 1;
      starting.push(
        startFixture("tasks/agent.ts", { ...env, MANIFOLD_MODE: "worker" }).then((worker) => {
          workers.push(worker);
          up.push(worker);
        }),
      );
    }
  })();

  const ids = await submitAll();
  assert.is(ids.size, TASKS);
  const taskIds = [...ids.keys()];
  try {
    for (;;) {
      const finished = (await records(taskIds)).filter((t) => t.status === "completed" || t.status === "failed" || t.status === "cancelled");
      if (finished.length === TASKS || Date.now() - started > GIVE_UP_MS) break;
      await sleep(500);
    }
  } finally {
    done = true;
    await killer;
    await Promise.allSettled(starting);
  }
  const all = await records(taskIds);
  const byStatus = new Map<string, number>();
  for (const t of all) byStatus.set(t.status, (byStatus.get(t.status) ?? 0) + 1);
  const runs = await redis.mget(taskIds.map((id) => `crunch-runs:${id}`));
  const twice = runs.filter((r) => Number(r) >= 2).length;
  const redelivered = all.filter((t) => t.deliveries > 1).length;
  const elapsed = Date.now() - started;
  console.log(
    `  crash test: ${TASKS} tasks in ${(elapsed / 1000).toFixed(1)} s, ${kills} SIGKILLs in ${ticks} ticks; ran twice or more: ${twice}; redelivered (deliveries > 1): ${redelivered}; statuses: ${JSON.stringify(Object.fromEntries(byStatus))}`,
  );

  assert.ok(kills >= 1, "no worker was killed: nothing was tested");
  assert.equal(
    await Promise.all(exits),
    exits.map(() => "SIGKILL"),
    "every kill was a SIGKILL",
  );
  assert.equal(Object.fromEntries(byStatus), { completed: TASKS }, "every task completed: none lost, none stuck running or queued");
  for (const task of all) {
    const n = ids.get(task.task_id)!;
    assert.equal((task.result as { square: number }).square, n * n, `result of ${task.task_id}`);
  }
  assert.ok(
    runs.every((r) => Number(r) >= 1),
    "every task ran at least once",
  );
  assert.ok(twice > 0, "kills landed mid-task, so some task ran again (at-least-once, not at-most-once)");
});

test.run();
