/**
 * Task throughput end to end on one Redis: this runtime (the Redis task backend and the real worker
 * pool) against BullMQ (a Queue and a Worker), in the same run, on a redis-server the bench starts.
 * Each run submits every task at once (as a burst of API requests would), runs no-op handlers with
 * concurrency 50, and ends when every task is stored as completed. Then a paced run (a steady rate
 * well under capacity) gives the latency a task sees when the queue is not backed up.
 *
 * Figures: tasks/s (first submit → last completion), submit → completed latency (median, p99), and
 * Redis CPU per task (INFO cpu, user + sys, delta over this system's run alone / tasks; the kernel's
 * part shown beside it), and the CPU this process (submitter and workers) spent per task.
 *
 *   npm run bench:tasks       BENCH_TASKS=20000 BENCH_CONCURRENCY=50 BENCH_ROUNDS=3 BENCH_PACED_RATE=2000 BENCH_RAW=1
 *                             BENCH_SYSTEMS=manifold,bullmq
 *
 * BENCH_RAW=1 adds a row for a bare dequeue/finishMany loop on the same backend (no pool), to show
 * what the pool itself costs. BENCH_COMMANDSTATS=1 prints, after each burst run, where Redis spent its
 * time: per command (INFO commandstats, delta over the run), calls and µs per task; commands run by a
 * script are counted both on their own line and inside the script's EVALSHA.
 */
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { Queue, Worker } from "bullmq";
import { createWorkerPool } from "../../runtime/tasks/worker-pool.js";
import { startRedisServer, type RedisServer } from "../../test/support/redis.js";
import { openManifoldSide } from "./manifold-side.js";

const TASKS = Number(process.env["BENCH_TASKS"] ?? 20_000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 50);
const PACED_RATE = Number(process.env["BENCH_PACED_RATE"] ?? 2_000);
const PACED_TASKS = Math.min(TASKS, PACED_RATE * 2);
const WARMUP = 2_000;
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const RAW = process.env["BENCH_RAW"] === "1";
/** A comma-separated subset of `manifold,bullmq` (for profiling one side). @defaultValue both */
const ONLY = (process.env["BENCH_SYSTEMS"] ?? "manifold,bullmq").split(",");
const COMMANDSTATS = process.env["BENCH_COMMANDSTATS"] === "1";
const RESULT = { ok: true };

interface Figures {
  readonly tasks: number;
  readonly perSecond: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly redisCpuUs: number;
  /** The kernel's part of redisCpuUs (socket reads and writes, epoll): it shrinks with larger batches per round trip. */
  readonly redisSysUs: number;
  /** This process (submitter and workers together), user + system. */
  readonly nodeCpuUs: number;
}

/** One system under test: start its workers, submit one task, stop. `completed` is called once per stored completion. */
interface System {
  readonly name: string;
  start(completed: (key: string) => void): Promise<{ submit(key: string): Promise<void>; stop(): Promise<void> }>;
}

/** redis-server's CPU (all its threads, getrusage, µs resolution): user + system, and system alone. */
function redisCpuSeconds(server: RedisServer): { total: number; sys: number } {
  const info = server.cli("INFO", "cpu");
  const read = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);
  return { total: read("used_cpu_user") + read("used_cpu_sys"), sys: read("used_cpu_sys") };
}

/** INFO commandstats as command → { calls, usec }. */
function commandStats(server: RedisServer): Map<string, { calls: number; usec: number }> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const match of server.cli("INFO", "commandstats").matchAll(/^cmdstat_(\S+?):calls=(\d+),usec=(\d+)/gm)) {
    out.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return out;
}

/** The delta between two commandstats, per task, busiest first. */
function printCommandStats(before: ReturnType<typeof commandStats>, after: ReturnType<typeof commandStats>, tasks: number): void {
  const rows = [...after]
    .map(([name, { calls, usec }]) => ({ name, calls: calls - (before.get(name)?.calls ?? 0), usec: usec - (before.get(name)?.usec ?? 0) }))
    .filter((r) => r.calls > 0 && r.name !== "info" && r.name !== "flushall")
    .sort((a, b) => b.usec - a.usec);
  for (const r of rows) {
    console.log(
      `    ${r.name.padEnd(16)} ${fmt(r.calls / tasks, 3).padStart(9)} calls/task ${fmt(r.usec / tasks, 2).padStart(8)} µs/task ${fmt(r.usec / r.calls, 2).padStart(9)} µs/call`,
    );
  }
}

/** Each figure's median over the rounds, column by column. */
function medianOf(list: readonly Figures[]): Figures {
  const mid = (pick: (f: Figures) => number) =>
    percentile(
      [...list.map(pick)].sort((a, b) => a - b),
      0.5,
    );
  return {
    tasks: list[0]!.tasks,
    perSecond: mid((f) => f.perSecond),
    medianMs: mid((f) => f.medianMs),
    p99Ms: mid((f) => f.p99Ms),
    redisCpuUs: mid((f) => f.redisCpuUs),
    redisSysUs: mid((f) => f.redisSysUs),
    nodeCpuUs: mid((f) => f.nodeCpuUs),
  };
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** `rate` 0: every submit at once; else that many per second, in steps of a millisecond or more. */
async function measure(server: RedisServer, system: System, count: number, rate = 0): Promise<Figures> {
  server.cli("FLUSHALL");
  const submitted = new Map<string, number>();
  const latencies: number[] = [];
  let last = 0;
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((resolve) => (resolveAll = resolve));
  const running = await system.start((key) => {
    const at = submitted.get(key);
    if (at === undefined) return;
    submitted.delete(key);
    last = performance.now();
    latencies.push(last - at);
    if (latencies.length === count) resolveAll();
  });
  const statsBefore = COMMANDSTATS ? commandStats(server) : undefined;
  const cpuBefore = redisCpuSeconds(server);
  const nodeBefore = process.cpuUsage();
  const first = performance.now();
  const submits: Promise<void>[] = [];
  for (let i = 0; i < count; i += 1) {
    if (rate > 0) {
      const due = first + (i * 1_000) / rate;
      const wait = due - performance.now();
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const key = randomUUID();
    submitted.set(key, performance.now());
    submits.push(running.submit(key));
  }
  await Promise.all(submits);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${system.name}: ${count - latencies.length} of ${count} tasks not completed in 120 s`)), 120_000).unref(),
  );
  await Promise.race([all, timeout]);
  const node = process.cpuUsage(nodeBefore);
  const cpuAfter = redisCpuSeconds(server);
  if (statsBefore !== undefined) printCommandStats(statsBefore, commandStats(server), count);
  await running.stop();
  latencies.sort((a, b) => a - b);
  return {
    tasks: count,
    perSecond: count / ((last - first) / 1_000),
    medianMs: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    redisCpuUs: ((cpuAfter.total - cpuBefore.total) * 1e6) / count,
    redisSysUs: ((cpuAfter.sys - cpuBefore.sys) * 1e6) / count,
    nodeCpuUs: (node.user + node.system) / count,
  };
}

function manifold(url: string): System {
  return {
    name: "manifold (worker pool)",
    start: async (completed) => {
      const side = openManifoldSide(url, completed);
      const pool = createWorkerPool({ backend: side.workers, handlers: { noop: async () => RESULT }, workerCount: CONCURRENCY, env: {} });
      return {
        submit: side.submit,
        stop: async () => {
          await pool.stop(5_000);
          await side.close();
        },
      };
    },
  };
}

/** The backend alone: one loop per process dequeuing up to `CONCURRENCY` and finishing them in one call. */
function manifoldRaw(url: string): System {
  return {
    name: "manifold (bare backend loop)",
    start: async (completed) => {
      const side = openManifoldSide(url, completed);
      const backend = side.workers;
      const stop = new AbortController();
      const loop = (async () => {
        while (!stop.signal.aborted) {
          const leases = await backend.dequeue({ count: CONCURRENCY, leaseMs: 30_000, blockMs: 200, signal: stop.signal });
          const results = await Promise.all(leases.map(async () => RESULT));
          if (leases.length > 0)
            await backend.finishMany(leases.map((l, i) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: results[i] })));
        }
      })();
      return {
        submit: side.submit,
        stop: async () => {
          stop.abort();
          await loop;
          await side.close();
        },
      };
    },
  };
}

function bullmq(port: number): System {
  const connection = { host: "127.0.0.1", port, maxRetriesPerRequest: null };
  return {
    name: "BullMQ 6 (Queue + Worker)",
    start: async (completed) => {
      const queue = new Queue("bench", { connection });
      const worker = new Worker("bench", async () => RESULT, { connection, concurrency: CONCURRENCY });
      worker.on("completed", (job) => completed((job.data as { key: string }).key));
      await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
      return {
        submit: async (key) => {
          await queue.add("noop", { key });
        },
        stop: async () => {
          await worker.close();
          await queue.close();
        },
      };
    },
  };
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function row(name: string, f: Figures): string {
  return `${name.padEnd(30)} ${fmt(f.perSecond).padStart(10)} ${fmt(f.medianMs, 1).padStart(10)} ${fmt(f.p99Ms, 1).padStart(10)} ${fmt(f.redisCpuUs, 1).padStart(14)} ${fmt(f.redisSysUs, 1).padStart(10)} ${fmt(f.nodeCpuUs, 1).padStart(13)}`;
}

const server = await startRedisServer();
try {
  const systems = [
    ...(ONLY.includes("manifold") ? [manifold(server.url), ...(RAW ? [manifoldRaw(server.url)] : [])] : []),
    ...(ONLY.includes("bullmq") ? [bullmq(server.port)] : []),
  ];
  const version = server.cli("INFO", "server").match(/redis_version:(\S+)/)?.[1];
  console.log(`${TASKS.toLocaleString("en-US")} no-op tasks, concurrency ${CONCURRENCY}, one redis-server ${version} on loopback, node ${process.version}\n`);
  for (const system of systems) await measure(server, system, WARMUP);

  const header = `${"".padEnd(30)} ${"tasks/s".padStart(10)} ${"median ms".padStart(10)} ${"p99 ms".padStart(10)} ${"Redis µs/task".padStart(14)} ${"of it sys".padStart(10)} ${"node µs/task".padStart(13)}`;
  // Rounds interleave the systems, so a noisy neighbour on the machine hurts each about equally.
  const rounds = new Map<string, Figures[]>(systems.map((s) => [s.name, []]));
  for (let round = 1; round <= ROUNDS; round += 1) {
    console.log(`burst, round ${round} of ${ROUNDS}: all ${TASKS.toLocaleString("en-US")} submitted at once, until all completed`);
    console.log(header);
    for (const system of systems) {
      const figures = await measure(server, system, TASKS);
      rounds.get(system.name)!.push(figures);
      console.log(row(system.name, figures));
    }
  }
  const medians = new Map([...rounds].map(([name, list]) => [name, medianOf(list)]));
  if (ROUNDS > 1) {
    console.log(`\nburst, median of ${ROUNDS} rounds (each column on its own)`);
    console.log(header);
    for (const [name, figures] of medians) console.log(row(name, figures));
  }
  if (ONLY.includes("manifold") && ONLY.includes("bullmq")) {
    const ours = medians.get(systems[0]!.name)!;
    const theirs = medians.get(systems[systems.length - 1]!.name)!;
    console.log(
      `ratio (manifold / BullMQ): ${fmt(ours.perSecond / theirs.perSecond, 2)}× throughput, ${fmt(theirs.redisCpuUs / ours.redisCpuUs, 2)}× less Redis CPU and ${fmt(theirs.nodeCpuUs / ours.nodeCpuUs, 2)}× less client CPU per task, median latency ${fmt(ours.medianMs / theirs.medianMs, 2)}×`,
    );
    const throughputHolds = ours.perSecond / theirs.perSecond >= 4;
    const cpuHolds = ours.redisCpuUs <= 15;
    console.log(`aim: ≥ 4× BullMQ's throughput: ${throughputHolds ? "holds" : "missed"} (${fmt(ours.perSecond / theirs.perSecond, 2)}×)`);
    console.log(`aim: ≤ 15 µs of Redis CPU per task: ${cpuHolds ? "holds" : "missed"} (${fmt(ours.redisCpuUs, 1)} µs)`);
  }
  // The machine is shared: a figure means little without how busy it was.
  console.log(
    `load average (1, 5, 15 min): ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log("");

  console.log(`paced: ${PACED_TASKS.toLocaleString("en-US")} tasks at ${PACED_RATE.toLocaleString("en-US")}/s (latency when the queue is not backed up)`);
  console.log(header);
  for (const system of systems) console.log(row(system.name, await measure(server, system, PACED_TASKS, PACED_RATE)));
} finally {
  await server.close();
}
