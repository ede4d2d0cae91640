/**
 * Preloaded (`--import`) into every suite test/run.ts starts. It makes uvu report the failures it
 * would otherwise drop (see uvu-report-hooks.ts) and says what was running when a suite dies early:
 *
 * - each test's name, as it starts, goes to the file descriptor in MANIFOLD_TEST_PROGRESS_FD (the
 *   runner's side channel), so a suite killed for hanging is reported with the test that hung;
 * - `process.exit()` called while a test runs prints where it was called from;
 * - a process that exits while a test or hook is running (an unhandled rejection, an uncaught error)
 *   says which one, after Node has printed the error itself.
 */
import { writeSync } from "node:fs";
import { register } from "node:module";

declare global {
  // Called by the patched uvu runner; `undefined` once a suite's tests and hooks are done.
  var __manifoldUvuProgress: ((suite: string, label: string | undefined) => void) | undefined;
}

register("./uvu-report-hooks.ts", import.meta.url);

const progressFd = Number(process.env["MANIFOLD_TEST_PROGRESS_FD"] ?? NaN);
// Only this process writes there: a child the suite starts must not inherit the variable.
delete process.env["MANIFOLD_TEST_PROGRESS_FD"];

let running: string | undefined;

globalThis.__manifoldUvuProgress = (suite, label) => {
  running = label === undefined ? undefined : suite === "" ? label : `${suite} › ${label}`;
  if (!Number.isInteger(progressFd)) return;
  try {
    writeSync(progressFd, `${JSON.stringify({ running: running ?? null })}\n`);
  } catch {
    // The runner stopped reading; the report is a courtesy, the test goes on.
  }
};

const exit = process.exit.bind(process);
process.exit = ((code?: number | string | null) => {
  if (running !== undefined) {
    const where = (new Error().stack ?? "").split("\n").slice(2).join("\n");
    process.stderr.write(`process.exit(${code ?? ""}) called while "${running}" was running, at:\n${where}\n`);
  }
  return exit(code);
}) as typeof process.exit;

process.on("exit", (code) => {
  if (running !== undefined) process.stderr.write(`[uvu] the process exited (code ${code}) while "${running}" was running\n`);
});
