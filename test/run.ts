/**
 * `npm test`: first the typecheck (`tsc --noEmit` over sources, tests and the type-level tests in
 * test/types), then every `*.test.ts` under test/ in its own process (suites start servers and child
 * processes; isolation keeps one suite's leftovers out of the next), two at a time, then one closing
 * line `N passed, N failed`. A type error fails the run before any suite starts. A suite that crashes
 * before uvu's summary, or reports no test at all, counts as one failure, and in CI a skipped test
 * counts as a failure: nothing may be skipped there.
 *
 * `TEST_ROOT` points the runner at another project (its own test runs it on fixture trees).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { staleBuildSource } from "../generator/stale-build.js";
import { TS_NODE_ARGS } from "./support/ts-node-args.js";

const root = resolve(process.env["TEST_ROOT"] ?? fileURLToPath(new URL("..", import.meta.url)));
const filter = process.argv.slice(2);

/** A whole number from `min` to `max` from the environment; anything else stops the run as a usage error (exit 2). */
function envInteger(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = /^[0-9]+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    console.error(`test/run: ${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw.slice(0, 40))}`);
    process.exit(2);
  }
  return value;
}

const SUITE_TIMEOUT_MS = envInteger("TEST_SUITE_TIMEOUT_MS", 10 * 60_000, 1_000, 24 * 60 * 60_000);
const CONCURRENCY = envInteger("TEST_CONCURRENCY", 2, 1, 64);

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
      if (total === 0) {
        resolve({ file, passed: 0, failed: 1, skipped: 0, output: `${output}\n[test/run] ${file} reported no tests\n`, ms });
        return;
      }
      const failed = total - passed - (Number.isNaN(skipped) ? 0 : skipped) + (code !== 0 && total === passed ? 1 : 0);
      resolve({ file, passed, failed, skipped: Number.isNaN(skipped) ? 0 : skipped, output, ms });
    });
  });
}

/** tsc with one of the project's tsconfigs; its output when it fails. */
function tsc(...args: string[]): Promise<string | undefined> {
  // The package's bin (its exports map hides the file): resolved from its package.json, from this runner.
  const bin = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => done(code === 0 ? undefined : output || `tsc exited ${code}`));
  });
}

const typeErrors = await tsc("-p", join(root, "tsconfig.json"), "--noEmit");
if (typeErrors !== undefined) {
  console.log(`FAIL typecheck (tsc --noEmit)\n${typeErrors.replace(/^/gm, "    ")}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
console.log("ok   typecheck (tsc --noEmit)");

// Suites that run the installed bin run dist/, which refuses to run when older than the sources: a
// checkout edited since its last build is built first, so `npm test` always tests what it checks out.
function staleBuild(): string | undefined {
  if (!existsSync(join(root, "tsconfig.build.json"))) return undefined; // a fixture tree (TEST_ROOT)
  const bin = join(root, "dist/generator/bin.js");
  if (!existsSync(bin)) return "missing";
  const newer = staleBuildSource(bin);
  return newer === undefined ? undefined : `older than ${newer}`;
}
const stale = staleBuild();
if (stale !== undefined) {
  const buildErrors = await tsc("-p", join(root, "tsconfig.build.json"));
  if (buildErrors !== undefined) {
    console.log(`FAIL build (tsc -p tsconfig.build.json)\n${buildErrors.replace(/^/gm, "    ")}`);
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
  console.log(`ok   build (dist/ was ${stale})`);
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
// Every suite found must have an outcome: a worker that died would otherwise shrink the run silently.
if (outcomes.length !== suites.length) {
  console.log(`${suites.length - outcomes.length} suites have no outcome`);
  failed += Math.abs(suites.length - outcomes.length);
}
if (inCi && skipped > 0) {
  console.log(`${skipped} skipped tests: nothing may be skipped in CI`);
  failed += skipped;
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exitCode = failed > 0 ? 1 : 0;
