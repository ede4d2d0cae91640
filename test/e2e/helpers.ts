/** Starts fixture components as real child processes and watches what they print. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { adopt } from "../support/processes.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { withTimeout } from "../runtime/support.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Fixture {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resolves with the first stdout JSON line matching `test`, including lines already seen. */
  waitFor(test: (event: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** Every stdout JSON line so far, in order. */
  events(): readonly Record<string, unknown>[];
  /** Everything written to stderr so far (the component's log). */
  stderr(): string;
  /** Resolves once stderr matches `pattern`. */
  waitForLog(pattern: RegExp, ms?: number): Promise<void>;
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** The fixture from source, as a real process: the same resolution generated code gets under tsx. */
export async function startFixture(file: string, env: Record<string, string> = {}): Promise<Fixture> {
  const argv = [...TS_NODE_ARGS, fileURLToPath(new URL(`fixtures/${file}`, import.meta.url))];
  const child = spawn(process.execPath, argv, {
    cwd: root,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", MANIFOLD_ENABLE_OPENAPI: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  // Its output goes into the suite's failure report (test/support/processes.ts).
  adopt(file, [process.execPath, ...argv], child);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? "unknown");
    });
  });
  let errText = "";
  const logWaiters = new Set<() => void>();
  child.stderr!.setEncoding("utf8").on("data", (part: string) => {
    errText += part;
    for (const wake of logWaiters) wake();
  });
  const waitForLog: Fixture["waitForLog"] = (pattern, ms = 10_000) =>
    withTimeout(
      new Promise<void>((resolve) => {
        const wake = (): void => {
          if (!pattern.test(errText)) return;
          logWaiters.delete(wake);
          resolve();
        };
        logWaiters.add(wake);
        wake();
      }),
      ms,
      `${file}: log ${pattern}`,
    );
  const events: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      events.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      events.push({ event: "text", line });
    }
    for (const wake of waiters) wake();
  });

  const waitFor: Fixture["waitFor"] = (test, ms = 20_000) =>
    withTimeout(
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = events.find(test);
          if (found === undefined) return false;
          waiters.delete(wake);
          resolve(found);
          return true;
        };
        const wake = (): void => void check();
        if (check()) return;
        waiters.add(wake);
        void exited.then((code) => {
          if (!check()) reject(new Error(`${file} exited (${code}) first; stderr:\n${errText}`));
        });
      }),
      ms,
      `${file}: stdout event`,
    );

  const listening = await waitFor((e) => e["event"] === "listening", 30_000);
  return { child, url: String(listening["url"]), waitFor, events: () => events, stderr: () => errText, waitForLog, exited };
}

/** For `after` hooks: nothing outlives the suite. */
export function killAll(): void {
  for (const child of running) child.kill("SIGKILL");
}
