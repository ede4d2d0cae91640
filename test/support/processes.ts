/**
 * Child processes for a suite, one way: start, wait until ready, read what they print, stop. When the
 * suite fails (uvu sets `process.exitCode = 1`), every process it started is reported on stderr as the
 * suite exits: its command, how it ended, and the last lines it printed, so a failing end-to-end test
 * shows the server's side of the story instead of only `ECONNREFUSED`.
 *
 * How to use it (instead of a local `spawn` helper):
 *
 *     import { startProcess } from "../support/processes.js";
 *     let tool: Started;
 *     test.before(async () => {
 *       tool = await startProcess({
 *         name: "trip tool",
 *         entry: "test/e2e/fixtures/trip-tool.ts",     // TypeScript, run under tsx (TS_NODE_ARGS)
 *         env: { PORT: "0", HOST: "127.0.0.1" },        // over process.env (`cleanEnv: true`: instead of it)
 *         ready: { line: /"event":"listening","url":"([^"]+)"/ }, // group 1, if any, is `url`
 *       });
 *     });
 *     test.after(() => stopAll());
 *
 * - `port: "free"` picks a free loopback port and sets PORT (or `portEnv`); `ready: { health: "/health" }`
 *   then waits until `GET <url>/health` answers 200.
 * - `command: [program, ...args]` runs something other than a TypeScript entry (e.g. `node dist/serve.js`).
 * - `waitForLine(match)` / `waitForOutput(pattern)` wait for later output; `stdout()`, `stderr()` and
 *   `lines()` return it; `stop()` sends SIGTERM, then SIGKILL if it has not exited within the limit.
 * - A process still running when the suite's process exits is killed (SIGKILL).
 *
 * Switching from test/e2e/helpers.ts: `startFixture(file, env)` is `startProcess({ name: file, entry:
 * `test/e2e/fixtures/${file}`, env: { PORT: "0", HOST: "127.0.0.1", ...env }, ready: { line:
 * /"event":"listening","url":"([^"]+)"/ } })`; its `events()` are `lines()` parsed as JSON, `waitForLog`
 * is `waitForOutput(pattern, "stderr")`, and `killAll()` is `stopAll({ signal: "SIGKILL" })`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.js";
import { TS_NODE_ARGS } from "./ts-node-args.js";
import { eventually, WAIT_LIMIT_MS, within } from "./wait.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Lines of output kept for the failure report (stdout and stderr interleaved). */
export const TAIL_LINES = 60;

/** Output kept in full for assertions, per stream; beyond it the oldest part goes (a chatty process must not grow the suite without end). */
const KEPT_CHARS = 4 * 1024 * 1024;

export type Readiness =
  /** A stdout line matches; its first capture group, if it has one, becomes `url`. */
  | { readonly line: RegExp }
  /** `GET <url><path>` answers 200 (needs `port`). */
  | { readonly health: string };

export interface ProcessOptions {
  /** Names the process in messages and in the failure report. */
  readonly name: string;
  /** A TypeScript file, run with node and TS_NODE_ARGS (relative to `cwd`). */
  readonly entry?: string;
  readonly args?: readonly string[];
  /** Instead of `entry`: a program and its arguments, run as they are. */
  readonly command?: readonly [string, ...string[]];
  /** @defaultValue the repository root */
  readonly cwd?: string;
  /** Added over process.env, or, with `cleanEnv`, the whole environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cleanEnv?: boolean;
  /** `"free"`: a free loopback port, passed in `portEnv`. */
  readonly port?: number | "free";
  /** @defaultValue "PORT" */
  readonly portEnv?: string;
  /** Without one, `startProcess` resolves once the process is spawned. */
  readonly ready?: Readiness;
  /** How long to wait for readiness. @defaultValue WAIT_LIMIT_MS */
  readonly limitMs?: number;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  /** The port given with `port`, if any. */
  readonly port?: number;
  /** From the readiness line's capture group, or `http://127.0.0.1:<port>`. */
  readonly url?: string;
  /** The stdout line that made it ready, with its match. */
  readonly readyMatch?: RegExpExecArray;
  /** Resolves when it exits. */
  readonly exited: Promise<Exit>;
  /** Its exit, once it has exited. */
  exit(): Exit | undefined;
  stdout(): string;
  stderr(): string;
  /** Complete stdout lines so far. */
  lines(): readonly string[];
  /** The last `TAIL_LINES` lines of stdout and stderr together. */
  tail(): string;
  /** The first stdout line (seen already or later) matching; fails if the process exits first. */
  waitForLine(match: RegExp | ((line: string) => boolean), what?: string, limitMs?: number): Promise<string>;
  /** Waits until stdout or stderr (`stream`) matches `pattern`; fails if the process exits first. */
  waitForOutput(pattern: RegExp, stream?: "stdout" | "stderr"): Promise<void>;
  /** SIGTERM (or `signal`), then SIGKILL after `limitMs`; resolves with how it exited. */
  stop(options?: { readonly signal?: NodeJS.Signals; readonly limitMs?: number }): Promise<Exit>;
  /** SIGKILL, as a crash. */
  kill(): Promise<Exit>;
}

interface Entry {
  readonly name: string;
  readonly command: string;
  readonly started: Started;
}

const started: Entry[] = [];

/** A bounded list of the last lines of a stream pair; a partial last line is kept until its newline. */
function ring(): { push(stream: string, text: string): void; text(): string } {
  const lines: string[] = [];
  const partial: Record<string, string> = {};
  return {
    push(stream, text) {
      const parts = ((partial[stream] ?? "") + text).split("\n");
      partial[stream] = parts.pop()!;
      for (const line of parts) lines.push(line);
      if (lines.length > TAIL_LINES) lines.splice(0, lines.length - TAIL_LINES);
    },
    text() {
      const open = Object.values(partial).filter((p) => p !== "");
      return [...lines, ...open].slice(-TAIL_LINES).join("\n");
    },
  };
}

function argv(options: ProcessOptions): readonly [string, ...string[]] {
  if (options.command !== undefined) return options.command;
  if (options.entry === undefined) throw new Error(`${options.name}: give an entry or a command`);
  return [process.execPath, ...TS_NODE_ARGS, options.entry, ...(options.args ?? [])];
}

function describeExit(exit: Exit | undefined): string {
  if (exit === undefined) return "still running (killed as the suite exits)";
  return exit.signal === null ? `exited with code ${exit.code}` : `ended by ${exit.signal}`;
}

/**
 * Takes a child a suite spawned its own way under watch: its output is kept and, when the suite
 * fails, reported with the others (command, exit, last lines). For helpers that predate `startProcess`.
 */
export function adopt(name: string, command: readonly string[], child: ChildProcess): Started {
  const proc = watch(name, child, undefined);
  started.push({ name, command: command.join(" "), started: proc });
  return proc;
}

/** Starts a process; resolves once it is ready, or fails with its last output if it exits or never gets ready. */
export async function startProcess(options: ProcessOptions): Promise<Started> {
  const port = options.port === "free" ? await freePort() : options.port;
  const env = {
    ...(options.cleanEnv === true ? {} : process.env),
    ...options.env,
    ...(port === undefined ? {} : { [options.portEnv ?? "PORT"]: String(port) }),
  };
  const [program, ...args] = argv(options);
  const child = spawn(program, args, { cwd: options.cwd ?? ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const proc = watch(options.name, child, port);
  started.push({ name: options.name, command: [program, ...args].join(" "), started: proc });
  const ready = options.ready;
  if (ready === undefined) return proc;
  try {
    if ("line" in ready) {
      const line = await proc.waitForLine(ready.line, `${options.name}: a line matching ${ready.line}`, options.limitMs);
      const match = ready.line.exec(line)!;
      return { ...proc, readyMatch: match, ...(match[1] !== undefined ? { url: match[1] } : {}) };
    }
    await waitForHealth(proc, ready.health, options.limitMs);
    return proc;
  } catch (error) {
    proc.child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n--- ${options.name}: last output ---\n${proc.tail()}`);
  }
}

async function waitForHealth(proc: Started, path: string, limitMs = WAIT_LIMIT_MS): Promise<void> {
  if (proc.url === undefined) throw new Error(`${proc.name}: a health check needs a port`);
  const url = `${proc.url}${path}`;
  await eventually(
    `${proc.name}: GET ${url} answering 200`,
    async () => {
      if (proc.exit() !== undefined) throw new Error(`${proc.name} ${describeExit(proc.exit())} before ${url} answered`);
      return fetch(url).then(
        (response) => response.status === 200,
        () => false,
      );
    },
    { limitMs, intervalMs: 100 },
  );
}

/** The Started handle over a spawned child: output capture, waits and stopping. */
function watch(name: string, child: ChildProcess, port: number | undefined): Started {
  const tail = ring();
  const text = { stdout: "", stderr: "" };
  const lines: string[] = [];
  let partialLine = "";
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => resolve((exit = { code, signal })));
  });
  child.stdout!.setEncoding("utf8").on("data", (part: string) => {
    text.stdout = (text.stdout + part).slice(-KEPT_CHARS);
    tail.push("stdout", part);
    const parts = (partialLine + part).split("\n");
    partialLine = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.setEncoding("utf8").on("data", (part: string) => {
    text.stderr = (text.stderr + part).slice(-KEPT_CHARS);
    tail.push("stderr", part);
  });
  const gone = (what: string): never => {
    throw new Error(`${name} ${describeExit(exit)} before ${what}\n--- ${name}: last output ---\n${tail.text()}`);
  };
  const waitForLine = (match: RegExp | ((line: string) => boolean), what = `${name}: a line matching ${String(match)}`, limitMs = WAIT_LIMIT_MS) => {
    const test = typeof match === "function" ? match : (line: string) => match.test(line);
    return eventually(what, () => lines.find(test) ?? (exit !== undefined ? gone(what) : undefined), { limitMs });
  };
  const stop = async ({ signal = "SIGTERM" as NodeJS.Signals, limitMs = WAIT_LIMIT_MS } = {}): Promise<Exit> => {
    if (exit !== undefined) return exit;
    child.kill(signal);
    // A hang guard: a process that ignores the signal is killed, and its exit says so (signal SIGKILL).
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  return {
    name,
    child,
    ...(port !== undefined ? { port, url: `http://127.0.0.1:${port}` } : {}),
    exited,
    exit: () => exit,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    lines: () => lines,
    tail: () => tail.text(),
    waitForLine,
    waitForOutput: async (pattern, stream = "stdout") => {
      const what = `${name}: ${stream} matching ${pattern}`;
      await eventually(what, () => pattern.test(text[stream]) || (exit !== undefined ? gone(what) : false));
    },
    stop,
    kill: () => stop({ signal: "SIGKILL" }),
  };
}

/** Stops every process started here that is still running (for `after` hooks). */
export async function stopAll(options?: { readonly signal?: NodeJS.Signals; readonly limitMs?: number }): Promise<void> {
  await within("every started process to stop", Promise.all(started.map((r) => r.started.stop(options))));
}

/** The report printed when the suite fails: each process's command, how it ended, and its last lines. */
function processReport(): string {
  return started
    .map(({ name, command, started: proc }) => {
      const body = proc.tail().replace(/^/gm, "  | ");
      return `[processes] ${name}: ${command}\n[processes] ${name} ${describeExit(proc.exit())}; its last ${TAIL_LINES} lines of output:\n${body}`;
    })
    .join("\n");
}

process.on("exit", (code) => {
  // uvu sets process.exitCode = 1 when a test failed; a crash exits non-zero too.
  if (code !== 0 && started.length > 0) process.stderr.write(`\n${processReport()}\n`);
  for (const { started: proc } of started) if (proc.exit() === undefined) proc.child.kill("SIGKILL");
});
