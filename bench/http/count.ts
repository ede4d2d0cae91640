/**
 * Deterministic per-request figures for bench:http's two routes: promises created (async_hooks
 * PROMISE inits), other async resources and heap bytes allocated, per request, for the generated component, fastify and
 * bare node:http. Unlike req/s or CPU time they do not move with the machine's load, so a change
 * that saves a promise or an allocation shows here whatever else runs.
 *
 *   npx tsx --conditions=source bench/http/count.ts     COUNT_REQUESTS=2000
 */
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { withTimeout } from "../../test/runtime/support.js";
import { TS_NODE_ARGS } from "../../test/support/ts-node-args.js";
import { BODY, ITEM_PATH, PATH } from "./spec.js";

const REQUESTS = Number(process.env["COUNT_REQUESTS"] ?? 2_000);
const here = fileURLToPath(new URL(".", import.meta.url));
const TARGETS = [
  ["generated", "server-generated.ts"],
  ["fastify", "server-fastify.ts"],
  ["bare node:http", "server-bare.ts"],
  ...(process.env["COUNT_BEFORE"] === undefined ? [] : [["before: generated", resolve(process.env["COUNT_BEFORE"], "bench/http/server-generated.ts")]]),
] as const;
const SCENARIOS = [
  { name: "capability POST", path: PATH, method: "POST" as const, headers: { "content-type": "application/json" }, body: BODY },
  { name: "GET :param", path: ITEM_PATH, method: "GET" as const },
];

interface Counts {
  readonly promises: number;
  readonly resources: number;
  readonly collections: number;
  readonly heapUsed: number;
}

function ask(child: ChildProcess, message: "count" | "heap"): Promise<Counts> {
  return withTimeout(
    new Promise<Counts>((resolve) => {
      child.once("message", (reply) => resolve(reply as Counts));
      child.send(message);
    }),
    10_000,
    "count probe",
  );
}

async function start(file: string): Promise<{ child: ChildProcess; url: string }> {
  // A young generation large enough that a measured run of requests allocates without a collection.
  const child = spawn(process.execPath, ["--expose-gc", "--min-semi-space-size=64", "--max-semi-space-size=64", ...TS_NODE_ARGS, resolve(here, file)], {
    cwd: resolve(here, "../.."),
    env: { ...process.env, PORT: "0", NODE_ENV: "production", BENCH_COUNT: "1" },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const line = await withTimeout(new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve)), 90_000, `${file} start`);
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

const rows: string[] = [];
for (const [name, file] of TARGETS) {
  const { child, url } = await start(file);
  try {
    for (const scenario of SCENARIOS) {
      const load = {
        url: url + scenario.path,
        connections: 10,
        method: scenario.method,
        ...("body" in scenario ? { headers: scenario.headers, body: scenario.body } : {}),
      };
      await autocannon({ ...load, amount: 3_000 }); // warm: the JIT, the route table, lazy parts
      const figures: string[] = [];
      for (let run = 0; run < 2; run++) {
        const base = await ask(child, "count");
        const start = await ask(child, "heap");
        const result = await autocannon({ ...load, amount: REQUESTS });
        const end = await ask(child, "heap");
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name} ${scenario.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const n = result.requests.total;
        const heap = end.collections === start.collections ? `${((end.heapUsed - base.heapUsed) / n).toFixed(0)} B` : "(collected)";
        figures.push(
          `${((end.promises - start.promises) / n).toFixed(2)} promises, ${((end.resources - start.resources) / n).toFixed(2)} other resources, ${heap}`,
        );
      }
      rows.push(`${name.padEnd(20)} ${scenario.name.padEnd(16)} ${figures.join("   |   ")}`);
    }
  } finally {
    child.kill("SIGTERM");
  }
}
console.log(`\nper request, ${REQUESTS} requests, 10 connections, two runs each:\n${rows.join("\n")}`);
