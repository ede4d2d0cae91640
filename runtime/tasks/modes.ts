/**
 * How a process takes part in the task system (`MANIFOLD_MODE`): `embedded` (the default, empty
 * variable) serves the task API and runs workers in one process; `api` serves HTTP only and leaves
 * the queue to worker processes; `worker` runs workers and serves only `GET /health` (serve it with
 * `healthOnly: isHealthOnly(mode)`). A deployment scales the two halves separately.
 */
export type TaskMode = "embedded" | "api" | "worker";

const MODES: ReadonlySet<string> = new Set<TaskMode>(["embedded", "api", "worker"]);

/** The mode from `MANIFOLD_MODE`; unset or empty is `embedded`. Anything else fails at startup. */
export function resolveMode(env: Readonly<Record<string, string | undefined>> = process.env): TaskMode {
  const value = (env["MANIFOLD_MODE"] ?? "").trim();
  if (value === "") return "embedded";
  if (MODES.has(value)) return value as TaskMode;
  // The value is configuration, not a secret, and quoting it is what makes the mistake obvious.
  throw new RangeError(`MANIFOLD_MODE must be empty (API and workers), "api" or "worker", not ${JSON.stringify(value.slice(0, 40))}`);
}

/** Checks a mode given in code (the `mode` option) as strictly as the environment variable. */
export function checkMode(mode: string): TaskMode {
  if (MODES.has(mode)) return mode as TaskMode;
  throw new RangeError(`mode must be "embedded", "api" or "worker", not ${JSON.stringify(String(mode).slice(0, 40))}`);
}

/** Whether the process answers task API requests. */
export function servesTaskApi(mode: TaskMode): boolean {
  return mode !== "worker";
}

/** Whether the process runs task handlers. */
export function runsWorkers(mode: TaskMode): boolean {
  return mode !== "api";
}

/** A worker process serves only `/health`: pass this as the component's `healthOnly` option. */
export function isHealthOnly(mode: TaskMode): boolean {
  return mode === "worker";
}
