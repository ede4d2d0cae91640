import type { HealthCheck, ReportedHealth } from "./types.js";

export interface HealthProbeOptions {
  /** A check that has not answered by then counts as unhealthy. @defaultValue 2000 */
  readonly timeoutMs?: number;
  readonly log?: (message: string) => void;
}

const REPORTED: readonly unknown[] = ["healthy", "degraded", "unhealthy"];

/**
 * The component's health hook made safe to call from a heartbeat and from `GET /health`: never
 * rejects, never hangs, and anything but a valid state is `unhealthy`. A failing hook is logged when
 * it starts failing, not on every probe.
 */
export function createHealthProbe(
  check: HealthCheck | undefined,
  { timeoutMs = 2_000, log = () => undefined }: HealthProbeOptions = {},
): () => Promise<ReportedHealth> {
  if (check === undefined) return () => Promise.resolve("healthy");
  let failing = false;
  const fail = (why: string): ReportedHealth => {
    if (!failing) log(`health check ${why}; reporting unhealthy`);
    failing = true;
    return "unhealthy";
  };
  return async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    try {
      const state = await Promise.race([Promise.resolve().then(check), timeout]);
      if (state === "timeout") return fail(`did not answer within ${timeoutMs} ms`);
      if (!REPORTED.includes(state)) return fail(`returned ${JSON.stringify(state)}, not healthy, degraded or unhealthy`);
      failing = false;
      return state;
    } catch (error) {
      return fail(`threw: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  };
}
