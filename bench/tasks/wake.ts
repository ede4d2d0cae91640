/**
 * How fast the task runtime reacts, measured on the real clock: the speed aims the test suites used to
 * assert as wall-clock bounds (a test now asserts only what ended a wait, on a manual clock where it
 * can). Each figure is the worst of a few runs, memory and Redis backends where both apply:
 *
 * - a blocked dequeue woken by a create; three blocked dequeues woken by three creates; by a release
 * - a lapsed lease (300 ms) picked up by a blocked dequeue; an empty 400 ms block returning
 * - an abort, and a close, ending a blocked dequeue
 * - the pool: a 300 ms timeout failing the task; a cancel reaching the handler; stop(400) with two
 *   handlers ignoring their signal; stop with nothing running
 * - the client (a served agent): an abort ending a paused wait; the pauses between polls
 * - Redis down: a call failing; a blocked dequeue ending
 *
 *   npm run bench:wake       BENCH_WAKE_RUNS=5
 */
import { randomUUID } from "node:crypto";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createMemoryTaskBackend, createMemoryTaskState, type MemoryTaskState } from "../../runtime/tasks/memory-backend.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { NewTask, TaskBackend } from "../../runtime/tasks/types.js";
import { createWorkerPool } from "../../runtime/tasks/worker-pool.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { createTaskClient } from "../../runtime/tasks/index.js";
import { startRedisServer, type RedisServer } from "../../test/support/redis.js";
import { agentSpec, serveAgent, silentLogger } from "../../test/tasks/support.js";
import { sleep } from "../../test/support/wait.js";

const RUNS = Number(process.env["BENCH_WAKE_RUNS"] ?? 5);
const LONG = 600_000;
const log = createLogger({ component: "bench", env: {}, write: () => undefined });
const task = (timeoutMs = 60_000): NewTask => ({ task_id: randomUUID(), type: "x", input: {}, timeout_ms: timeoutMs });

/** Opens backends on one fresh queue (shared state or namespace) and closes them all. */
type Backends = { make(): TaskBackend; close(): Promise<void> };

function memoryBackends(): Backends {
  const state: MemoryTaskState = createMemoryTaskState();
  const opened: TaskBackend[] = [];
  return {
    make: () => {
      const b = createMemoryTaskBackend({ state });
      opened.push(b);
      return b;
    },
    close: async () => void (await Promise.all(opened.map((b) => b.close()))),
  };
}

function redisBackends(url: string): Backends {
  const namespace = `w${randomUUID().slice(0, 8)}`;
  const opened: { backend: TaskBackend; store: RedisStore }[] = [];
  return {
    make: () => {
      const store = createStore({ env: { REDIS_URL: url }, log: () => undefined }) as RedisStore;
      const backend = createRedisTaskBackend(store.client, { namespace });
      opened.push({ backend, store });
      return backend;
    },
    close: async () => {
      for (const { backend, store } of opened) {
        await backend.close();
        await store.close();
      }
    },
  };
}

/** Milliseconds from `trigger` until `ended` settles. */
async function lag(ended: Promise<unknown>, trigger: () => unknown): Promise<number> {
  await sleep(100); // the wait is under way
  const at = performance.now();
  await trigger();
  await ended;
  return performance.now() - at;
}

const dequeue = (b: TaskBackend, blockMs = LONG, signal?: AbortSignal) => b.dequeue({ count: 1, leaseMs: 30_000, blockMs, ...(signal ? { signal } : {}) });

/** Each measurement on one fresh queue: the milliseconds it reports. */
const backendCases: Record<string, (open: Backends) => Promise<number>> = {
  "create wakes a blocked dequeue": async (open) => {
    const [worker, api] = [open.make(), open.make()];
    await dequeue(worker, 0);
    return lag(dequeue(worker), () => api.create(task()));
  },
  "3 creates wake 3 blocked dequeues": async (open) => {
    const workers = [open.make(), open.make(), open.make()];
    const api = open.make();
    return lag(Promise.all(workers.map((w) => dequeue(w))), async () => {
      for (let i = 0; i < 3; i += 1) await api.create(task());
    });
  },
  "release wakes a blocked dequeue": async (open) => {
    const [a, b] = [open.make(), open.make()];
    await a.create(task());
    const [lease] = await dequeue(a, 0);
    return lag(dequeue(b), () => a.release(lease!.task.task_id, lease!.token));
  },
  "lapsed 300 ms lease picked up (after the lapse)": async (open) => {
    const [dead, live] = [open.make(), open.make()];
    await dead.create(task());
    await dead.dequeue({ count: 1, leaseMs: 300, blockMs: 0 });
    const at = performance.now();
    await dequeue(live);
    return performance.now() - at - 300;
  },
  "empty 400 ms block returns (after blockMs)": async (open) => {
    const b = open.make();
    const at = performance.now();
    await dequeue(b, 400);
    return performance.now() - at - 400;
  },
  "abort ends a blocked dequeue": async (open) => {
    const controller = new AbortController();
    return lag(dequeue(open.make(), LONG, controller.signal), () => controller.abort());
  },
  "close ends a blocked dequeue": async (open) => {
    const b = open.make();
    return lag(dequeue(b), () => b.close());
  },
};

/** The pool and client cases run on the memory backend: what they measure is the pool's own reaction. */
const poolCases: Record<string, () => Promise<number>> = {
  "300 ms task timeout failed (after the deadline)": async () => {
    const backend = createMemoryTaskBackend();
    const pool = createWorkerPool({ backend, handlers: { x: () => new Promise(() => undefined) }, workerCount: 1, env: {}, log });
    const t = task(300);
    await backend.create(t);
    const at = performance.now();
    while ((await backend.get(t.task_id))?.status !== "failed") await sleep(5);
    const ms = performance.now() - at - 300;
    await pool.stop(0);
    await backend.close();
    return ms;
  },
  "cancel reaches the running handler": async () => {
    const backend = createMemoryTaskBackend();
    let aborted: (() => void) | undefined;
    const seen = new Promise<void>((resolve) => (aborted = resolve));
    const pool = createWorkerPool({
      backend,
      handlers: { x: (_i, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(aborted?.()))) },
      env: {},
      log,
    });
    const t = task();
    await backend.create(t);
    while ((await backend.get(t.task_id))?.status !== "running") await sleep(5);
    const ms = await lag(seen, () => backend.cancel(t.task_id));
    await pool.stop(0);
    await backend.close();
    return ms;
  },
  "stop(400) with two stuck handlers (past the grace period)": async () => {
    const backend = createMemoryTaskBackend();
    const pool = createWorkerPool({ backend, handlers: { x: () => new Promise(() => undefined) }, workerCount: 2, env: {}, log });
    await backend.create(task());
    await backend.create(task());
    while (pool.active < 2) await sleep(5);
    const at = performance.now();
    await pool.stop(400);
    await backend.close();
    return performance.now() - at - 400;
  },
  "client wait: an abort ends a paused wait": async () => {
    const backend = createMemoryTaskBackend();
    const never = () => new Promise<never>(() => undefined);
    const running = await serveAgent({ backend, handlers: { echo: never, work: never, slowJob: never }, runWorkflow: never, log: silentLogger() });
    const client = createTaskClient<{ work: { input: Record<string, never>; output: unknown } }>(agentSpec, { baseUrl: running.url });
    const { task_id } = await client.work.submit({});
    const controller = new AbortController();
    const ms = await lag(
      client.work.wait(task_id, { signal: controller.signal, intervalMs: LONG }).catch(() => undefined),
      () => controller.abort(),
    );
    await running.close();
    await backend.close();
    return ms;
  },
  "client wait: first pause (intervalMs 50)": async () => (await pollGaps())[0]!,
  "client wait: longest capped pause (maxIntervalMs 400)": async () => Math.max(...(await pollGaps()).slice(3)),
  "stop with nothing running": async () => {
    const backend = createMemoryTaskBackend();
    const pool = createWorkerPool({ backend, handlers: {}, env: {}, log });
    await sleep(50);
    const at = performance.now();
    await pool.stop();
    await backend.close();
    return performance.now() - at;
  },
};

/** The gaps between a waiting client's polls of a task that takes 1.5 s. */
async function pollGaps(): Promise<number[]> {
  const backend = createMemoryTaskBackend();
  const never = () => new Promise<never>(() => undefined);
  const work = () => sleep(1_500).then(() => "done");
  const running = await serveAgent({ backend, handlers: { echo: never, work, slowJob: never }, runWorkflow: never, log: silentLogger() });
  const polls: number[] = [];
  const client = createTaskClient<{ work: { input: Record<string, never>; output: unknown } }>(agentSpec, {
    baseUrl: () => {
      polls.push(performance.now());
      return running.url;
    },
  });
  const { task_id } = await client.work.submit({});
  polls.length = 0;
  await client.work.wait(task_id, { intervalMs: 50, maxIntervalMs: 400 });
  await running.close();
  await backend.close();
  return polls.slice(1).map((t, i) => t - polls[i]!);
}

async function outageCases(server: RedisServer): Promise<Record<string, number>> {
  const open = redisBackends(server.url);
  const b = open.make();
  await b.create(task());
  const blocked = b.dequeue({ count: 1, leaseMs: 1_000, blockMs: 0 }).then(() => dequeue(b).catch(() => undefined));
  await sleep(200);
  const stopped = performance.now();
  await server.stop();
  const failing = performance.now();
  await b.get("x").catch(() => undefined);
  const call = performance.now() - failing;
  await blocked;
  const ended = performance.now() - stopped;
  await server.start();
  await open.close();
  return { "Redis down: a call fails": call, "Redis down: a blocked dequeue ends": ended };
}

const worst = (values: number[]) => Math.max(...values);

async function main(): Promise<void> {
  const server = await startRedisServer();
  const rows: [string, string, number][] = [];
  for (const [name, run] of Object.entries(backendCases)) {
    for (const [adapter, make] of [
      ["memory", memoryBackends],
      ["redis", () => redisBackends(server.url)],
    ] as const) {
      const values: number[] = [];
      for (let i = 0; i < RUNS; i += 1) {
        const open = make();
        values.push(await run(open));
        await open.close();
      }
      rows.push([name, adapter, worst(values)]);
    }
  }
  for (const [name, run] of Object.entries(poolCases)) {
    const values: number[] = [];
    for (let i = 0; i < RUNS; i += 1) values.push(await run());
    rows.push([name, "memory", worst(values)]);
  }
  for (const [name, ms] of Object.entries(await outageCases(server))) rows.push([name, "redis", ms]);
  await server.close();
  console.log(`worst of ${RUNS} runs, ms (node ${process.version})`);
  for (const [name, adapter, ms] of rows) console.log(`${name.padEnd(56)} ${adapter.padEnd(7)} ${ms.toFixed(1).padStart(8)}`);
}

await main();
