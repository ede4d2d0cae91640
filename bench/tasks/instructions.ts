/**
 * Instructions redis-server executes per task, phase by phase (create, dequeue, finish), counted by
 * valgrind's callgrind: unlike CPU time, the count does not swell when the machine is busy, so a change
 * to the scripts or the record layout can be judged on a shared box. The bench starts redis-server under
 * callgrind itself, zeroes the counters before a phase and dumps them after it (callgrind_control).
 *
 *   npx tsx --conditions=source bench/tasks/instructions.ts     BENCH_TASKS=2000 BENCH_CONCURRENCY=50 BENCH_KEEP=1
 *
 * Needs valgrind (callgrind_control, callgrind_annotate) on the PATH. Figures are per task; a phase includes its round trips'
 * protocol work, and the INFO-free phases measure nothing but the backend's own commands.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { Lease } from "../../runtime/tasks/types.js";
import { freePort } from "../../test/support/ports.js";
import { redisServerArgs } from "../../test/support/redis.js";

const TASKS = Number(process.env["BENCH_TASKS"] ?? 2_000);
const BATCH = Number(process.env["BENCH_CONCURRENCY"] ?? 50);

const dir = mkdtempSync(join(tmpdir(), "manifold-callgrind-"));
const port = await freePort();
const out = join(dir, "cg.out");
const child = spawn("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, "redis-server", ...redisServerArgs(port, dir)], { stdio: "ignore" });
const control = (...args: string[]) => spawnSync("callgrind_control", [...args, String(child.pid)], { encoding: "utf8" });

/**
 * Instructions counted since the last zeroing: dumps, reads the newest dump's summary, less what
 * serverCron ran in the meantime. The cron runs by the clock (10 times a second, a few thousand
 * instructions each), so under callgrind on a busy machine it took 2-3k "per task" more or less from
 * run to run; it does no work for the tasks.
 */
function instructions(): number {
  control("-d");
  const dumps = spawnSync("sh", ["-c", `ls -t ${out}*`], { encoding: "utf8" })
    .stdout.trim()
    .split("\n");
  const summary = /^summary:\s*(\d+)/m.exec(readFileSync(dumps[0]!, "utf8"));
  const annotated = spawnSync("callgrind_annotate", ["--inclusive=yes", "--threshold=100", dumps[0]!], { encoding: "utf8", maxBuffer: 64 << 20 });
  const cron = /^\s*([\d,]+)\s.*:serverCron\s/m.exec(annotated.stdout);
  return Number(summary?.[1] ?? NaN) - Number(cron?.[1]?.replaceAll(",", "") ?? 0);
}

const store = createStore({ env: { REDIS_URL: `redis://127.0.0.1:${port}` }, log: () => undefined }) as RedisStore;
try {
  for (let i = 0; i < 200 && store.client.status !== "ready"; i += 1) await new Promise((r) => setTimeout(r, 100));
  const backend = createRedisTaskBackend(store.client, { queue: "bench" });
  // Warm the script cache and the connection so the phases measure steady state.
  await backend.create({ task_id: randomUUID(), type: "noop", input: {}, timeout_ms: 60_000 });
  const warm = await backend.dequeue({ count: 1, leaseMs: 30_000, blockMs: 0 });
  await backend.finishMany(warm.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: true } })));

  const phase = async (name: string, run: () => Promise<void>): Promise<number> => {
    control("-z");
    await run();
    const perTask = instructions() / TASKS;
    console.log(`  ${name.padEnd(8)} ${Math.round(perTask).toLocaleString("en-US").padStart(8)} instructions/task`);
    return perTask;
  };
  console.log(`${TASKS.toLocaleString("en-US")} tasks, batches of ${BATCH}; redis-server instructions (callgrind) per task`);
  const ids = Array.from({ length: TASKS }, () => randomUUID());
  const leases: Lease[][] = [];
  const create = await phase("create", async () => {
    await Promise.all(ids.map((key) => backend.create({ task_id: key, type: "noop", input: { key }, timeout_ms: 60_000 })));
  });
  const dequeue = await phase("dequeue", async () => {
    for (let taken = 0; taken < TASKS; ) {
      const batch = await backend.dequeue({ count: BATCH, leaseMs: 30_000, blockMs: 0 });
      if (batch.length === 0) throw new Error(`only ${taken} of ${TASKS} tasks dequeued`);
      leases.push(batch);
      taken += batch.length;
    }
  });
  const finish = await phase("finish", async () => {
    for (const batch of leases) {
      await backend.finishMany(batch.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: true } })));
    }
  });
  console.log(
    `  total    ${Math.round(create + dequeue + finish)
      .toLocaleString("en-US")
      .padStart(8)} instructions/task`,
  );
  // As a worker pool runs: two batches in flight, each finished after the next is taken, so the lease
  // structures hold 50-100 tasks (not all of them, as above), the size they have in bench:tasks.
  await Promise.all(ids.map((key) => backend.create({ task_id: `${key}-2`, type: "noop", input: { key }, timeout_ms: 60_000 })));
  const cycle = await phase("dequeue + finish, 2 batches in flight", async () => {
    let previous: Lease[] = [];
    for (let taken = 0; taken < TASKS; ) {
      const batch = await backend.dequeue({ count: BATCH, leaseMs: 30_000, blockMs: 0 });
      if (batch.length === 0) throw new Error(`only ${taken} of ${TASKS} tasks dequeued`);
      taken += batch.length;
      await backend.finishMany(previous.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: true } })));
      previous = batch;
    }
    await backend.finishMany(previous.map((l) => ({ status: "completed", taskId: l.task.task_id, token: l.token, result: { ok: true } })));
  });
  console.log(
    `  create + cycle ${Math.round(create + cycle)
      .toLocaleString("en-US")
      .padStart(8)} instructions/task`,
  );
  await backend.close();
} finally {
  await store.close();
  child.kill("SIGKILL");
  // BENCH_KEEP=1 keeps the dumps (one per phase) for callgrind_annotate.
  if (process.env["BENCH_KEEP"] === "1") console.log(`dumps kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
