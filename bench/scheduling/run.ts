/**
 * Scheduled execution end to end on one Redis (a redis-server the bench starts): the Manifold
 * scheduler (firing loop + executor, in this process) against BullMQ delayed jobs doing the same
 * work (a Worker POSTing each job to the same agent), in the same run.
 *
 * 1. Floor: BENCH_BURST runs POSTed straight to the agent, BENCH_WORKERS at a time, no scheduler.
 *    It runs first, so the agent is as warm for one side as for the other.
 * 2. Fire lag: BENCH_LAG schedules (default 1,000) due over ~2 s; lag = when the agent's
 *    `/api/v1/scheduled` received the run − its due time. Median and p99.
 * 3. Burst: BENCH_BURST schedules (default 10,000) due at the same moment; time from that moment
 *    until the agent has received them all, and the CPU each process spent on it per run: this
 *    one (firing and dispatching, or BullMQ's promoting and working), Redis (INFO cpu) and the
 *    agent (/proc, Linux).
 *
 * The agent runs in a process of its own (as deployed), registered in discovery on the same Redis;
 * the scheduler (or BullMQ's Queue and Worker) runs in this one. Both sides dispatch with the same
 * concurrency (BENCH_WORKERS, default 20) over HTTP keep-alive to that agent.
 *
 *   npm run bench:scheduling     BENCH_LAG=1000 BENCH_BURST=10000 BENCH_WORKERS=20 (BENCH_ONLY=manifold|bullmq: one side)
 *                                BENCH_PROFILE=<folder>: each side's burst profiled there (CPU profile, Redis commands and bytes, arrival quantiles)
 *                                AGENT_PROF=<folder>: the agent process's whole run profiled there (node --cpu-prof)
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { Session } from "node:inspector/promises";
import { Queue, Worker } from "bullmq";
import { createScheduleStore, serveScheduler } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/support/redis.js";
import { scheduleRecord } from "../../test/support/schedules.js";

const LAG = Number(process.env["BENCH_LAG"] ?? 1_000);
const BURST = Number(process.env["BENCH_BURST"] ?? 10_000);
const WORKERS = Number(process.env["BENCH_WORKERS"] ?? 20);
/** A folder: each side's burst is profiled (this process's CPU profile, Redis commands, arrival quantiles) there. */
const PROFILE = process.env["BENCH_PROFILE"];

const server = await startRedisServer();
const NAMESPACE = `bench${randomBytes(3).toString("hex")}`;
const env = { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: NAMESPACE };

/**
 * The agent both sides deliver to, in its own process. It keeps when each run arrived and says so
 * over IPC only when asked (agent.ts): nothing per run reaches this process, whose CPU is the
 * scheduler's (or BullMQ's) while a phase is measured.
 */
const agentProcess = fork(new URL("./agent.ts", import.meta.url).pathname, [], {
  execArgv: [...process.execArgv, ...(process.env["AGENT_PROF"] ? ["--cpu-prof", `--cpu-prof-dir=${process.env["AGENT_PROF"]}`] : [])],
  env: { ...process.env, ...env },
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
interface FromAgent {
  readonly listening?: string;
  readonly received?: true;
  readonly times?: readonly (number | null)[];
}
/** The agent's next message carrying `key`. */
function fromAgent<K extends keyof FromAgent>(key: K): Promise<NonNullable<FromAgent[K]>> {
  return new Promise((resolve) => {
    const listener = (message: FromAgent): void => {
      if (message[key] === undefined) return;
      agentProcess.off("message", listener);
      resolve(message[key]!);
    };
    agentProcess.on("message", listener);
  });
}
const agentUrl = await fromAgent("listening");

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

/** One numeric field of an INFO section's text (NaN when absent). */
function infoField(info: string, name: string): number {
  return Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? Number.NaN);
}

/** Bytes Redis has read from and written to clients so far (INFO stats). */
function redisBytes(): { readonly in: number; readonly out: number } {
  const info = server.cli("INFO", "stats");
  return { in: infoField(info, "total_net_input_bytes"), out: infoField(info, "total_net_output_bytes") };
}

/** CPU seconds (user + sys) Redis has used so far (INFO cpu). */
function redisCpuSeconds(): number {
  const info = server.cli("INFO", "cpu");
  return infoField(info, "used_cpu_user") + infoField(info, "used_cpu_sys");
}

/** Redis commands by name so far (INFO commandstats: script calls and the commands they run). */
function redisCalls(): Map<string, number> {
  const calls = new Map<string, number>();
  for (const [, name, n] of server.cli("INFO", "commandstats").matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(name!, Number(n));
  return calls;
}

/** CPU seconds (user + sys) the agent's process has used so far (Linux /proc; NaN elsewhere). */
function agentCpuSeconds(): number {
  try {
    const fields = readFileSync(`/proc/${agentProcess.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Tells the agent which runs to wait for (before they are due: the message is large); resolves once all have arrived. */
function expectRuns(ids: readonly string[], ms: number): Promise<void> {
  const arrived = fromAgent("received");
  agentProcess.send({ expect: ids });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not every one of ${ids.length} runs was received within ${ms} ms`)), ms);
  });
  return Promise.race([arrived.then(() => undefined), late]).finally(() => clearTimeout(timer));
}

/** When the agent received each of `ids` (epoch ms). */
async function receivedAt(ids: readonly string[]): Promise<number[]> {
  const answer = fromAgent("times");
  agentProcess.send({ times: ids });
  const times = await answer;
  return times.map((at, i) => {
    if (at === null) throw new Error(`run ${ids[i]} was never received`);
    return at;
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
// 1. The floor: BURST runs POSTed straight to the agent, WORKERS at a time, no scheduler. First, so
// the agent (and this process's HTTP client) is as warm for one side as for the other: run last, it
// left the side measured second an agent already warmed by the first side's burst.
const floorStarted = Date.now();
const floorAgentCpu = agentCpuSeconds();
const floorCpu = process.cpuUsage();
let next = 0;
await Promise.all(
  Array.from({ length: WORKERS }, async () => {
    while (next < BURST) await post({ schedule_id: "floor", task_id: `floor-${next++}`, instruction: "bench", input: {} });
  }),
);
const floorMs = Date.now() - floorStarted;
const floorUsed = process.cpuUsage(floorCpu);
const floorClientUs = (floorUsed.user + floorUsed.system) / BURST;
const floorAgentUs = ((agentCpuSeconds() - floorAgentCpu) * 1e6) / BURST;

const results: Record<string, { median: number; p99: number; burstMs: number; cpuUs: number; redisUs: number; agentUs: number }> = {};
for (const make of [manifold, bullmq].filter((side) => (process.env["BENCH_ONLY"] ?? side.name) === side.name)) {
  const side = await make();
  // 2. Fire lag.
  const start = Date.now() + 1_500;
  const lagItems = Array.from({ length: LAG }, (_, i) => ({ key: `lag-${side.name}-${i}`, dueMs: start + Math.floor((i * 2000) / LAG) }));
  await side.schedule(lagItems);
  const lagIds = lagItems.map((item) => side.taskId(item.key, item.dueMs));
  await expectRuns(lagIds, 60_000);
  const lagTimes = await receivedAt(lagIds);
  const lags = lagItems.map((item, i) => lagTimes[i]! - item.dueMs);
  // 3. Burst.
  const at = Date.now() + 3_000;
  const burstItems = Array.from({ length: BURST }, (_, i) => ({ key: `burst-${side.name}-${i}`, dueMs: at }));
  await side.schedule(burstItems);
  const burstIds = burstItems.map((item) => side.taskId(item.key, item.dueMs));
  const arrived = expectRuns(burstIds, 120_000);
  // Read before the due moment (redis-cli blocks this process for a few ms); Redis and the agent are idle until then.
  const redisBefore = redisCpuSeconds();
  const agentBefore = agentCpuSeconds();
  const callsBefore = PROFILE === undefined ? undefined : redisCalls();
  const bytesBefore = PROFILE === undefined ? undefined : redisBytes();
  const profiler = PROFILE === undefined ? undefined : new Session();
  if (profiler !== undefined) {
    profiler.connect();
    await profiler.post("Profiler.enable");
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
  // This process's CPU from the due moment until all arrived: firing and dispatching (manifold) or
  // promoting and working (BullMQ), per run. The agent and Redis run elsewhere.
  const cpu = process.cpuUsage();
  await profiler?.post("Profiler.start");
  await arrived;
  const used = process.cpuUsage(cpu);
  const agentUs = ((agentCpuSeconds() - agentBefore) * 1e6) / BURST;
  const redisUs = ((redisCpuSeconds() - redisBefore) * 1e6) / BURST;
  if (profiler !== undefined) {
    const { profile } = await profiler.post("Profiler.stop");
    writeFileSync(`${PROFILE}/${side.name}-burst.cpuprofile`, JSON.stringify(profile));
    profiler.disconnect();
    const calls = [...redisCalls()].map(([name, n]) => [name, n - (callsBefore!.get(name) ?? 0)] as const).filter(([, n]) => n > 0);
    const bytesAfter = redisBytes();
    console.log(
      `${side.name} burst, bytes to Redis per run ${((bytesAfter.in - bytesBefore!.in) / BURST).toFixed(0)}, from Redis ${((bytesAfter.out - bytesBefore!.out) / BURST).toFixed(0)}`,
    );
    console.log(`${side.name} burst, Redis commands: ${calls.map(([name, n]) => `${name} ${n}`).join(", ")}`);
    const times = (await receivedAt(burstIds)).map((ms) => ms - at);
    console.log(`${side.name} burst, received after (ms): ${[0, 10, 25, 50, 75, 90, 100].map((q) => `${q}%: ${percentile(times, q)}`).join(", ")}`);
  }
  const last = Math.max(...(await receivedAt(burstIds)));
  results[side.name] = {
    median: percentile(lags, 50),
    p99: percentile(lags, 99),
    burstMs: last - at,
    cpuUs: (used.user + used.system) / BURST,
    redisUs,
    agentUs,
  };
  await side.stop();
}

console.log(
  `${"system".padEnd(10)}${"lag median ms".padStart(15)}${"lag p99 ms".padStart(12)}${`${BURST} due at once → all received, ms`.padStart(40)}${"CPU µs/run".padStart(12)}${"Redis µs/run".padStart(14)}${"agent µs/run".padStart(14)}`,
);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(10)}${String(r.median).padStart(15)}${String(r.p99).padStart(12)}${String(r.burstMs).padStart(40)}${r.cpuUs.toFixed(0).padStart(12)}${r.redisUs.toFixed(0).padStart(14)}${r.agentUs.toFixed(0).padStart(14)}`,
  );
}
const m = results["manifold"];
const b = results["bullmq"];
if (m !== undefined && b !== undefined) {
  console.log(
    `\nratios (bullmq / manifold): lag p99 ${(b.p99 / Math.max(1, m.p99)).toFixed(2)}, burst ${(b.burstMs / Math.max(1, m.burstMs)).toFixed(2)}, CPU per run ${(b.cpuUs / m.cpuUs).toFixed(2)}`,
  );
}
console.log(
  `floor: the same ${BURST} runs POSTed straight to the agent, ${WORKERS} at a time, no scheduler: ${floorMs} ms (CPU ${floorClientUs.toFixed(0)} µs/run here, agent ${floorAgentUs.toFixed(0)} µs/run)`,
);
console.log("aim: p99 lag ≤ 250 ms; 10,000 dispatched ≤ 2 s");
http.destroy();
agentProcess.disconnect();
agentProcess.kill("SIGTERM");
await new Promise((resolve) => agentProcess.once("exit", resolve));
await server.close();
