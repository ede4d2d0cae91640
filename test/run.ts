/**
 * `npm test`: every `*.test.ts` under test/ in its own process (suites start servers and child
 * processes; isolation keeps one suite's leftovers out of the next), two at a time, then one closing
 * line `N passed, N failed`. A suite that crashes before uvu's summary counts as one failure, and in
 * CI a skipped test counts as a failure: nothing may be skipped there.
 */
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { TS_NODE_ARGS } from "./support/ts-node-args.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const filter = process.argv.slice(2);
const SUITE_TIMEOUT_MS = Number(process.env["TEST_SUITE_TIMEOUT_MS"] ?? 10 * 60_000);
const CONCURRENCY = Number(process.env["TEST_CONCURRENCY"] ?? 2);

async function findSuites(): Promise<string[]> {
  const entries = await readdir(join(root, "test"), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".test.ts") && !e.parentPath.includes("node_modules"))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((f) => filter.length === 0 || filter.some((f2) => f.includes(f2)))
    .sort();
}

interface Outcome {
  readonly file: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly output: string;
  readonly ms: number;
}

const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "");

/** Process groups of running suites; a detached group does not get the terminal's Ctrl-C, so we pass it on. */
const groups = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const pid of groups) killGroup(pid);
    process.exit(130);
  });
}

function runSuite(file: string): Promise<Outcome> {
  const start = Date.now();
  return new Promise((resolve) => {
    // Its own process group, so that a suite killed for hanging takes the servers it started
    // (redis-server, fixture processes) with it.
    const child = spawn(process.execPath, [...TS_NODE_ARGS, file], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    groups.add(child.pid!);
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[test/run] ${file} killed after ${SUITE_TIMEOUT_MS / 1000} s\n`;
      killGroup(child.pid!);
    }, SUITE_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      groups.delete(child.pid!);
      const text = strip(output);
      const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN);
      const total = num("Total");
      const passed = num("Passed");
      const skipped = num("Skipped");
      const ms = Date.now() - start;
      if (Number.isNaN(total) || Number.isNaN(passed)) {
        resolve({ file, passed: 0, failed: 1, skipped: 0, output: `${output}\n[test/run] ${file} exited ${code} without a uvu summary\n`, ms });
        return;
      }
      const failed = total - passed - (Number.isNaN(skipped) ? 0 : skipped) + (code !== 0 && total === passed ? 1 : 0);
      resolve({ file, passed, failed, skipped: Number.isNaN(skipped) ? 0 : skipped, output, ms });
    });
  });
}

const suites = await findSuites();
const outcomes: Outcome[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < suites.length) {
    const file = suites[next++]!;
    const outcome = await runSuite(file);
    outcomes.push(outcome);
    const mark = outcome.failed > 0 ? "FAIL" : "ok  ";
    console.log(`${mark} ${file} (${outcome.passed} passed, ${outcome.failed} failed, ${(outcome.ms / 1000).toFixed(1)} s)`);
    if (outcome.failed > 0) console.log(outcome.output.replace(/^/gm, "    "));
  }
}
await Promise.all(Array.from({ length: Math.max(1, CONCURRENCY) }, worker));

const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const skipped = outcomes.reduce((n, o) => n + o.skipped, 0);
const inCi = process.env["CI"] === "true";
let failed = outcomes.reduce((n, o) => n + o.failed, 0);
if (suites.length === 0) failed += 1;
if (inCi && skipped > 0) {
  console.log(`${skipped} skipped tests: nothing may be skipped in CI`);
  failed += skipped;
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exitCode = failed > 0 ? 1 : 0;
