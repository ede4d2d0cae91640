/** The small HTTP kit of the dashboard's routes: query parameters checked, JSON answers, private routes. */
import { REQUEST_ID_HEADER, sendJson, type RouteContext } from "../component/index.js";
import { requestIdOf } from "../context/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";

/** One query parameter: absent or empty is undefined, a repeated one is refused. */
export function queryOf(ctx: RouteContext, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value))
    throw new ManifoldError("INVALID_INPUT", `query parameter ${name} is given more than once`, {
      details: [{ pointer: `/${name}`, message: "must be given once" }],
    });
  return value === undefined || value === "" ? undefined : value;
}

export function limitOf(ctx: RouteContext, fallback: number, max: number): number {
  const text = queryOf(ctx, "limit");
  if (text === undefined) return fallback;
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= max))
    throw new ManifoldError("INVALID_INPUT", `limit must be a whole number from 1 to ${max}`, {
      details: [{ pointer: "/limit", message: `from 1 to ${max}` }],
    });
  return value;
}

export function oneOf<T extends string>(ctx: RouteContext, name: string, allowed: readonly T[]): T | undefined {
  const value = queryOf(ctx, name);
  if (value === undefined || allowed.includes(value as T)) return value as T | undefined;
  throw new ManifoldError("INVALID_INPUT", `${name} must be one of ${allowed.join(", ")}`, {
    details: [{ pointer: `/${name}`, message: `one of ${allowed.join(", ")}` }],
  });
}

export function sendValue(ctx: RouteContext, value: unknown): void {
  ctx.set(REQUEST_ID_HEADER, requestIdOf(ctx.req));
  ctx.set("Cache-Control", "no-store");
  sendJson(ctx, 200, JSON.stringify(value));
}

/**
 * Debug data (prompts, conversations, checkpoints) is for the dashboard's own pages: these routes
 * drop `Access-Control-Allow-Origin` even for an origin the dashboard's `MANIFOLD_CORS_ORIGINS`
 * lists, so no other site's script can read them from a browser that can reach the dashboard.
 */
export function privateRoute(handler: (ctx: RouteContext) => void | Promise<void>): (ctx: RouteContext) => Promise<void> {
  return async (ctx) => {
    ctx.remove("Access-Control-Allow-Origin");
    await handler(ctx);
  };
}

export type RouteWrapper = (handler: (ctx: RouteContext) => void | Promise<void>) => (ctx: RouteContext) => Promise<void>;

/**
 * A private route that reads a store: while the store is unreachable it answers 503 `UNAVAILABLE`
 * at once (within `available`'s own bound) instead of a timed-out command's 500, and a store
 * client's own error (not a ManifoldError) met during an outage becomes that 503 too.
 */
export function storeRoute(available: () => Promise<boolean>): RouteWrapper {
  const unavailable = (cause?: unknown) =>
    new ManifoldError("UNAVAILABLE", "the store is unreachable: Redis is not connected", cause === undefined ? {} : { cause });
  return (handler) =>
    privateRoute(async (ctx) => {
      if (!(await available())) throw unavailable();
      try {
        await handler(ctx);
      } catch (error) {
        if (!isManifoldError(error) && !(await available())) throw unavailable(error);
        throw error;
      }
    });
}
