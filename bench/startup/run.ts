/**
 * Start-up against bare node, side by side in one run (issue 31): `manifold --help` and `--version` against
 * `node -e 0`, and each built travel component (`node dist-example/manifests/travel/serve.js <name>`) from spawn to
 * its first 200 on /health against a bare node:http server answering the same probe. Rounds alternate the sides,
 * so load on a shared machine hits both; medians are printed with the ratio, the difference and the aim.
 * Needs `npm run build` and `npm run build:example` first (it says so). Loopback only; every wait is bounded.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { freePort } from "../../test/support/ports.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 9);
const bin = join(root, "dist", "generator", "bin.js");
const serve = join(root, "dist-example", "manifests", "travel", "serve.js");
const COMPONENTS = (process.env["BENCH_COMPONENTS"] ?? "weather-service,travel-agent").split(",");
const BARE = `require("node:http").createServer((q, s) => s.end("{}")).listen(Number(process.env.PORT), "127.0.0.1")`;
const HEALTHY_WITHIN_MS = 60_000;
const emptyModule = join(tmpdir(), "manifold-bench-empty.mjs");

/** Wall time from spawn to exit, in ms. */
function timeExit(args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", () => resolve(performance.now() - started));
  });
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
  });
}

/** Wall time from spawn to the first 200 on /health (polled every 2 ms, at most HEALTHY_WITHIN_MS), then SIGTERM. */
async function timeHealthy(args: readonly string[]): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: "ignore", env: { ...process.env, PORT: String(port) } });
  try {
    while (!(await healthy(port))) {
      if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited ${child.exitCode} before it was healthy`);
      if (performance.now() - started > HEALTHY_WITHIN_MS) throw new Error(`${args.join(" ")} not healthy within ${HEALTHY_WITHIN_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return performance.now() - started;
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function report(what: string, ours: number[], base: number[], baseName: string, aim: string): void {
  const [m, b] = [median(ours), median(base)];
  console.log(
    `${what.padEnd(34)} ${m.toFixed(0).padStart(6)} ms vs ${baseName} ${b.toFixed(0).padStart(5)} ms: ${(m / b).toFixed(2)}×, ${m >= b ? "+" : ""}${(m - b).toFixed(0)} ms   aim: ${aim}`,
  );
}

async function main(): Promise<void> {
  for (const [file, build] of [
    [bin, "npm run build"],
    [serve, "npm run build:example"],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`${build}\` first`);
  }
  const runs = { node: [] as number[], esm: [] as number[], help: [] as number[], version: [] as number[], bare: [] as number[] };
  const components = new Map(COMPONENTS.map((name) => [name, [] as number[]]));
  writeFileSync(emptyModule, "export {};\n");
  const before = loadavg()[0]!;
  for (let round = 0; round < ROUNDS; round++) {
    runs.node.push(await timeExit(["-e", "0"]));
    // node's ES module loader itself: the floor for any ESM bin, this one included.
    runs.esm.push(await timeExit([emptyModule]));
    runs.help.push(await timeExit([bin, "--help"]));
    runs.version.push(await timeExit([bin, "--version"]));
    runs.bare.push(await timeHealthy(["-e", BARE]));
    for (const [name, times] of components) times.push(await timeHealthy([serve, name]));
  }
  console.log(`startup, median of ${ROUNDS} rounds, node ${process.version}, load average ${before.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}`);
  report("manifold --help", runs.help, runs.node, "node -e 0", "≤ node + 15 ms");
  report("manifold --version", runs.version, runs.node, "node -e 0", "≤ node + 15 ms");
  report("(floor) an empty ES module", runs.esm, runs.node, "node -e 0", "information");
  report("manifold --help over that floor", runs.help, runs.esm, "empty ESM", "information");
  for (const [name, times] of components) report(`${name} to first healthy /health`, times, runs.bare, "bare node:http", "≤ 300 ms");
}

await main();
