/**
 * The workflow executor's health-check operation (SPEC "Outbound calls made by the orchestrator"):
 * a GET of a component's `/health` through the orchestrator's caller, so it resolves the token and
 * the propagated headers exactly as a step's call does (per call > request context > configured).
 */
import { defaultRegistry, discover, type Registry } from "../discovery/index.js";
import { ManifoldError, toManifoldError, type ErrorCode } from "../errors/index.js";
import type { Caller } from "../outbound/index.js";
import { checkBaseUrl } from "./resolver.js";

export interface HealthCheckOptions {
  /** Wins over the request context's token and the configured one, as for a step. */
  readonly token?: string;
  /** Propagated headers for this probe; win over the context's and the configured ones. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** @defaultValue the caller's timeout */
  readonly timeoutMs?: number;
}

export interface HealthCheckResult {
  readonly component: string;
  /** What `/health` reported; `unhealthy` also when it answered 503 or could not be reached. */
  readonly status: "healthy" | "degraded" | "unhealthy";
  /** Why a probe that failed counts as unhealthy. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

export interface HealthCheckSetup {
  readonly caller: Caller;
  readonly baseUrls?: Readonly<Record<string, string>>;
  readonly registry?: Registry | false;
}

export type HealthCheck = (component: string, options?: HealthCheckOptions) => Promise<HealthCheckResult>;

export function createHealthCheck({ caller, baseUrls = {}, registry }: HealthCheckSetup): HealthCheck {
  const finders = new Map<string, () => Promise<string>>();
  /** Where the component is: its configured base URL, else discovery (round-robin over healthy replicas). */
  const baseOf = (component: string): string | Promise<string> => {
    const base = baseUrls[component];
    if (base !== undefined) return checkBaseUrl(base, `baseUrls.${component}`);
    if (registry === false) throw new ManifoldError("NOT_FOUND", `no base URL for ${component} and no registry to find it in`);
    let find = finders.get(component);
    if (find === undefined) finders.set(component, (find = discover(registry ?? defaultRegistry(), component)));
    return find();
  };
  return async (component, options = {}) => {
    const base = await baseOf(component);
    const { token, headers, signal, timeoutMs } = options;
    try {
      const body = await caller.call({
        url: `${base}/health`,
        method: "GET",
        body: undefined,
        name: "health",
        target: component,
        ...(token === undefined ? {} : { token }),
        ...(headers === undefined ? {} : { headers }),
        ...(signal === undefined ? {} : { signal }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      const reported = (body as { status?: unknown } | null)?.status;
      return { component, status: reported === "degraded" ? "degraded" : "healthy" };
    } catch (thrown) {
      const error = toManifoldError(thrown);
      // The caller's own abort is not the component's health.
      if (error.code === "ABORTED") throw error;
      return { component, status: "unhealthy", error: { code: error.code, message: error.expose ? error.message : "internal error" } };
    }
  };
}
