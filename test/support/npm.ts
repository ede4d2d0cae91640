/**
 * Running npm (and other commands) from the suites that pack and install the package as a user would
 * (test/e2e/package-install, test/e2e/init): the caller's npm configuration minus what an enclosing
 * `npm run` points at this repository, a bounded run, and the output kept for a failure's message.
 */
import { spawnSync } from "node:child_process";

/** npm with the caller's configuration (registry, cache, CA), minus what an enclosing `npm run` points at this repository. */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: "false", npm_config_loglevel: "error" };
  for (const key of Object.keys(env)) if (/^npm_(package_|lifecycle_|config_(local_prefix|global_prefix|prefix)$)/i.test(key)) delete env[key];
  return env;
}

export interface Ran {
  readonly ok: boolean;
  readonly status: number | null;
  readonly output: string;
  readonly stdout: string;
}

/** A command to its end within `timeoutMs` (then SIGKILL): its exit status and what it printed. Logs how long it took. */
export function run(label: string, command: string, args: readonly string[], cwd: string, timeoutMs: number): Ran {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd, env: npmEnv(), encoding: "utf8", timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 });
  const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const ended = result.error !== undefined ? `failed: ${result.error.message}` : `exited ${result.status ?? result.signal} after ${took}`;
  const output = `$ ${[command, ...args].join(" ")}  (in ${cwd}; ${ended})\n${result.stdout ?? ""}${result.stderr ?? ""}`;
  console.log(`  ${label}: ${took}`);
  return { ok: result.status === 0, status: result.status, output, stdout: result.stdout ?? "" };
}
