/**
 * Memory's cost (issue 29): with 10,000 facts for one user and 100,000 episodes in one domain, what
 * recall adds to a natural request outside the model, and how many prompt bytes, against the same
 * request without memory (the named alternative), in one run on one machine. On the embedded store,
 * and on Redis (`REDIS_URL`, else a local redis-server started for the run; left out, with a note,
 * when neither is there).
 *
 * (a) Recall latency: each context source's `gather` for the bench's request (user memory's recall:
 *     the user's revision and summary, the held facts ranked by the retriever; episodic memory's
 *     read: the digest, the entity's episodes, its knowledge), median and p99 over BENCH_RUNS calls
 *     after BENCH_WARMUP, and the first (cold) call; then the whole request's own time (outside the
 *     model and tool calls) with memory and without, and their ratio.
 * (b) Prompt bytes: the planning and synthesis prompts with memory and without, and whether what
 *     memory adds stays within the sources' budgets (each one's budget and its section's framing).
 * Exits 1 when an aim is missed.
 *
 * Also the user's recall right after one of their facts changed (an extraction wrote): it reads the
 * user's facts again and re-indexes what changed.
 *
 *   npm run bench:memory        BENCH_RUNS=300 BENCH_WARMUP=30 BENCH_FACTS=10000 BENCH_EPISODES=100000 BENCH_BACKENDS=embedded,redis
 */
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/support/redis.js";
import { serveScaleTools } from "../orchestration/natural-scale-tools.js";
import { startMemoryBench, type MemoryBench } from "./harness.js";

const RUNS = Number(process.env["BENCH_RUNS"] ?? 300);
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 30);
const FACTS = Number(process.env["BENCH_FACTS"] ?? 10_000);
const EPISODES = Number(process.env["BENCH_EPISODES"] ?? 100_000);
const BACKENDS = (process.env["BENCH_BACKENDS"] ?? "embedded,redis").split(",");
/** Recalls timed right after one of the user's facts changed (each reads the user's facts again). */
const CHANGES = 20;
const AIM_MS = 5;

interface Latency {
  readonly first: number;
  readonly median: number;
  readonly p99: number;
  /** Median of the recalls right after a fact changed (user memory only). */
  readonly changed?: number;
}

interface Figures {
  readonly backend: string;
  readonly fillMs: number;
  readonly recall: Readonly<Record<string, Latency>>;
  readonly own: { readonly with: number; readonly without: number };
  readonly bytes: { readonly with: Readonly<Record<string, number>>; readonly without: Readonly<Record<string, number>> };
  readonly budget: number;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function latencies(bench: MemoryBench): Promise<Record<string, Latency>> {
  const out: Record<string, Latency> = {};
  for (const source of bench.sources) {
    const first = (await bench.gather(source)).ms;
    for (let i = 0; i < WARMUP; i += 1) await bench.gather(source);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) times.push((await bench.gather(source)).ms);
    out[source.name] = { first, median: quantile(times, 0.5), p99: quantile(times, 0.99) };
  }
  const changed: number[] = [];
  const user = bench.sources.find((s) => s.name === "user_memory")!;
  for (let i = 0; i < CHANGES; i += 1) {
    await bench.changeFact(i);
    changed.push((await bench.gather(user)).ms);
  }
  out["user_memory"] = { ...out["user_memory"]!, changed: quantile(changed, 0.5) };
  return out;
}

/** Requests with and without memory, interleaved so both see the same machine. */
async function requests(bench: MemoryBench): Promise<Pick<Figures, "own" | "bytes">> {
  for (let i = 0; i < WARMUP; i += 1) await Promise.all([bench.request(true), bench.request(false)]);
  const own = { with: [] as number[], without: [] as number[] };
  let last = { with: await bench.request(true), without: await bench.request(false) };
  for (let i = 0; i < RUNS; i += 1) {
    last = { with: await bench.request(true), without: await bench.request(false) };
    own.with.push(last.with.ownMs);
    own.without.push(last.without.ownMs);
  }
  return { own: { with: quantile(own.with, 0.5), without: quantile(own.without, 0.5) }, bytes: { with: last.with.bytes, without: last.without.bytes } };
}

async function measure(backend: string, store: Store, tools: Awaited<ReturnType<typeof serveScaleTools>>): Promise<Figures> {
  const started = performance.now();
  const bench = await startMemoryBench({ store, facts: FACTS, episodes: EPISODES }, tools);
  const fillMs = performance.now() - started;
  process.stderr.write(`${backend}: ${FACTS} facts and ${EPISODES} episodes written in ${(fillMs / 1000).toFixed(1)} s\n`);
  try {
    const recall = await latencies(bench);
    return { backend, fillMs, recall, ...(await requests(bench)), budget: await bench.budgetBytes() };
  } finally {
    await bench.close();
  }
}

const ms = (value: number): string => value.toFixed(3);
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

function print(rows: readonly Figures[]): void {
  console.log(`\nnode ${process.version}; ${FACTS} facts for one user, ${EPISODES} episodes in one domain; median and p99 of ${RUNS} after ${WARMUP}\n`);
  console.log("| store | source | recall median ms | p99 ms | first (cold) ms | after a fact changed (median of 20) ms |\n|---|---|---|---|---|---|");
  for (const r of rows)
    for (const [name, l] of Object.entries(r.recall))
      console.log(`| ${r.backend} | ${name} | ${ms(l.median)} | ${ms(l.p99)} | ${ms(l.first)} | ${l.changed === undefined ? "-" : ms(l.changed)} |`);
  console.log(
    "\n| store | own ms without / with memory (ratio) | plan prompt bytes without / with (added) | synthesis bytes without / with | sources' budget bytes |",
  );
  console.log("|---|---|---|---|---|");
  for (const r of rows) {
    const [plan0, plan1] = [r.bytes.without["routing_plan"] ?? 0, r.bytes.with["routing_plan"] ?? 0];
    const [syn0, syn1] = [r.bytes.without["synthesis"] ?? 0, r.bytes.with["synthesis"] ?? 0];
    console.log(
      `| ${r.backend} | ${ms(r.own.without)} / ${ms(r.own.with)} (${ratio(r.own.with, r.own.without)}) | ${plan0} / ${plan1} (+${plan1 - plan0}, ${ratio(plan1, plan0)}) | ${syn0} / ${syn1} (+${syn1 - syn0}, ${ratio(syn1, syn0)}) | ${r.budget} |`,
    );
  }
}

function aims(rows: readonly Figures[]): [string, boolean, string][] {
  return rows.flatMap((r) => {
    const added = (r.bytes.with["routing_plan"] ?? 0) - (r.bytes.without["routing_plan"] ?? 0);
    return [
      ...Object.entries(r.recall).map(([name, l]): [string, boolean, string] => [
        `${r.backend}: ${name} recall ≤ ${AIM_MS} ms outside the model (median and p99)`,
        l.median <= AIM_MS && l.p99 <= AIM_MS,
        `${ms(l.median)} / ${ms(l.p99)} ms`,
      ]),
      [`${r.backend}: the planning prompt grows by at most the sources' budgets`, added > 0 && added <= r.budget, `+${added} of ${r.budget} bytes`],
    ];
  });
}

const tools = await serveScaleTools();
const rows: Figures[] = [];
const notes: string[] = [];
try {
  if (BACKENDS.includes("embedded")) rows.push(await measure("embedded", createStore({ env: {}, log: () => undefined }), tools));
  let redis: Awaited<ReturnType<typeof startRedisServer>> | undefined;
  const url = !BACKENDS.includes("redis") ? undefined : (process.env["REDIS_URL"] ?? (redis = await startRedisServer().catch(() => undefined))?.url);
  if (url === undefined) notes.push("Redis: not asked for (BENCH_BACKENDS), or neither REDIS_URL nor a local redis-server; not measured");
  else {
    const store = createStore({ env: { REDIS_URL: url, MANIFOLD_REDIS_NAMESPACE: `bench-memory-${process.pid}` }, log: () => undefined });
    try {
      rows.push(await measure("redis", store, tools));
    } finally {
      await store.close();
      await redis?.close();
    }
  }
} finally {
  await tools.close();
}
print(rows);
for (const note of notes) console.log(`\n${note}`);
console.log("\naims:");
const checked = aims(rows);
for (const [aim, holds, figure] of checked) console.log(`  ${holds ? "holds " : "MISSED"}  ${aim}: ${figure}`);
process.exitCode = checked.every(([, holds]) => holds) ? 0 : 1;
