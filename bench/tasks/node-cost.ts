/**
 * What this process spends per task on the Redis task path (submit, dequeue, run, finish): bytes the
 * JS heap allocated per task and CPU µs per task, for a burst like bench:tasks' (every submit at once,
 * no-op handlers, the real worker pool). Bytes allocated do not swell when the machine is busy, so a
 * change to the backend or the pool can be judged on a shared box; CPU µs is shown beside it.
 *
 *   npx tsx --conditions=source bench/tasks/node-cost.ts     BENCH_TASKS=20000 BENCH_CONCURRENCY=50 BENCH_ROUNDS=3
 *
 * BENCH_CALLGRIND=<callgrind's --callgrind-out-file>: instructions per task as well (load-independent too, but slow), when run under
 * callgrind; each round zeroes the counters before its burst and dumps them after it (callgrind_control,
 * as bench/tasks/instructions.ts does for redis-server), all of this process's threads counted:
 *   BENCH_CALLGRIND=/tmp/cg.out BENCH_TASKS=5000 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
 *     node --import tsx --conditions=source bench/tasks/node-cost.ts
 * The first round still compiles code (JIT) the warm-up did not reach; compare the later ones.
 *
 * BENCH_HEAP_PROFILE=<file.heapprofile>: a sampling heap profile of the last round, garbage included
 * (what was allocated, not what stayed), to open in DevTools or summarise per function.
 *
 * Bytes allocated: the heap in use after the burst, less the heap in use before it, plus what every
 * garbage collection in between freed (v8.GCProfiler's before/after figures).
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { basename, dirname, join } from "node:path";
import { GCProfiler } from "node:v8";
import { createWorkerPool } from "../../runtime/tasks/worker-pool.js";
import { startRedisServer } from "../../test/support/redis.js";
import { openManifoldSide } from "./manifold-side.js";

const TASKS = Number(process.env["BENCH_TASKS"] ?? 20_000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 50);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const WARMUP = 2_000;
const RESULT = { ok: true };
const HEAP_PROFILE = process.env["BENCH_HEAP_PROFILE"];
const CALLGRIND = process.env["BENCH_CALLGRIND"];

/** callgrind_control on this process, run without blocking it (callgrind answers while the program runs). */
const callgrind = (...args: string[]): Promise<string> =>
  new Promise((resolve, reject) => execFile("callgrind_control", [...args, String(process.pid)], (error, stdout) => (error ? reject(error) : resolve(stdout))));

/** Dumps the counters and returns the dump's total instructions (its `summary:` line). */
async function instructions(): Promise<number> {
  await callgrind("-d");
  // callgrind_control does not name the dump; the newest file next to the output file is it.
  const file = CALLGRIND!;
  const dumps = readdirSync(dirname(file))
    .filter((f) => f.startsWith(basename(file)))
    .map((f) => join(dirname(file), f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return Number(/^summary:\s*(\d+)/m.exec(readFileSync(dumps[0]!, "utf8"))?.[1] ?? Number.NaN);
}

const server = await startRedisServer();
let completed = 0;
let allDone: () => void = () => undefined;
let target = 0;
// Counts stored completions, as bench:tasks does.
const side = openManifoldSide(server.url, () => {
  if ((completed += 1) === target) allDone();
});
const pool = createWorkerPool({ backend: side.workers, handlers: { noop: async () => RESULT }, workerCount: CONCURRENCY, env: {} });

async function burst(count: number): Promise<void> {
  completed = 0;
  target = count;
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const submits: Promise<unknown>[] = [];
  for (let i = 0; i < count; i += 1) {
    submits.push(side.submit(randomUUID()));
  }
  await Promise.all(submits);
  await done;
}

try {
  await burst(WARMUP);
  console.log(`${TASKS.toLocaleString("en-US")} tasks per burst, concurrency ${CONCURRENCY}; this process, per task`);
  for (let round = 1; round <= ROUNDS; round += 1) {
    const session = HEAP_PROFILE !== undefined && round === ROUNDS ? new Session() : undefined;
    if (session !== undefined) {
      session.connect();
      await session.post("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    const profiler = new GCProfiler();
    profiler.start();
    if (CALLGRIND !== undefined) await callgrind("-z");
    const cpu = process.cpuUsage();
    const before = process.memoryUsage().heapUsed;
    await burst(TASKS);
    const counted = CALLGRIND !== undefined ? `  ${Math.round((await instructions()) / TASKS).toLocaleString("en-US")} instructions/task` : "";
    const after = process.memoryUsage().heapUsed;
    const used = process.cpuUsage(cpu);
    const stats = profiler.stop()?.statistics ?? [];
    if (session !== undefined) {
      const { profile } = await session.post("HeapProfiler.stopSampling");
      writeFileSync(HEAP_PROFILE!, JSON.stringify(profile));
      session.disconnect();
    }
    let freed = 0;
    for (const gc of stats) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    const bytes = (after - before + freed) / TASKS;
    const us = (used.user + used.system) / TASKS;
    console.log(
      `  round ${round}: ${Math.round(bytes).toLocaleString("en-US").padStart(7)} bytes/task  ${us.toFixed(1).padStart(6)} CPU µs/task  ${stats.length} GCs${counted}`,
    );
  }
  console.log(
    `load average (1, 5, 15 min): ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await pool.stop(5_000);
  await side.close();
  await server.close();
}
