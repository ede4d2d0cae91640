/**
 * Where a discovery lookup's time goes with 1,000 registered components (issue 31: find the p99's
 * source before changing anything). For each sequential `byCapability` lookup on the Redis adapter
 * it records the wall time, this process's CPU time (user + system) and any GC pause that overlapped
 * it; redis-server's SLOWLOG (threshold 0) gives each script's time inside Redis. Beside it, in the
 * same run: the transport's floor (ioredis PING, and an EVAL answering the same 61 items without
 * touching a key), what a catalog refresh costs (listAll of 1,000, first and unchanged), JSON parse
 * and HMAC verification of 1,000 records, and the default stack (catalog cache, and with a key).
 *
 *   npx tsx --conditions=source bench/discovery/breakdown.ts      BENCH_LOOKUPS=2000
 */
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { PerformanceObserver, performance } from "node:perf_hooks";
import type { Redis } from "ioredis";
import { createRedisRegistry, createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/support/redis.js";
import { catalog } from "./catalog.js";

const LOOKUPS = Number(process.env["BENCH_LOOKUPS"] ?? 2_000);
const WARMUP = 200;
const KEY = "k".repeat(64);

interface Sample {
  readonly start: number;
  readonly wall: number;
  /** This process's CPU over the sample, every thread (JIT compilers, GC helpers, libuv). */
  readonly cpu: number;
  /** The main thread's time on a CPU, and waiting for one in the run queue (/proc schedstat, ns precise). */
  readonly mainRun: number;
  readonly mainWait: number;
  /** redis-server's main thread waiting for a CPU. */
  readonly redisWait: number;
}

/** `[on-CPU ms, run-queue wait ms]` of a thread, from its schedstat line. */
function schedstat(path: string): [number, number] {
  const [run, wait] = readFileSync(path, "utf8").split(" ");
  return [Number(run) / 1e6, Number(wait) / 1e6];
}

let redisStat = "/proc/self/schedstat";

const gcPauses: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, duration: e.duration });
}).observe({ entryTypes: ["gc"] });

async function sample(run: () => Promise<unknown>, count = LOOKUPS): Promise<Sample[]> {
  for (let i = 0; i < Math.min(WARMUP, count); i += 1) await run();
  const out: Sample[] = [];
  for (let i = 0; i < count; i += 1) {
    const [main0, redis0] = [schedstat("/proc/thread-self/schedstat"), schedstat(redisStat)];
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    await run();
    const wall = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    const [main1, redis1] = [schedstat("/proc/thread-self/schedstat"), schedstat(redisStat)];
    out.push({
      start,
      wall,
      cpu: (cpu.user + cpu.system) / 1000,
      mainRun: main1[0] - main0[0],
      mainWait: main1[1] - main0[1],
      redisWait: redis1[1] - redis0[1],
    });
  }
  return out;
}

const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const f3 = (n: number): string => n.toFixed(3).padStart(8);

function summarise(label: string, samples: readonly Sample[]): void {
  const walls = samples.map((s) => s.wall).sort((a, b) => a - b);
  const p99 = pct(walls, 0.99);
  const slow = samples.filter((s) => s.wall >= p99);
  const gcIn = (s: Sample) => gcPauses.filter((g) => g.start < s.start + s.wall && g.start + g.duration > s.start);
  const slowGc = slow.filter((s) => gcIn(s).length > 0).length;
  const allGc = samples.filter((s) => gcIn(s).length > 0).length;
  const mean = (pick: (s: Sample) => number) => (slow.reduce((sum, s) => sum + pick(s), 0) / slow.length).toFixed(2);
  const early = slow.filter((s) => s.start < samples[Math.floor(samples.length / 10)]!.start).length;
  const all = (pick: (s: Sample) => number) => (samples.reduce((sum, s) => sum + pick(s), 0) / samples.length).toFixed(3);
  console.log(
    `${label.padEnd(36)} median ${f3(pct(walls, 0.5))}  p90 ${f3(pct(walls, 0.9))}  p99 ${f3(p99)}  max ${f3(walls.at(-1)!)} ms; mean main-thread CPU ${all((s) => s.mainRun)} ms`,
  );
  console.log(
    `${"".padEnd(36)} slowest 1 % (${slow.length}, ${early} in the first tenth), mean ms: wall ${mean((s) => s.wall)}, main thread on CPU ${mean((s) => s.mainRun)}, ` +
      `main waiting for a CPU ${mean((s) => s.mainWait)}, other threads' CPU ${mean((s) => Math.max(0, s.cpu - s.mainRun))}, redis waiting for a CPU ${mean((s) => s.redisWait)}; ` +
      `${slowGc} overlap a GC (GC in ${allGc}/${samples.length} samples)`,
  );
}

async function slowlog(client: Redis, label: string): Promise<void> {
  // One SLOWLOG entry: [id, unix time, duration µs, argv, …].
  // Redis 7 also logs the commands a script runs: only the top-level call is kept.
  const entries = (await client.call("SLOWLOG", "GET", "100000")) as [number, number, number, string[]][];
  const top = entries.filter((e) => /^(ping|eval|evalsha)$/i.test(String(e[3][0])));
  const durations = top.map((e) => Number(e[2])).sort((a, b) => a - b);
  if (durations.length === 0) return void console.log(`${label}: no slowlog entries`);
  const ms = (us: number) => (us / 1000).toFixed(3);
  console.log(
    `${label.padEnd(36)} inside redis: ${durations.length} calls, median ${ms(pct(durations, 0.5))}  p99 ${ms(pct(durations, 0.99))}  max ${ms(durations.at(-1)!)} ms`,
  );
  await client.call("SLOWLOG", "RESET");
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

function timeOnce(label: string, run: () => void, repeat = 20): void {
  const times: number[] = [];
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(36)} median ${f3(pct(times, 0.5))} ms (of ${repeat})`);
}

async function timeAsync(label: string, run: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await run();
  console.log(`${label.padEnd(36)} ${f3(performance.now() - start)} ms`);
}

const server = await startRedisServer();
const store = createStore({ env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "bench" }, log: () => undefined }) as RedisStore;
try {
  const redis = createRedisRegistry(store, { connectWaitMs: 5_000 });
  const components = catalog();
  for (let i = 0; i < components.length; i += 100) await Promise.all(components.slice(i, i + 100).map((c) => redis.register(c, { ttlMs: 600_000 })));
  const client = store.client as Redis;
  redisStat = `/proc/${server.cli("INFO", "server").match(/process_id:(\d+)/)![1]}/schedstat`;
  console.log(
    `\n1,000 components, ${LOOKUPS} sequential lookups per row, node ${process.version}, load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}\n`,
  );

  server.cli("CONFIG", "SET", "slowlog-log-slower-than", "0");
  server.cli("CONFIG", "SET", "slowlog-max-len", "100000");
  const reply61 = Array.from({ length: 61 }, (_, i) => `svc-1-0000${i}`);
  server.cli("SLOWLOG", "RESET");
  summarise("floor: ioredis PING", await sample(() => client.ping()));
  await slowlog(client, "floor: ioredis PING");
  summarise("floor: EVAL returning 61 items", await sample(() => client.eval("return ARGV", 0, ...reply61)));
  await slowlog(client, "floor: EVAL returning 61 items");
  summarise("redis adapter: byCapability(1)", await sample(() => redis.byCapability("cap_31")));
  await slowlog(client, "redis adapter: byCapability(1)");
  server.cli("CONFIG", "SET", "slowlog-log-slower-than", "10000");

  // The default stack: the catalog cache (1 s fresh), and with a key (every record signed).
  const cached = createRegistry({ store, key: false });
  summarise("createRegistry: byName (cache)", await sample(() => cached.byName("svc-31")));
  const keyed = createRegistry({ store: createStore({ env: { REDIS_URL: server.url, MANIFOLD_REDIS_NAMESPACE: "keyed" }, log: () => undefined }), key: KEY });
  for (let i = 0; i < components.length; i += 100) await Promise.all(components.slice(i, i + 100).map((c) => keyed.register(c, { ttlMs: 600_000 })));
  summarise("createRegistry + key: byName", await sample(() => keyed.byName("svc-31")));

  const fresh = createRedisRegistry(store);
  await timeAsync("listAll 1,000, first (parse all)", () => fresh.listAll());
  await timeAsync("listAll 1,000, unchanged", () => fresh.listAll());
  const json = components.map((c) => JSON.stringify({ ...c, ttl_ms: 600_000, heartbeat_ms: 200_000 }));
  timeOnce("JSON.parse of 1,000 records", () => json.forEach((j) => JSON.parse(j)));
  const parsed = json.map((j) => JSON.parse(j) as unknown);
  timeOnce("HMAC (canonical JSON) of 1,000", () => parsed.forEach((p) => createHmac("sha256", KEY).update(canonical(p)).digest()));
  await (keyed as Registry).close();
  await fresh.close();
  await cached.close();
} finally {
  await store.close();
  await server.close();
}
