/**
 * HTTP throughput of a generated component against fastify and bare node:http, in the same run, for
 * two routes: a capability POST (read, validate, handler, JSON reply) and any other route (a GET with
 * a path parameter, added by an extension as chat, tasks or the dashboard add theirs). Each server
 * runs in its own child process so autocannon, here, does not share its event loop. Each round loads
 * each server in turn, the order alternating, so on a shared machine whose load drifts every side of a
 * ratio is measured within seconds of the other. The rounds are spread over BENCH_PROCESSES sets of
 * server processes, each started and warmed afresh: on this 2-core VM one process of a server can
 * measure 30% off another of the same code over a whole run (four processes of the generated
 * component in one run of five alternating rounds: medians of 38.6 to 52.0 µs of CPU per POST), so a
 * ratio taken from one process of each side can measure that draw as much as the code. Each figure is the median over all rounds, and each ratio the median of the per-round ratios,
 * with the load average around its measurements. The generated servers run this package's runtime as
 * users run it, tsc's output in dist/ (built first when older than the sources); under tsx its
 * TypeScript sources name every closure made per request with Object.defineProperty, about 5k of a
 * POST's 83k instructions that the shipped code does not execute.
 *
 *   npm run bench:http     BENCH_DURATION=3 (s per measurement), BENCH_ROUNDS=9, BENCH_PROCESSES=3
 *   BENCH_ONLY=GET         only the scenarios whose name contains it
 *   BENCH_BEFORE=<dir>     also measures that checkout's bench/http/server-generated.ts ("before"), for a
 *                          before/after in the same run (e.g. `git archive <commit> | tar -x -C <dir>`, node_modules
 *                          linked, `npm run build` there, or BENCH_SOURCE=1 for both)
 *   BENCH_SOURCE=1         runs the runtime from its TypeScript sources under tsx instead
 *   BENCH_CEILING=flat,als,id,last  also measures server-ceiling.ts with those switches: bare node:http
 *                          keeping only what they name, against the same fastify and bare
 */
import { spawn, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon, { type Options } from "autocannon";
import { withTimeout } from "../../test/runtime/support.js";
import { cpuMicros } from "./cpu.js";
import { ensureBuilt, runtimeNodeArgs } from "./runtime-args.js";
import { BODY, ITEM_PATH, PATH } from "./spec.js";

const DURATION = Number(process.env["BENCH_DURATION"] ?? 3);
const ROUNDS = Math.max(3, Number(process.env["BENCH_ROUNDS"] ?? 9));
// Never more process sets than rounds: each set runs at least one round.
const PROCESSES = Math.min(ROUNDS, Math.max(1, Number(process.env["BENCH_PROCESSES"] ?? 3)));
const BEFORE = process.env["BENCH_BEFORE"];
const CEILING = process.env["BENCH_CEILING"];
const SOURCE = process.env["BENCH_SOURCE"] === "1";
const WARMUP = 3;
const CONNECTIONS = 50;
// Generous: on a machine at load 20-30 a server started from source under tsx can take most of a minute.
const START_TIMEOUT_MS = 90_000;

interface Scenario {
  readonly name: string;
  readonly load: Omit<Options, "url" | "duration">;
  readonly path: string;
  /** The aims: generated / fastify, and generated / bare node:http where one is set. */
  readonly aim: { readonly fastify: number; readonly bare?: number };
}

const ALL_SCENARIOS: readonly Scenario[] = [
  {
    name: "capability POST",
    path: PATH,
    load: { connections: CONNECTIONS, pipelining: 1, method: "POST", headers: { "content-type": "application/json" }, body: BODY },
    aim: { fastify: 1.2, bare: 0.95 },
  },
  { name: "other route (GET :param)", path: ITEM_PATH, load: { connections: CONNECTIONS, pipelining: 1, method: "GET" }, aim: { fastify: 1.0 } },
];

// BENCH_ONLY=GET: only the scenarios whose name contains it, to spend a short run on the route being changed.
const ONLY = process.env["BENCH_ONLY"];
const SCENARIOS = ONLY === undefined ? ALL_SCENARIOS : ALL_SCENARIOS.filter((scenario) => scenario.name.includes(ONLY));

interface Target {
  readonly name: string;
  readonly file: string;
  /** server-ceiling.ts's switches (CEILING_VARIANT). */
  readonly variant?: string;
}

const here = fileURLToPath(new URL(".", import.meta.url));
const TARGETS: readonly Target[] = [
  { name: "generated", file: resolve(here, "server-generated.ts") },
  { name: "fastify", file: resolve(here, "server-fastify.ts") },
  { name: "bare node:http", file: resolve(here, "server-bare.ts") },
  // Capability POSTs as route handlers (RouteContext), the path every other route takes: what the raw route buys.
  { name: "generated, handler path", file: resolve(here, "server-handler-path.ts") },
  ...(BEFORE === undefined ? [] : [{ name: "before: generated", file: resolve(BEFORE, "bench/http/server-generated.ts") }]),
  ...(CEILING === undefined ? [] : [{ name: `ceiling: ${CEILING}`, file: resolve(here, "server-ceiling.ts"), variant: CEILING }]),
];

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

const NODE_ARGS = runtimeNodeArgs(!SOURCE);

async function start(target: Target): Promise<{ child: ChildProcess; url: string }> {
  // The ceiling imports only the runtime's request id, by relative path: the same either way.
  const child = spawn(process.execPath, [...NODE_ARGS, target.file], {
    cwd: resolve(target.file, "../../.."),
    env: { ...process.env, PORT: "0", NODE_ENV: "production", CEILING_VARIANT: target.variant ?? "" },
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
  readonly rps: number;
  readonly p99: number;
  /** Server CPU time (user + system) per request during the measured run, µs: what a busy machine disturbs least. */
  readonly cpu: number;
  /** The 1-minute load average when the measurement ended. */
  readonly load: number;
}

async function warm(target: Target, url: string, scenario: Scenario): Promise<void> {
  const { load } = scenario;
  const check = await fetch(url + scenario.path, {
    method: load.method ?? "GET",
    ...(load.headers === undefined ? {} : { headers: load.headers }),
    ...(load.body === undefined ? {} : { body: load.body }),
  });
  if (check.status !== 200) throw new Error(`${target.name} ${scenario.name} answered ${check.status}: ${await check.text()}`);
  await autocannon({ ...load, url: url + scenario.path, duration: WARMUP });
}

async function measure(target: Target, child: ChildProcess, url: string, scenario: Scenario): Promise<Measurement> {
  const { load } = scenario;
  const cpuBefore = await cpuMicros(child);
  const result = await autocannon({ ...load, url: url + scenario.path, duration: DURATION });
  const cpuAfter = await cpuMicros(child);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name} ${scenario.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99, cpu: (cpuAfter - cpuBefore) / result.requests.total, load: loadavg()[0]! };
}

const results = new Map<string, Measurement[]>();
const key = (scenario: Scenario, target: Target | string): string => `${scenario.name}|${typeof target === "string" ? target : target.name}`;
/** Round `round`, on one set of running servers. */
async function runRound(round: number, servers: ReadonlyMap<Target, { child: ChildProcess; url: string }>): Promise<void> {
  // Alternate the order each round, so no server always runs first (or last) on a machine whose load drifts.
  const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
  for (const scenario of SCENARIOS) {
    for (const target of order) {
      const { child, url } = servers.get(target)!;
      const m = await measure(target, child, url, scenario);
      results.set(key(scenario, target), [...(results.get(key(scenario, target)) ?? []), m]);
      process.stderr.write(
        `round ${round + 1}/${ROUNDS} ${target.name}, ${scenario.name}: ${Math.round(m.rps)} req/s, ${m.cpu.toFixed(1)} µs CPU/req, load ${m.load.toFixed(2)}\n`,
      );
    }
  }
}

if (!SOURCE) ensureBuilt();
// Round r runs on process set r % PROCESSES; the sets run one after another, each started and warmed afresh.
for (let set = 0; set < PROCESSES; set++) {
  const servers = new Map<Target, { child: ChildProcess; url: string }>();
  try {
    for (const target of TARGETS) {
      const server = await start(target);
      servers.set(target, server);
      for (const scenario of SCENARIOS) await warm(target, server.url, scenario);
    }
    for (let round = set; round < ROUNDS; round += PROCESSES) await runRound(round, servers);
  } finally {
    for (const { child } of servers.values()) await stop(child);
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const of = (scenario: Scenario, name: string, field: keyof Measurement): number => median((results.get(key(scenario, name)) ?? []).map((m) => m[field]));

console.log(
  `\n${CONNECTIONS} connections, pipelining 1, ${DURATION} s per measurement (each set of servers warmed ${WARMUP} s), median of ${ROUNDS} alternating rounds on ${PROCESSES} sets of server processes, runtime from ${SOURCE ? "sources under tsx" : "dist/"}, node ${process.version}, load now ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
for (const scenario of SCENARIOS) {
  console.log(`\n${scenario.name} (${scenario.load.method} ${scenario.path})`);
  console.log(`${"server".padEnd(26)}${"req/s".padStart(9)}${"p99 ms".padStart(9)}${"CPU µs/req".padStart(12)}${"load".padStart(7)}`);
  for (const target of TARGETS) {
    if (!results.has(key(scenario, target))) continue;
    const cell = (field: keyof Measurement, digits: number, width: number) => of(scenario, target.name, field).toFixed(digits).padStart(width);
    console.log(`${target.name.padEnd(26)}${cell("rps", 0, 9)}${cell("p99", 1, 9)}${cell("cpu", 1, 12)}${cell("load", 2, 7)}`);
  }
  // Throughput ratios, and the same ratio from CPU cost (the other's µs/req over ours).
  // The median of the per-round ratios: each round's two sides ran seconds apart, under the same load.
  const paired = (a: string, b: string, ratio: (x: Measurement, y: Measurement) => number): number => {
    const xs = results.get(key(scenario, a)) ?? [];
    const ys = results.get(key(scenario, b)) ?? [];
    return median(xs.map((x, i) => ratio(x, ys[i]!)));
  };
  const ratio = (a: string, b: string, aim: number | undefined): string => {
    const rps = paired(a, b, (x, y) => x.rps / y.rps);
    const cpu = paired(a, b, (x, y) => y.cpu / x.cpu);
    const verdict = aim === undefined ? "" : `   aim ≥ ${aim}: ${rps >= aim ? "met" : "MISSED"} by req/s, ${cpu >= aim ? "met" : "MISSED"} by CPU/req`;
    return `${rps.toFixed(3)} by req/s, ${cpu.toFixed(3)} by CPU/req${verdict}`;
  };
  console.log(`generated / fastify         ${ratio("generated", "fastify", scenario.aim.fastify)}`);
  console.log(`generated / bare node:http  ${ratio("generated", "bare node:http", scenario.aim.bare)}`);
  console.log(`handler path / fastify      ${ratio("generated, handler path", "fastify", undefined)}`);
  if (BEFORE !== undefined) console.log(`generated / before          ${ratio("generated", "before: generated", undefined)}`);
  if (CEILING !== undefined) {
    console.log(`ceiling / fastify           ${ratio(`ceiling: ${CEILING}`, "fastify", scenario.aim.fastify)}`);
    console.log(`ceiling / bare node:http    ${ratio(`ceiling: ${CEILING}`, "bare node:http", scenario.aim.bare)}`);
  }
}
