/**
 * Natural mode at catalog scale (issue 28): 10, 100, 1,000 and 10,000 capabilities registered on a
 * real Redis (components of five capabilities, natural-scale-catalog.ts), the same natural request
 * against each ("the weather in Lyon tomorrow": geo.geocode then weather.forecast, both served by a
 * tool process on loopback; the rest of the network is registered, never called). The model is the
 * runtime's provider (the `openai` client) against an instant scripted endpoint that answers the
 * `capability_selection` call with the two capabilities, the plan, and the synthesis.
 *
 * Per size: prompt bytes per model call (by kind), calls per request, the orchestration overhead
 * outside the model (wall time minus the time calls spent at the model; the two loopback tool calls
 * are in it), the time `natural.plan_check` takes, and the whole-catalog prompt today's planner would
 * send over the same catalog. Exits 1 when an aim is missed.
 *
 *   npm run bench:natural-scale        BENCH_RUNS=200 BENCH_WARMUP=20 BENCH_SIZES=10,100,1000,10000
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createRegistry } from "../../runtime/discovery/index.js";
import { promptBudgetBytes, readAdaptiveSettings } from "../../runtime/orchestration/natural/adaptive.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../../test/support/redis.js";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";
import { median, planCheckMs, promptBytesByKind, registerNetwork, startScaleRun, wholeCatalogPromptBytes } from "./natural-scale-run.js";

const RUNS = Number(process.env["BENCH_RUNS"] ?? 200);
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 20);
const SIZES = (process.env["BENCH_SIZES"] ?? "10,100,1000,10000").split(",").map(Number);
const ENV = {};

interface SizeFigures {
  readonly size: number;
  readonly components: number;
  readonly kinds: Record<string, number>;
  readonly calls: number;
  readonly overheadMs: number;
  readonly overheadMeanMs: number;
  /** Median of the request's own time: outside the model calls (as the client timed them) and the tool calls. */
  readonly ownMs: number;
  readonly planCheckMs: number;
  readonly wholeBytes: number;
  readonly error?: string;
}

async function startTools(): Promise<{ ports: Record<string, number>; stop: () => void }> {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, fileURLToPath(new URL("natural-scale-tools.ts", import.meta.url))], {
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.on("exit", () => child.kill("SIGKILL"));
  const ports = await new Promise<Record<string, number>>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the tool process exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { ports: Record<string, number> }).ports));
  });
  return { ports, stop: () => child.kill("SIGTERM") };
}

async function measureSize(redisUrl: string, size: number, ports: Record<string, number>): Promise<SizeFigures> {
  const store = createStore({ env: { REDIS_URL: redisUrl, MANIFOLD_REDIS_NAMESPACE: `scale-${size}` }, log: () => undefined });
  const registry = createRegistry({ store, env: {} });
  const components = await registerNetwork(registry, size, ports);
  const wholeBytes = await wholeCatalogPromptBytes(registry, ENV);
  const run = await startScaleRun(registry, ENV);
  // Independent of the request: measured even at a size the request fails at.
  const checkMs = await planCheckMs(registry, { runs: Math.max(100, RUNS), env: ENV }).catch(() => Number.NaN);
  const base = { size, components, wholeBytes, planCheckMs: checkMs };
  try {
    for (let i = 0; i < WARMUP; i += 1) await run.request();
    const overheads: number[] = [];
    const owns: number[] = [];
    let last = await run.request();
    for (let i = 0; i < RUNS; i += 1) {
      last = await run.request();
      overheads.push(last.wallMs - last.calls.reduce((ms, call) => ms + call.ms, 0));
      owns.push(last.ownMs);
    }
    const mean = overheads.reduce((a, b) => a + b, 0) / overheads.length;
    return {
      ...base,
      kinds: promptBytesByKind(last.calls),
      calls: last.calls.length,
      overheadMs: median(overheads),
      overheadMeanMs: mean,
      ownMs: median(owns),
    };
  } catch (error) {
    return {
      ...base,
      kinds: {},
      calls: 0,
      overheadMs: Number.NaN,
      overheadMeanMs: Number.NaN,
      ownMs: Number.NaN,
      error: (error as Error).message.slice(0, 300),
    };
  } finally {
    await run.close();
    await store.close();
  }
}

const KINDS = ["capability_selection", "routing_plan", "synthesis"];
const kb = (bytes: number | undefined): string => (bytes === undefined ? "-" : (bytes / 1024).toFixed(1));
const ms = (value: number): string => (Number.isNaN(value) ? "-" : value.toFixed(3));

function print(rows: readonly SizeFigures[], budget: number): void {
  const head = [
    "capabilities",
    "components",
    "selection KiB",
    "plan KiB",
    "synthesis KiB",
    "calls",
    "overhead ms (median / mean)",
    "own ms (median)",
    "plan check ms",
    "whole-catalog KiB",
  ];
  console.log(`| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|`);
  for (const r of rows) {
    if (r.error !== undefined) {
      console.log(`| ${r.size} | ${r.components} | failed: ${r.error} | | | | | | ${ms(r.planCheckMs)} | ${kb(r.wholeBytes)} |`);
      continue;
    }
    const cells = [
      r.size,
      r.components,
      ...KINDS.map((k) => kb(r.kinds[k])),
      r.calls,
      `${ms(r.overheadMs)} / ${ms(r.overheadMeanMs)}`,
      ms(r.ownMs),
      ms(r.planCheckMs),
      kb(r.wholeBytes),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
  const other = rows.flatMap((r) => Object.keys(r.kinds)).filter((k) => !KINDS.includes(k));
  if (other.length > 0) console.log(`other call kinds: ${[...new Set(other)].join(", ")}`);
  console.log(`\nprompt budget (MANIFOLD_LLM_CONTEXT_TOKENS × 3): ${kb(budget)} KiB`);
}

/** The aims, each with whether it holds; a size that failed misses every aim it is part of. */
function aims(rows: readonly SizeFigures[], budget: number): [string, boolean, string][] {
  const at = (size: number): SizeFigures | undefined => rows.find((r) => r.size === size);
  const largest = (r: SizeFigures | undefined): number => (r === undefined || r.error !== undefined ? Number.NaN : Math.max(...Object.values(r.kinds)));
  const small = at(100);
  const big = at(10_000);
  const growth = largest(big) / largest(small);
  const out: [string, boolean, string][] = [
    [
      "prompt bytes grow at most logarithmically: the 10,000 prompt ≤ 2 × the 100 prompt (largest call)",
      growth <= 2,
      `${kb(largest(big))} / ${kb(largest(small))} KiB = ${growth.toFixed(2)}×`,
    ],
  ];
  for (const kind of KINDS) {
    const ratio = (big?.kinds[kind] ?? Number.NaN) / (small?.kinds[kind] ?? Number.NaN);
    if (!Number.isNaN(ratio)) out.push([`  ${kind}: 10,000 ≤ 2 × 100`, ratio <= 2, `${ratio.toFixed(2)}×`]);
  }
  // The orchestration's overhead: the request's own time, outside the model calls (as the client timed
  // them, its own work included) and the tool calls; "overhead" above also holds those two clients' work.
  out.push([
    "orchestration overhead per request ≤ 5 ms at 10,000 (median, outside the model and tool calls)",
    (big?.ownMs ?? Number.NaN) <= 5,
    `${ms(big?.ownMs ?? Number.NaN)} ms (with the clients' own work: ${ms(big?.overheadMs ?? Number.NaN)} ms)`,
  ]);
  out.push(["plan check ≤ 1 ms at 10,000 (median)", (big?.planCheckMs ?? Number.NaN) <= 1, `${ms(big?.planCheckMs ?? Number.NaN)} ms`]);
  const over = rows.filter((r) => r.error !== undefined || largest(r) > budget).map((r) => r.size);
  out.push(["every prompt within the budget at every size", over.length === 0, over.length === 0 ? "yes" : `not at ${over.join(", ")}`]);
  return out;
}

const redis = await startRedisServer();
const tools = await startTools();
const rows: SizeFigures[] = [];
try {
  for (const size of SIZES) {
    rows.push(await measureSize(redis.url, size, tools.ports));
    process.stderr.write(`measured ${size}\n`);
  }
} finally {
  tools.stop();
  await redis.close();
}
const budget = promptBudgetBytes(readAdaptiveSettings(ENV));
console.log(
  `\nnode ${process.version}; one natural request (2 tool calls, synthesis) per run; median of ${RUNS} runs after ${WARMUP}; Redis registry behind its catalog cache\n`,
);
print(rows, budget);
console.log("\naims:");
const checked = aims(rows, budget);
for (const [aim, holds, figure] of checked) console.log(`  ${holds ? "holds " : "MISSED"}  ${aim}: ${figure}`);
const floor = rows.find((r) => r.size === Math.min(...SIZES));
const top = rows.find((r) => r.size === Math.max(...SIZES));
if (floor !== undefined && top !== undefined && top !== floor)
  console.log(
    `\n(not an aim) what the catalog's size adds to the overhead: ${ms(top.overheadMs - floor.overheadMs)} ms at ${top.size} over the ${floor.size}-capability request (${ms(floor.overheadMs)} ms: the openai client's calls, the tool calls, the executor)`,
  );
process.exitCode = checked.every(([, holds]) => holds) ? 0 : 1;
