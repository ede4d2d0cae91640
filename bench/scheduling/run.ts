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
 * The agent runs in a process of its own (as deployed), registered in discovery on the same Redis;
 * the scheduler (or BullMQ's Queue and Worker) runs in this one. Both sides dispatch with the same
 * concurrency (BENCH_WORKERS, default 20) over HTTP keep-alive to that agent.
 *
 *   npm run bench:scheduling     BENCH_LAG=1000 BENCH_BURST=10000 BENCH_WORKERS=20 (BENCH_ONLY=manifold|bullmq: one side)
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { Queue, Worker } from "bullmq";
import { createScheduleStore, serveScheduler } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/harness/redis-server.js";
import { scheduleRecord } from "../../test/support/schedules.js";

const LAG = Number(process.env["BENCH_LAG"] ?? 1_000);
const BURST = Number(process.env["BENCH_BURST"] ?? 10_000);
const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 20);

const server = await startRedisServer();
const NAMESPACE = `bench${randomBytes(3).toString("hex")}`;
const env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: NAMESPACE };

/** The agent both sides deliver to, in its own process: when each run arrived, by task id. */
const received = new Map<string, number>();
/** Task ids not received yet, and who to tell when none is left (no polling: the bench's CPU is the scheduler's). */
let waiting = new Set<string>();
let wake: (() => void) | undefined;
const agentProcess = spawn(process.execPath, [...process.execArgv, new URL("./agent.ts", import.meta.url).pathname], {
  env: { ...process.env, ...env },
  stdio: ["ignore", "pipe", "inherit"],
});
const agentUrl = await new Promise<string>((resolve) => {
  createInterface({ input: agentProcess.stdout! }).on("line", (line) => {
    const [first, second] = line.split(" ");
    if (first === "listening") resolve(second!);
    else {
      received.set(first!, Number(second));
      if (waiting.delete(first!) && waiting.size === 0) wake?.();
    }
  });
});

/** A bare keep-alive POST of one run to the agent: BullMQ's worker does this, and it is the floor. */
const http = new Agent({ keepAlive: true, maxSockets: WORKERS });
const endpoint = new URL(`${agentUrl}/api/v1/scheduled`);
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

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Resolves once the agent has received every one of `ids`. */
function allReceived(ids: readonly string[], ms: number): Promise<void> {
  waiting = new Set(ids.filter((id) => !received.has(id)));
  if (waiting.size === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${waiting.size} runs not received within ${ms} ms`)), ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
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
  const store = createStore({ env, log: () => undefined });
  const scheduler = await serveScheduler({ port: 0, store, handleSignals: false, log: () => undefined, env, executor: { workerCount: WORKERS } });
  const schedules = createScheduleStore({ store, env });
  const ids = new Map<string, string>();
  return {
    name: "manifold",
    async schedule(items) {
      const records = items.map(({ key, dueMs }) => {
        const record = scheduleRecord(dueMs, { target_agent: "bench-agent", instruction: "bench", input: {} });
        ids.set(key, record.schedule_id);
        return record;
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
    },
  };
}

console.log(`node ${process.version}; one redis-server; ${WORKERS} dispatchers per side; agent over HTTP keep-alive\n`);
const results: Record<string, { median: number; p99: number; burstMs: number; cpuUs: number }> = {};
for (const make of [manifold, bullmq].filter((side) => (process.env["BENCH_ONLY"] ?? side.name) === side.name)) {
  const side = await make();
  // 1. Fire lag.
  const start = Date.now() + 1_500;
  const lagItems = Array.from({ length: LAG }, (_, i) => ({ key: `lag-${side.name}-${i}`, dueMs: start + Math.floor((i * 2000) / LAG) }));
  await side.schedule(lagItems);
  const lagIds = lagItems.map((item) => side.taskId(item.key, item.dueMs));
  await allReceived(lagIds, 60_000);
  const lags = lagItems.map((item, i) => received.get(lagIds[i]!)! - item.dueMs);
  // 2. Burst.
  const at = Date.now() + 3_000;
  const burstItems = Array.from({ length: BURST }, (_, i) => ({ key: `burst-${side.name}-${i}`, dueMs: at }));
  await side.schedule(burstItems);
  const burstIds = burstItems.map((item) => side.taskId(item.key, item.dueMs));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
  // This process's CPU from the due moment until all arrived: firing and dispatching (manifold) or
  // promoting and working (BullMQ), per run. The agent and Redis run elsewhere.
  const cpu = process.cpuUsage();
  await allReceived(burstIds, 120_000);
  const used = process.cpuUsage(cpu);
  const last = Math.max(...burstIds.map((id) => received.get(id)!));
  results[side.name] = { median: percentile(lags, 50), p99: percentile(lags, 99), burstMs: last - at, cpuUs: (used.user + used.system) / BURST };
  await side.stop();
}

// 3. The floor: the same BURST runs POSTed straight to the agent, WORKERS at a time, no scheduler.
const floorStarted = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: WORKERS }, async () => {
    while (next < BURST) await post({ schedule_id: "floor", task_id: `floor-${next++}`, instruction: "bench", input: {} });
  }),
);
const floorMs = Date.now() - floorStarted;
http.destroy();

console.log(
  `${"system".padEnd(10)}${"lag median ms".padStart(15)}${"lag p99 ms".padStart(12)}${`${BURST} due at once → all received, ms`.padStart(40)}${"CPU µs/run".padStart(12)}`,
);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(10)}${String(r.median).padStart(15)}${String(r.p99).padStart(12)}${String(r.burstMs).padStart(40)}${r.cpuUs.toFixed(0).padStart(12)}`,
  );
}
const m = results["manifold"];
const b = results["bullmq"];
if (m !== undefined && b !== undefined) {
  console.log(
    `\nratios (bullmq / manifold): lag p99 ${(b.p99 / Math.max(1, m.p99)).toFixed(2)}, burst ${(b.burstMs / Math.max(1, m.burstMs)).toFixed(2)}, CPU per run ${(b.cpuUs / m.cpuUs).toFixed(2)}`,
  );
}
console.log(`floor: the same ${BURST} runs POSTed straight to the agent, ${WORKERS} at a time, no scheduler: ${floorMs} ms`);
console.log("aim: p99 lag ≤ 250 ms; 10,000 dispatched ≤ 2 s");
agentProcess.kill("SIGTERM");
await new Promise((resolve) => agentProcess.once("exit", resolve));
await server.close();
