/**
 * `npm test`: first the typecheck (`tsc --noEmit` over sources, tests and the type-level tests in
 * test/types), then every `*.test.ts` under test/ in its own process (suites start servers and child
 * processes; isolation keeps one suite's leftovers out of the next), two at a time, then one closing
 * line `N passed, N failed`. A type error fails the run before any suite starts. A suite that crashes
 * before uvu's summary, or reports no test at all, counts as one failure, and in CI a skipped test
 * counts as a failure: nothing may be skipped there.
 *
 * A failing suite says why before its output: the first failing test (or hook) with its message and
 * where it failed, or, for a suite killed for hanging or gone before uvu's summary, how it ended and
 * which test was running (each suite reports its progress on fd 3 through support/uvu-report.ts, which
 * also makes uvu report an error in a hook instead of dropping it). Long output is cut to its end.
 *
 * `TEST_ROOT` points the runner at another project (its own test runs it on fixture trees).
 */
import { spawn } from "node:child_process";
import { existsSync, chmodSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
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
  /** Why it failed, in a line or two: the first failing test and its message, or how the process ended. */
  readonly reason?: string;
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

/** Preloaded into every suite: uvu then reports a failing hook, and says which test is running (fd 3). */
const UVU_REPORT = fileURLToPath(new URL("./support/uvu-report.ts", import.meta.url));

/** How a suite's process ended, as the runner saw it. */
interface Ended {
  readonly output: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The test or hook running last, from the suite's progress channel; undefined between suites. */
  readonly running: string | undefined;
  readonly killed: boolean;
}

/** A progress line from uvu-report.ts: `{"running": "<suite> › <test>" | null}`. */
function progressLine(line: string, before: string | undefined): string | undefined {
  try {
    return (JSON.parse(line) as { running: string | null }).running ?? undefined;
  } catch {
    return before;
  }
}

function spawnSuite(file: string): Promise<Ended> {
  return new Promise((resolve) => {
    // Its own process group, so that a suite killed for hanging takes the servers it started
    // (redis-server, fixture processes) with it.
    const child = spawn(process.execPath, [...TS_NODE_ARGS, "--import", UVU_REPORT, file], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: "0", MANIFOLD_TEST_PROGRESS_FD: "3" },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      detached: true,
    });
    groups.add(child.pid!);
    let output = "";
    let running: string | undefined;
    let killed = false;
    child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    createInterface({ input: child.stdio[3] as Readable }).on("line", (line) => {
      running = progressLine(line, running);
    });
    const timer = setTimeout(() => {
      killed = true;
      killGroup(child.pid!);
    }, SUITE_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      groups.delete(child.pid!);
      resolve({ output, code, signal, running, killed });
    });
  });
}

async function runSuite(file: string): Promise<Outcome> {
  const start = Date.now();
  const ended = await spawnSuite(file);
  const ms = Date.now() - start;
  const { output } = ended;
  const text = strip(output);
  const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN);
  const total = num("Total");
  const passed = num("Passed");
  const skipped = Number.isNaN(num("Skipped")) ? 0 : num("Skipped");
  if (ended.killed || Number.isNaN(total) || Number.isNaN(passed)) {
    return { file, passed: 0, failed: 1, skipped: 0, output, ms, reason: earlyEnd(ended) };
  }
  if (total === 0) return { file, passed: 0, failed: 1, skipped: 0, output, ms, reason: `${file} reported no tests` };
  const failed = total - passed - skipped + (ended.code !== 0 && total === passed ? 1 : 0);
  if (failed === 0) return { file, passed, failed, skipped, output, ms };
  return { file, passed, failed, skipped, output, ms, reason: firstFailure(text) ?? `all ${total} tests passed, but the suite ${exitOf(ended)}` };
}

function exitOf({ code, signal }: Ended): string {
  return signal === null ? `exited with code ${code}` : `was ended by ${signal}`;
}

/** Why a suite gave no uvu summary: killed for hanging, or gone early (a crash, process.exit). */
function earlyEnd(ended: Ended): string {
  const how = ended.killed ? `killed after ${SUITE_TIMEOUT_MS / 1000} s (the suite timeout, TEST_SUITE_TIMEOUT_MS)` : `${exitOf(ended)} without uvu's summary`;
  const what = ended.running === undefined ? "no test was running (it ended outside uvu's tests and hooks)" : `"${ended.running}" was running`;
  return `${how}; ${what}`;
}

/**
 * uvu's first failure block: `FAIL <suite> "<test>"`, then the message, then the stack. Returns the
 * test, the message and the first stack line outside node_modules (where the assertion is).
 */
function firstFailure(text: string): string | undefined {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => /^\s+FAIL\s+(?:.+\s+)?".*"$/.test(l));
  if (at < 0) return undefined;
  const title = lines[at]!.trim().replace(/^FAIL\s+/, "");
  const message = lines[at + 1]?.trim() ?? "";
  const where = lines
    .slice(at + 2, at + 40)
    .map((l) => l.trim())
    .find((l) => l.startsWith("at ") && !l.includes("node_modules") && !l.includes("node:"));
  return `first failure: ${title}: ${message}${where === undefined ? "" : `\n${where}`}`;
}

/** Lines of a failed suite's output shown in full; beyond that, the last ones (and uvu's failure blocks). */
const SHOWN_LINES = 300;

/** What the run prints for a failed suite: the reason first, then its output, bounded but never without uvu's failures. */
function failureReport(outcome: Outcome): string {
  const lines = strip(outcome.output).trimEnd().split("\n");
  const parts = [`reason: ${outcome.reason ?? "see the output"}`];
  if (lines.length <= SHOWN_LINES) parts.push("--- output ---", ...lines);
  else {
    const tailFrom = lines.length - SHOWN_LINES;
    const failAt = lines.findIndex((l) => /^\s+FAIL\s/.test(l));
    parts.push(`--- output: the last ${SHOWN_LINES} of ${lines.length} lines ---`);
    if (failAt >= 0 && failAt < tailFrom) parts.push(...lines.slice(failAt, Math.min(tailFrom, failAt + SHOWN_LINES)), "[...]");
    parts.push(...lines.slice(tailFrom));
  }
  return parts.join("\n").replace(/^/gm, "    ");
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
  // tsc writes the bin without the executable bit; npm set it only when an install built dist/ (node_modules/.bin/manifold links to it).
  chmodSync(join(root, "dist/generator/bin.js"), 0o755);
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
    if (outcome.failed > 0) console.log(failureReport(outcome));
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
