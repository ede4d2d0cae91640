/**
 * Where the Redis task backend's Redis CPU goes, one phase at a time, on a redis-server the bench
 * starts: `create` (the batcher's script calls), `dequeue` and `finishMany` in batches of the pool's
 * size, each phase run alone over every task so INFO cpu and INFO commandstats (deltas) are its own.
 * No worker pool and no second system: this is the backend's own cost per task, with its round trips.
 *
 *   npx tsx --conditions=source bench/tasks/phases.ts     BENCH_TASKS=20000 BENCH_CONCURRENCY=50 BENCH_ROUNDS=3
 */
import { randomUUID } from "node:crypto";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { Lease } from "../../runtime/tasks/types.js";
import { startRedisServer, type RedisServer } from "../../test/support/redis.js";

const TASKS = Number(process.env["BENCH_TASKS"] ?? 20_000);
const BATCH = Number(process.env["BENCH_CONCURRENCY"] ?? 50);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);

interface Sample {
  readonly cpuUs: number;
  /** This process's CPU (user + system) when the sample was taken, before its redis-cli call for an end sample, after it for a start one. */
  readonly nodeUs: number;
  readonly stats: Map<string, { calls: number; usec: number }>;
}

function nodeNow(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** `end`: the sample closes a phase, so this process's CPU is read before the redis-cli call (whose spawn costs CPU), else after it. */
function sample(server: RedisServer, end = false): Sample {
  const nodeAtStart = process.cpuUsage();
  const info = server.cli("INFO", "all");
  const cpu = end ? nodeAtStart : process.cpuUsage();
  const read = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const match of info.matchAll(/^cmdstat_(\S+?):calls=(\d+),usec=(\d+)/gm)) stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  return { cpuUs: (read("used_cpu_user") + read("used_cpu_sys")) * 1e6, nodeUs: cpu.user + cpu.system, stats };
}

const fmt = (n: number, digits = 1) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** One line per phase: CPU per task, then the commands it ran (per task) with their share of the wall time Redis measured. */
function report(name: string, before: Sample, after: Sample): number {
  const perTask = (after.cpuUs - before.cpuUs) / TASKS;
  const commands = [...after.stats]
    .map(([cmd, { calls, usec }]) => ({ cmd, calls: calls - (before.stats.get(cmd)?.calls ?? 0), usec: usec - (before.stats.get(cmd)?.usec ?? 0) }))
    .filter((r) => r.calls > 0 && r.cmd !== "info")
    .sort((a, b) => b.usec - a.usec)
    .map((r) => `${r.cmd} ${fmt(r.calls / TASKS, 3)}×/${fmt(r.usec / TASKS, 2)} µs`);
  const nodePerTask = (after.nodeUs - before.nodeUs) / TASKS;
  console.log(`  ${name.padEnd(10)} ${fmt(perTask).padStart(6)} µs/task (node ${fmt(nodePerTask)})   ${commands.join(", ")}`);
  return perTask;
}

async function round(server: RedisServer, url: string): Promise<number[]> {
  server.cli("FLUSHALL");
  const store = createStore({ env: { REDIS_URL: url }, log: () => undefined }) as RedisStore;
  const backend = createRedisTaskBackend(store.client, { queue: "bench" });
  try {
    // Warm the script cache and the connection so the phases measure steady state.
    await backend.create({ task_id: randomUUID(), type: "noop", input: {}, timeout_ms: 60_000 });
    const warm = await backend.dequeue({ count: 1, leaseMs: 30_000, blockMs: 0 });
    await backend.finishMany(warm.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: true } })));

    const ids = Array.from({ length: TASKS }, () => randomUUID());
    let before = sample(server);
    await Promise.all(ids.map((key) => backend.create({ task_id: key, type: "noop", input: { key }, timeout_ms: 60_000 })));
    let after = sample(server, true);
    const create = report("create", before, after);

    const leases: Lease[][] = [];
    before = { ...after, nodeUs: nodeNow() };
    for (let taken = 0; taken < TASKS; ) {
      const batch = await backend.dequeue({ count: BATCH, leaseMs: 30_000, blockMs: 0 });
      if (batch.length === 0) throw new Error(`only ${taken} of ${TASKS} tasks dequeued`);
      leases.push(batch);
      taken += batch.length;
    }
    after = sample(server, true);
    const dequeue = report("dequeue", before, after);

    before = { ...after, nodeUs: nodeNow() };
    for (const batch of leases) {
      await backend.finishMany(batch.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: true } })));
    }
    after = sample(server, true);
    const finish = report("finish", before, after);
    return [create, dequeue, finish, create + dequeue + finish];
  } finally {
    await backend.close();
    await store.close();
  }
}

const server = await startRedisServer();
try {
  console.log(`${TASKS.toLocaleString("en-US")} tasks, batches of ${BATCH}; Redis CPU (INFO cpu) per task by phase, commands as calls×/wall µs per task`);
  const totals: number[][] = [];
  for (let r = 1; r <= ROUNDS; r += 1) {
    console.log(`round ${r}`);
    totals.push(await round(server, server.url));
  }
  const median = (i: number) => [...totals.map((t) => t[i]!)].sort((a, b) => a - b)[Math.floor(totals.length / 2)]!;
  console.log(`median: create ${fmt(median(0))}, dequeue ${fmt(median(1))}, finish ${fmt(median(2))}, total ${fmt(median(3))} µs of Redis CPU per task`);
} finally {
  await server.close();
}
