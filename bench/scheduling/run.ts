/**
 * Scheduled execution end to end on one Redis (a redis-server the bench starts): the Manifold
 * scheduler (firing loop + executor, in this process) against BullMQ delayed jobs doing the same
 * work (a Worker POSTing each job to the same agent), in the same run.
 *
 * 1. Fire lag: BENCH_LAG schedules (default 1,000) due over ~2 s; lag = when the agent's
 *    `/api/v1/scheduled` received the run − its due time. Median and p99.
 * 2. Burst: BENCH_BURST schedules (default 10,000) due at the same moment; time from that moment
 *    until the agent has received them all.
 *
 * Both sides dispatch with the same concurrency (the executor's 5 workers × BENCH_REPLICAS … here one
 * process, BENCH_WORKERS, default 20) over HTTP keep-alive to the same agent.
 *
 *   npm run bench:scheduling     BENCH_LAG=1000 BENCH_BURST=10000 BENCH_WORKERS=20
 */
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { Queue, Worker } from "bullmq";
import { defineAgent, type ComponentSpec } from "../../runtime/codegen/v1/index.js";
import { createMemoryRegistry } from "../../runtime/discovery/index.js";
import { createScheduleStore, serveScheduler, type ScheduleRecord } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/harness/redis-server.js";

const LAG = Number(process.env["BENCH_LAG"] ?? 1_000);
const BURST = Number(process.env["BENCH_BURST"] ?? 10_000);
const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 20);

const server = await startRedisServer();
const registry = createMemoryRegistry();

/** The agent both sides deliver to: it notes when each run arrives, by task id. */
const received = new Map<string, number>();
const spec: ComponentSpec = {
  kind: "agent",
  name: "bench-agent",
  description: "receives scheduled runs",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [], orchestration: { custom: false, workflows: [], endpoints: [] }, tasks: [], scheduled: true },
};
const agent = await defineAgent<{}, {}>(spec, {}).serve({
  handlers: {},
  port: 0,
  registry,
  handleSignals: false,
  log: () => undefined,
  scheduled: ({ task_id }) => {
    received.set(task_id, Date.now());
    return "ok";
  },
});

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`not done within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Side {
  readonly name: string;
  /** Schedules each `{key, dueMs}`; resolves once all are stored. The run arrives as task id `key`-derived. */
  schedule(items: readonly { key: string; dueMs: number }[]): Promise<void>;
  /** The task id the agent sees for a key. */
  taskId(key: string, dueMs: number): string;
  stop(): Promise<void>;
}

async function manifold(): Promise<Side> {
  const namespace = `bench${randomBytes(3).toString("hex")}`;
  const env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: namespace };
  const store = createStore({ env, log: () => undefined });
  const scheduler = await serveScheduler({ port: 0, registry, store, handleSignals: false, log: () => undefined, env, executor: { workerCount: WORKERS } });
  const schedules = createScheduleStore({ store, env });
  const ids = new Map<string, string>();
  return {
    name: "manifold",
    async schedule(items) {
      const stamp = new Date().toISOString();
      const records: ScheduleRecord[] = items.map(({ key, dueMs }) => {
        const id = `sch-${randomBytes(8).toString("hex")}`;
        ids.set(key, id);
        return {
          schedule_id: id,
          target_agent: spec.name,
          instruction: "bench",
          input: {},
          run_at: new Date(dueMs).toISOString(),
          recurring: false,
          next_run_at: new Date(dueMs).toISOString(),
          fire_count: 0,
          created_at: stamp,
          updated_at: stamp,
        };
      });
      for (let i = 0; i < records.length; i += 500) await Promise.all(records.slice(i, i + 500).map((r) => schedules.create(r)));
      scheduler.firing.wake();
    },
    taskId: (key, dueMs) => `${ids.get(key)}:${Math.floor(dueMs / 1000)}`,
    async stop() {
      await scheduler.close();
      await schedules.close();
      await store.close();
    },
  };
}

async function bullmq(): Promise<Side> {
  const connection = { host: "127.0.0.1", port: server.port, maxRetriesPerRequest: null };
  const name = `bench-${randomBytes(3).toString("hex")}`;
  const queue = new Queue(name, { connection });
  const http = new Agent({ keepAlive: true, maxSockets: WORKERS });
  const endpoint = new URL(`${agent.url}/api/v1/scheduled`);
  // The same work as the executor: POST the run to the agent's endpoint.
  const post = (body: unknown) =>
    new Promise<void>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        endpoint,
        { method: "POST", agent: http, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
        (res) => {
          res.resume();
          res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        },
      );
      req.on("error", reject);
      req.end(text);
    });
  const worker = new Worker(name, async (job) => post({ schedule_id: job.data.key, task_id: job.id!, instruction: "bench", input: {} }), {
    connection,
    concurrency: WORKERS,
  });
  return {
    name: "bullmq",
    async schedule(items) {
      const now = Date.now();
      for (let i = 0; i < items.length; i += 500) {
        await queue.addBulk(
          items.slice(i, i + 500).map(({ key, dueMs }) => ({ name: "run", data: { key }, opts: { jobId: `bull-${key}`, delay: Math.max(0, dueMs - now) } })),
        );
      }
    },
    taskId: (key) => `bull-${key}`,
    async stop() {
      await worker.close();
      await queue.close();
      http.destroy();
    },
  };
}

console.log(`node ${process.version}; one redis-server; ${WORKERS} dispatchers per side; agent over HTTP keep-alive\n`);
const results: Record<string, { median: number; p99: number; burstMs: number }> = {};
for (const make of [manifold, bullmq]) {
  const side = await make();
  // 1. Fire lag.
  const start = Date.now() + 1_500;
  const lagItems = Array.from({ length: LAG }, (_, i) => ({ key: `lag-${side.name}-${i}`, dueMs: start + Math.floor((i * 2000) / LAG) }));
  await side.schedule(lagItems);
  const lagIds = lagItems.map((item) => side.taskId(item.key, item.dueMs));
  await until(() => lagIds.every((id) => received.has(id)), 60_000);
  const lags = lagItems.map((item, i) => received.get(lagIds[i]!)! - item.dueMs);
  // 2. Burst.
  const at = Date.now() + 3_000;
  const burstItems = Array.from({ length: BURST }, (_, i) => ({ key: `burst-${side.name}-${i}`, dueMs: at }));
  await side.schedule(burstItems);
  const burstIds = burstItems.map((item) => side.taskId(item.key, item.dueMs));
  await until(() => burstIds.every((id) => received.has(id)), 120_000);
  const last = Math.max(...burstIds.map((id) => received.get(id)!));
  results[side.name] = { median: percentile(lags, 50), p99: percentile(lags, 99), burstMs: last - at };
  await side.stop();
}

console.log(`${"system".padEnd(10)}${"lag median ms".padStart(15)}${"lag p99 ms".padStart(12)}${`${BURST} due at once → all received, ms`.padStart(40)}`);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(10)}${String(r.median).padStart(15)}${String(r.p99).padStart(12)}${String(r.burstMs).padStart(40)}`);
}
const m = results["manifold"]!;
const b = results["bullmq"]!;
console.log(`\nratios (bullmq / manifold): lag p99 ${(b.p99 / Math.max(1, m.p99)).toFixed(2)}, burst ${(b.burstMs / Math.max(1, m.burstMs)).toFixed(2)}`);
console.log("aim: p99 lag ≤ 250 ms; 10,000 dispatched ≤ 2 s");
await agent.close();
await server.close();
