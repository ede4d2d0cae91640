/**
 * MCP `tools/call` against a plain HTTP POST of the same capability, in the same run (issue 34's aim:
 * a call over MCP costs at most 1.5 × the same call over HTTP). The server (bench/mcp/server.ts: the
 * example's weather-service, generated code, `mcp: true`) runs in its own process; this one is the
 * client. Each round, for each caller (harness.ts): BENCH_CALLS sequential calls (round trip median and
 * p99) and BENCH_CALLS concurrent calls with BENCH_CONCURRENCY in flight (calls/s), with the server's
 * CPU time per call for both (the figure a busy shared machine disturbs least). Every answer is checked
 * against the HTTP one. Medians over rounds; the aims are judged on the `mcp` caller (the same
 * node:http client as `http`), the SDK client's figures are printed beside them. Exit 1 on a missed aim.
 *
 *   npm run bench:mcp        BENCH_CALLS=2000 BENCH_CONCURRENCY=32 BENCH_ROUNDS=3
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { withTimeout } from "../../test/runtime/support.js";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";
import { cpuMicros } from "../http/cpu.js";
import { concurrent, httpCaller, mcpCaller, percentile, sdkCaller, sequential, type Caller } from "./harness.js";

const CALLS = Number(process.env["BENCH_CALLS"] ?? 2000);
const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 32);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3);
const WARMUP = 300;
const AIM = 1.5;

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, fileURLToPath(new URL("server.ts", import.meta.url))], {
    env: { ...process.env, NODE_ENV: "production", MANIFOLD_LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  process.on("exit", () => child.kill("SIGKILL"));
  const lines = createInterface({ input: child.stdout! });
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`the server exited with ${code} before listening`)));
      lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    }),
    30_000,
    "server start",
  );
  return { child, url };
}

interface Row {
  median: number[];
  p99: number[];
  seqCpu: number[];
  perSecond: number[];
  loadCpu: number[];
}

const median = (values: readonly number[]): number => percentile(values, 50);

async function measure(child: ChildProcess, caller: Caller, check: (answer: unknown) => void, row: Row): Promise<void> {
  await sequential(caller, WARMUP, check);
  let before = await cpuMicros(child);
  const times = await sequential(caller, CALLS, check);
  row.seqCpu.push(((await cpuMicros(child)) - before) / CALLS);
  row.median.push(median(times));
  row.p99.push(percentile(times, 99));
  before = await cpuMicros(child);
  const wall = await concurrent(caller, CALLS, CONCURRENCY, check);
  row.loadCpu.push(((await cpuMicros(child)) - before) / CALLS);
  row.perSecond.push((CALLS / wall) * 1000);
}

const { child, url } = await startServer();
const callers = [httpCaller(url), await mcpCaller(url), await sdkCaller(url)];
const expected = JSON.stringify(await callers[0]!.call());
const check = (answer: unknown): void => {
  if (JSON.stringify(answer) !== expected) throw new Error(`a wrong answer: ${JSON.stringify(answer)} (expected ${expected})`);
};
const rows = new Map<string, Row>(callers.map((c) => [c.name, { median: [], p99: [], seqCpu: [], perSecond: [], loadCpu: [] }]));
for (let round = 1; round <= ROUNDS; round += 1) {
  for (const caller of callers) {
    const row = rows.get(caller.name)!;
    await measure(child, caller, check, row);
    process.stderr.write(`round ${round}/${ROUNDS} ${caller.name}: median ${row.median.at(-1)!.toFixed(3)} ms, ${Math.round(row.perSecond.at(-1)!)} calls/s\n`);
  }
}
await Promise.all(callers.map((c) => c.close()));
child.kill("SIGTERM");

const m = (name: string, key: keyof Row): number => median(rows.get(name)![key]);
console.log(
  `\nget_current_weather, ${CALLS} sequential then ${CALLS} with ${CONCURRENCY} in flight, after ${WARMUP} warm-up calls; median of ${ROUNDS} round(s), node ${process.version}\n`,
);
console.log(
  `${"caller".padEnd(18)}${"median ms".padStart(11)}${"p99 ms".padStart(9)}${"CPU µs/call".padStart(13)}${"calls/s".padStart(10)}${"CPU µs/call".padStart(13)}`,
);
console.log(`${"".padEnd(18)}${"sequential".padStart(33)}${`${CONCURRENCY} in flight`.padStart(23)}`);
for (const name of rows.keys()) {
  const cells = [
    m(name, "median").toFixed(3),
    m(name, "p99").toFixed(3),
    m(name, "seqCpu").toFixed(1),
    Math.round(m(name, "perSecond")).toString(),
    m(name, "loadCpu").toFixed(1),
  ];
  console.log(`${name.padEnd(18)}${cells[0]!.padStart(11)}${cells[1]!.padStart(9)}${cells[2]!.padStart(13)}${cells[3]!.padStart(10)}${cells[4]!.padStart(13)}`);
}

/** Cost of a call over MCP against the same call over HTTP: > 1 is dearer. */
const costs = (name: string) => ({
  roundTrip: m(name, "median") / m("http", "median"),
  p99: m(name, "p99") / m("http", "p99"),
  cpu: m(name, "seqCpu") / m("http", "seqCpu"),
  load: m("http", "perSecond") / m(name, "perSecond"),
  loadCpu: m(name, "loadCpu") / m("http", "loadCpu"),
});
const line = (label: string, value: number, aim?: number): string =>
  `${label.padEnd(58)}${value.toFixed(2).padStart(6)} ×${aim === undefined ? "" : `   (aim ≤ ${aim}: ${value <= aim ? "holds" : "MISSED"})`}`;
const mcp = costs("mcp");
const sdk = costs("mcp (SDK client)");
console.log("\nMCP / HTTP, per call (same node:http client):");
console.log(line("  round trip, sequential median", mcp.roundTrip, AIM));
console.log(line(`  cost under load (HTTP calls/s ÷ MCP calls/s, ${CONCURRENCY} in flight)`, mcp.load, AIM));
console.log(line("  round trip, sequential p99", mcp.p99));
console.log(line("  server CPU per call, sequential", mcp.cpu));
console.log(line(`  server CPU per call, ${CONCURRENCY} in flight`, mcp.loadCpu));
console.log("MCP through the SDK's Client / HTTP (what a host on the SDK pays; information):");
console.log(line("  round trip, sequential median", sdk.roundTrip));
console.log(line(`  cost under load (${CONCURRENCY} in flight)`, sdk.load));
process.exitCode = mcp.roundTrip <= AIM && mcp.load <= AIM ? 0 : 1;
