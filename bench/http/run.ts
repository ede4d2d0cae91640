/**
 * HTTP throughput of a generated component against bare node:http and fastify, same capability,
 * same body, same load. Each server runs in its own child process so autocannon, here, does not share
 * its event loop. Prints req/s, p99 latency and the ratios; the target is generated/fastify ≥ 0.9.
 *
 *   npm run bench:http            BENCH_DURATION=10 (s per measurement), BENCH_ROUNDS=3 (median reported)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon, { type Result } from "autocannon";
import { withTimeout } from "../../test/runtime/support.js";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";
import { cpuMicros } from "./cpu.js";
import { BODY, PATH } from "./spec.js";

const DURATION = Number(process.env["BENCH_DURATION"] ?? 10);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const WARMUP = 3;
const LOAD = { connections: 50, pipelining: 1, method: "POST", headers: { "content-type": "application/json" }, body: BODY };
const START_TIMEOUT_MS = 30_000;

interface Target {
  readonly name: string;
  readonly file: string;
}

const TARGETS: readonly Target[] = [
  { name: "generated", file: "server-generated.ts" },
  { name: "generated, Koa path", file: "server-koa-path.ts" },
  { name: "bare node:http", file: "server-bare.ts" },
  { name: "fastify", file: "server-fastify.ts" },
];

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function start(target: Target): Promise<{ child: ChildProcess; url: string }> {
  const file = fileURLToPath(new URL(target.file, import.meta.url));
  const child = spawn(process.execPath, [...TS_NODE_ARGS, file], {
    env: { ...process.env, PORT: "0", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  children.add(child);
  const lines = createInterface({ input: child.stdout! });
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`${target.name} exited with ${code} before listening`)));
      lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    }),
    START_TIMEOUT_MS,
    `${target.name} start`,
  );
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await withTimeout(exited, 15_000, "server exit").catch(() => child.kill("SIGKILL"));
  children.delete(child);
}

interface Measurement {
  readonly result: Result;
  /** Server CPU time (user + system) per request during the measured run. */
  readonly cpuPerRequest: number;
}

async function measure(target: Target): Promise<Measurement> {
  const { child, url } = await start(target);
  try {
    const check = await fetch(url + PATH, { method: "POST", headers: LOAD.headers, body: BODY });
    if (check.status !== 200) throw new Error(`${target.name} answered ${check.status}: ${await check.text()}`);
    await autocannon({ ...LOAD, url: url + PATH, duration: WARMUP });
    const cpuBefore = await cpuMicros(child);
    const result = await autocannon({ ...LOAD, url: url + PATH, duration: DURATION });
    const cpuAfter = await cpuMicros(child);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { result, cpuPerRequest: (cpuAfter - cpuBefore) / result.requests.total };
  } finally {
    await stop(child);
  }
}

const rows = new Map<string, { rps: number[]; p99: number[]; cpu: number[] }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const target of TARGETS) {
    const { result, cpuPerRequest } = await measure(target);
    const row = rows.get(target.name) ?? { rps: [], p99: [], cpu: [] };
    row.rps.push(result.requests.average);
    row.p99.push(result.latency.p99);
    row.cpu.push(cpuPerRequest);
    rows.set(target.name, row);
    process.stderr.write(`round ${round + 1}/${ROUNDS} ${target.name}: ${Math.round(result.requests.average)} req/s, ${cpuPerRequest.toFixed(1)} µs CPU/req\n`);
  }
}

/** Median over rounds: a shared machine has outliers in both directions, and rounds interleave servers. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const rps = (name: string): number => median(rows.get(name)?.rps ?? [Number.NaN]);
const cpu = (name: string): number => median(rows.get(name)?.cpu ?? [Number.NaN]);

console.log(
  `\n${LOAD.connections} connections, pipelining ${LOAD.pipelining}, ${DURATION} s after ${WARMUP} s warm-up, ${ROUNDS} round(s), node ${process.version}\n`,
);
console.log(`${"server".padEnd(22)}${"req/s".padStart(10)}${"p99 ms".padStart(10)}${"CPU µs/req".padStart(12)}`);
for (const [name, row] of rows) {
  console.log(
    `${name.padEnd(22)}${Math.round(median(row.rps)).toString().padStart(10)}${median(row.p99).toFixed(1).padStart(10)}${median(row.cpu).toFixed(1).padStart(12)}`,
  );
}
// Throughput ratios, and the same ratio computed from CPU cost (fastify's µs/req over ours), which a
// busy machine disturbs far less.
const ratio = (a: string, b: string): string => `${(rps(a) / rps(b)).toFixed(3)} by req/s, ${(cpu(b) / cpu(a)).toFixed(3)} by CPU/req`;
console.log("");
console.log(`generated / bare           ${ratio("generated", "bare node:http")}`);
console.log(`generated / fastify        ${ratio("generated", "fastify")}   (target ≥ 0.9)`);
console.log(`Koa path / fastify         ${ratio("generated, Koa path", "fastify")}`);
