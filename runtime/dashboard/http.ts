/** The small HTTP kit of the dashboard's routes: query parameters checked, JSON answers, private routes. */
import { REQUEST_ID_HEADER, sendJson, type RouteContext } from "../component/index.js";
import { requestIdOf } from "../context/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import type { ContentEncoding, EncodedJson } from "./encoded-json.js";

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
 * An answer encoded once (encoded-json.ts): its bytes as they are, compressed when the client accepts
 * it and the variant is ready, or 304 when the client already holds this ETag. `no-cache` rather than
 * `no-store` so a browser keeps the last answer and asks with If-None-Match: every poll is still
 * checked with the dashboard, but an unchanged list is not sent again.
 */
export function sendEncoded(ctx: RouteContext, encoded: EncodedJson): void {
  ctx.status = 200;
  ctx.set("Cache-Control", "no-cache");
  ctx.set("ETag", encoded.etag);
  varyOn(ctx, "Accept-Encoding");
  if (holds(ctx.get("If-None-Match"), encoded.etag)) {
    ctx.status = 304;
    return;
  }
  const { body, encoding } = variantFor(encoded, ctx.get("Accept-Encoding"));
  // Set before the body: for a Buffer the body setter would otherwise say application/octet-stream. The value is sendJson's.
  ctx.set("Content-Type", "application/json; charset=utf-8");
  if (encoding !== undefined) ctx.set("Content-Encoding", encoding);
  ctx.body = body;
}

/** Adds a field to the response's Vary, keeping what CORS put there (`Origin`). */
function varyOn(ctx: RouteContext, field: string): void {
  const current = ctx.res.getHeader("Vary");
  const list = current === undefined ? "" : String(current);
  if (list === "") ctx.set("Vary", field);
  else if (
    !list
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes(field.toLowerCase())
  )
    ctx.set("Vary", `${list}, ${field}`);
}

/** If-None-Match's weak comparison (RFC 9110 13.1.2): `*`, or any listed tag equal to ours with W/ ignored. */
function holds(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === "") return false;
  const ours = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === ours;
  });
}

/**
 * The first variant the client accepts that is ready, else the bytes as they are: a client accepting
 * both gets gzip while Brotli is still being made, rather than the plain megabyte.
 */
export function variantFor(encoded: EncodedJson, acceptEncoding: string): { body: Buffer; encoding?: ContentEncoding } {
  for (const encoding of acceptedEncodings(acceptEncoding)) {
    const body = encoded.compressed(encoding);
    if (body !== undefined) return { body, encoding };
  }
  return { body: encoded.identity };
}

const ENCODINGS: readonly ContentEncoding[] = ["br", "gzip"];

/** The codings Accept-Encoding allows (q above 0, by name or `*`), Brotli first: it is the smaller. */
function acceptedEncodings(acceptEncoding: string): ContentEncoding[] {
  if (acceptEncoding === "") return [];
  const q = new Map<string, number>();
  for (const part of acceptEncoding.slice(0, 512).split(",")) {
    const [name = "", ...params] = part.split(";");
    const weight = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p)).find((m) => m !== null);
    q.set(name.trim().toLowerCase(), weight === undefined ? 1 : Number(weight![1]));
  }
  const allowed = (name: string): boolean => (q.get(name) ?? q.get("*") ?? 0) > 0;
  return ENCODINGS.filter(allowed);
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
