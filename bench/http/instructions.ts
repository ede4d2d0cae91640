/**
 * Instructions per request, counted by valgrind's callgrind, for bench:http's two routes on each
 * server: the one figure here that a busy shared machine does not move at all (the server runs under
 * valgrind, counting starts only after a warm-up, and stops after a fixed number of requests).
 * A run that meets a major collection counts it (several times the usual figure): read the lowest
 * of the repeats after the first. Forcing a collection before each run (--expose-gc, a 64 MiB young
 * generation) was tried and made every request count 4-5x more, so it is not done. Slow (the server
 * runs tens of times slower); the ratios are what it is for.
 *
 *   npx tsx --conditions=source bench/http/instructions.ts     IR_REQUESTS=2000 IR_ONLY=generated,fastify
 *   IR_ROUTE=GET      only that route
 *   IR_BEFORE=<dir>   also counts that checkout's server-generated.ts ("before")
 *   IR_CEILING=als,id also counts server-ceiling.ts with those switches (what any node:http server keeping them costs)
 *   IR_BUILT=1        the runtime from dist/ (tsc's output, as users and bench:http run it) instead of its sources
 *   IR_KEEP=1         keeps the dumps; with NODE_OPTIONS=--perf-basic-prof, bench/http/annotate.ts names their JIT frames
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { withTimeout } from "../../test/runtime/support.js";
import { ensureBuilt, runtimeNodeArgs } from "./runtime-args.js";
import { BODY, ITEM_PATH, PATH } from "./spec.js";

const REQUESTS = Number(process.env["IR_REQUESTS"] ?? 2_000);
const WARM = Number(process.env["IR_WARM"] ?? 3_000);
const REPEATS = Number(process.env["IR_REPEATS"] ?? 3);
const here = fileURLToPath(new URL(".", import.meta.url));
const before = process.env["IR_BEFORE"];
const ceiling = process.env["IR_CEILING"];
const BUILT = process.env["IR_BUILT"] === "1";
const ALL: readonly (readonly [string, string])[] = [
  ["generated", resolve(here, "server-generated.ts")],
  ["fastify", resolve(here, "server-fastify.ts")],
  ["bare", resolve(here, "server-bare.ts")],
  // Capability POSTs as route handlers (fastPath: false), as bench:http's "generated, handler path".
  ["handler-path", resolve(here, "server-handler-path.ts")],
  ...(before === undefined ? [] : ([["before", resolve(before, "bench/http/server-generated.ts")]] as const)),
  // IR_CEILING=als,id: also the cheapest node:http server with those switches (server-ceiling.ts reads CEILING_VARIANT).
  ...(ceiling === undefined ? [] : ([[`ceiling-${ceiling.replaceAll(",", "+")}`, resolve(here, "server-ceiling.ts")]] as const)),
];
const only = process.env["IR_ONLY"]?.split(",");
const TARGETS = only === undefined ? ALL : ALL.filter(([name]) => only.includes(name));
const ALL_SCENARIOS = [
  { name: "capability POST", path: PATH, method: "POST", headers: { "content-type": "application/json" }, body: BODY },
  { name: "GET :param", path: ITEM_PATH, method: "GET" },
] as const;
// IR_ROUTE=GET: only the routes whose name contains it.
const ROUTE = process.env["IR_ROUTE"];
const SCENARIOS = ROUTE === undefined ? ALL_SCENARIOS : ALL_SCENARIOS.filter((scenario) => scenario.name.includes(ROUTE));

/** The instructions callgrind counted since it was last zeroed: dumps, reads the dump's total, removes it. */
function dumpTotal(pid: number, dir: string, label: string): number {
  execFileSync("callgrind_control", ["-d", String(pid)], { stdio: "ignore" });
  const dumps = readdirSync(dir).filter((file) => /^cg\.out\.\d+$/.test(file));
  let total = 0;
  for (const file of dumps) {
    const text = readFileSync(join(dir, file), "utf8");
    total += Number(/^totals: (\d+)/m.exec(text)?.[1] ?? 0);
    // IR_KEEP: the dumps stay, named by server and route, for callgrind_annotate.
    if (process.env["IR_KEEP"] === undefined) rmSync(join(dir, file));
    else renameSync(join(dir, file), join(dir, `${label}.${file}`));
  }
  return total;
}

async function start(file: string, dir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      "--smc-check=all-non-file",
      `--callgrind-out-file=${dir}/cg.out`,
      process.execPath,
      ...runtimeNodeArgs(BUILT),
      file,
    ],
    {
      cwd: resolve(here, "../.."),
      env: { ...process.env, PORT: "0", NODE_ENV: "production", ...(ceiling === undefined ? {} : { CEILING_VARIANT: ceiling }) },
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  const line = await withTimeout(
    new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve)),
    600_000,
    `${file} start under valgrind`,
  );
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

if (BUILT) ensureBuilt();
const rows: string[] = [];
for (const [name, file] of TARGETS) {
  const dir = mkdtempSync(join(tmpdir(), "ir-"));
  const { child, url } = await start(file, dir);
  try {
    // Each route IR_REPEATS times, alternating, so a figure still moving between repeats (late compilation) shows.
    for (const scenario of Array.from({ length: REPEATS }, () => SCENARIOS).flat()) {
      const load = {
        url: url + scenario.path,
        connections: 10,
        // Under valgrind a request can wait seconds behind the others.
        timeout: 300,
        method: scenario.method,
        ...("body" in scenario ? { headers: scenario.headers, body: scenario.body } : {}),
      };
      await autocannon({ ...load, amount: WARM, duration: 600 });
      execFileSync("callgrind_control", ["-z", String(child.pid)], { stdio: "ignore" });
      execFileSync("callgrind_control", ["-i", "on", String(child.pid)], { stdio: "ignore" });
      const result = await autocannon({ ...load, amount: REQUESTS, duration: 600 });
      execFileSync("callgrind_control", ["-i", "off", String(child.pid)], { stdio: "ignore" });
      const total = dumpTotal(child.pid!, dir, `${name}-${scenario.method}`);
      if (result.non2xx > 0) throw new Error(`${name} ${scenario.name}: ${result.non2xx} non-2xx`);
      const line = `${name.padEnd(20)} ${scenario.name.padEnd(16)} ${(total / result.requests.total / 1000).toFixed(1).padStart(8)} k instructions/request${result.errors > 0 ? ` (${result.errors} requests failed: the server's own timeouts under valgrind)` : ""}`;
      process.stderr.write(`${line}\n`);
      rows.push(line);
    }
  } finally {
    child.kill("SIGKILL");
    if (process.env["IR_KEEP"] === undefined) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`${name}: dumps in ${dir}\n`);
  }
}
console.log(`\n${REQUESTS} requests after ${WARM} to warm, 10 connections, server under callgrind:\n${rows.join("\n")}`);
