/**
 * How far below fastify's CPU per request any node:http server can get on bench:http's capability
 * POST: the variants of server-ceiling.ts, fastify and the generated component, each in its own
 * process, loaded in turn by the same autocannon load (a fixed number of requests, 50 connections),
 * the order alternating each round. The figure is the server process's CPU time (process.cpuUsage,
 * user + system) over those requests, per request: what a busy shared machine disturbs least.
 * Each ratio is fastify's µs/req over the variant's, the median of the per-round ratios.
 *
 *   npx tsx --conditions=source bench/http/ceiling.ts
 *   CEILING_REQUESTS=20000 CEILING_ROUNDS=9 CEILING_ONLY=base,flat   (variant names, comma-separated)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { withTimeout } from "../../test/runtime/support.js";
import { cpuMicros } from "./cpu.js";
import { ensureBuilt, runtimeNodeArgs } from "./runtime-args.js";
import { BODY, PATH } from "./spec.js";

const REQUESTS = Number(process.env["CEILING_REQUESTS"] ?? 20_000);
const ROUNDS = Number(process.env["CEILING_ROUNDS"] ?? 9);
const here = fileURLToPath(new URL(".", import.meta.url));

interface Target {
  readonly name: string;
  readonly file: string;
  readonly variant?: string;
  /** Runs the runtime from tsc's output (dist, as users run it) instead of its TypeScript sources under tsx. */
  readonly built?: boolean;
}

const ceiling = (name: string, variant: string): Target => ({ name, file: resolve(here, "server-ceiling.ts"), variant });
const ALL: readonly Target[] = [
  { name: "fastify", file: resolve(here, "server-fastify.ts") },
  { name: "generated", file: resolve(here, "server-generated.ts") },
  { name: "generated-built", file: resolve(here, "server-generated.ts"), built: true },
  ceiling("base", ""),
  ceiling("flat", "flat"),
  ceiling("set", "set"),
  ceiling("forawait", "forawait"),
  ceiling("buffer", "buffer"),
  ceiling("length", "length"),
  ceiling("one", "one"),
  ceiling("opts", "opts"),
  ceiling("hwm", "hwm"),
  ceiling("nohost", "nohost"),
  ceiling("nodate", "nodate"),
  ceiling("ka0", "ka0"),
  ceiling("als", "als"),
  ceiling("id", "id"),
  ceiling("als+id", "als,id"),
  ceiling("last", "last"),
  ceiling("als+last", "als,last"),
  ceiling("als+id+last", "als,id,last"),
  ceiling("best", "flat,one,opts"),
  ceiling("best+nodate+ka0", "flat,one,opts,nodate,ka0"),
];
const ONLY = process.env["CEILING_ONLY"]?.split(",");
const TARGETS = ALL.filter((target) => target.name === "fastify" || ONLY === undefined || ONLY.includes(target.name));

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function start(target: Target): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...runtimeNodeArgs(target.built === true), target.file], {
    cwd: resolve(here, "../.."),
    env: { ...process.env, PORT: "0", NODE_ENV: "production", CEILING_VARIANT: target.variant ?? "" },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  children.add(child);
  const lines = createInterface({ input: child.stdout! });
  const url = await withTimeout(
    new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`${target.name} exited with ${code}`)));
      lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    }),
    30_000,
    `${target.name} start`,
  );
  return { child, url };
}

const load = (url: string, amount: number) =>
  autocannon({ url: url + PATH, connections: 50, pipelining: 1, method: "POST", headers: { "content-type": "application/json" }, body: BODY, amount } as never);

async function measure(name: string, child: ChildProcess, url: string): Promise<number> {
  const before = await cpuMicros(child);
  const result = await load(url, REQUESTS);
  const after = await cpuMicros(child);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return (after - before) / result.requests.total;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const servers = new Map<Target, { child: ChildProcess; url: string }>();
const cpu = new Map<Target, number[]>();
const loads: number[] = [];
if (TARGETS.some((target) => target.built === true)) ensureBuilt();
try {
  for (const target of TARGETS) {
    const server = await start(target);
    servers.set(target, server);
    const check = await fetch(server.url + PATH, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
    const text = await check.text();
    if (check.status !== 200 || text !== '{"city":"Lisbon","total":361.5}') throw new Error(`${target.name} answered ${check.status} ${text}`);
    await load(server.url, REQUESTS);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? TARGETS : [...TARGETS].reverse();
    for (const target of order) {
      const { child, url } = servers.get(target)!;
      cpu.set(target, [...(cpu.get(target) ?? []), await measure(target.name, child, url)]);
    }
    loads.push(loadavg()[0]!);
    process.stderr.write(`round ${round + 1}/${ROUNDS}, load ${loadavg()[0]!.toFixed(2)}\n`);
  }
} finally {
  for (const { child } of servers.values()) child.kill("SIGTERM");
}

const fastify = cpu.get(TARGETS[0]!)!;
console.log(
  `\n${REQUESTS} POSTs per measurement, 50 connections, ${ROUNDS} alternating rounds, node ${process.version}, load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
);
console.log(`${"server".padEnd(26)}${"CPU µs/req".padStart(11)}${"fastify/it".padStart(12)}   variant`);
for (const target of TARGETS) {
  const mine = cpu.get(target)!;
  const ratio = median(mine.map((value, i) => fastify[i]! / value));
  console.log(`${target.name.padEnd(26)}${median(mine).toFixed(1).padStart(11)}${ratio.toFixed(3).padStart(12)}   ${target.variant ?? ""}`);
}
