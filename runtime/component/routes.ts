import Router, { type Layer, type RouterContext } from "@koa/router";
import type { Middleware } from "koa";
import { ManifoldError } from "../errors/index.js";
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS } from "./reply.js";
import type { CorsPolicy } from "./trust.js";

/** The Koa context of a route: `ctx.params` holds the named parameters of its path (`/api/v1/tasks/:task_id`). */
export type RouteContext = RouterContext;
export type RouteHandler = (ctx: RouteContext) => void | Promise<void>;
/** Adds one route; a path may name parameters (`:task_id`), read back from `ctx.params`. */
export type AddRoute = (method: string, path: string, handler: RouteHandler) => void;

export interface RouteTable {
  readonly add: AddRoute;
  /** Dispatch, then the answers a route table owes: 404 for an unknown path, CORS preflight, 405 with Allow. */
  middleware(): Middleware;
  /** The route template serving `path` (`/api/v1/tasks/:task_id`), for the span's `http.route`; undefined for a 404. */
  match(path: string): string | undefined;
}

/** `GET, HEAD, POST, OPTIONS` from the layers matching a path, in registration order. */
function allowOf(layers: readonly Layer[]): string {
  const methods = new Set<string>();
  for (const layer of layers) for (const method of layer.methods) if (method !== "HEAD" && method !== "OPTIONS") methods.add(method);
  const list = [...methods];
  if (methods.has("GET")) list.push("HEAD");
  return [...list, "OPTIONS"].join(", ");
}

/**
 * Every route that is not a capability POST's fast path goes through @koa/router (named parameters,
 * HEAD for GET). Strict and case-sensitive, so `/health/` and `/Health` are 404 as before. Its own
 * `allowedMethods()` answers OPTIONS with 200 and a bare 405 body; ours answers in the error envelope
 * and answers a browser's CORS preflight for an allowlisted origin only: any other origin's is 403,
 * which a browser reports as a failed preflight and a person debugging can read.
 */
export function createRouteTable(cors: CorsPolicy): RouteTable {
  const router = new Router({ strict: true, sensitive: true });
  const taken = new Set<string>();
  const add: AddRoute = (method, path, handler) => {
    const key = `${method} ${path}`;
    if (taken.has(key)) throw new TypeError(`two routes for ${key}`);
    taken.add(key);
    router.register(path, [method], handler);
  };
  const dispatch = router.routes();

  return {
    add,
    middleware: () => async (ctx, next) => {
      await dispatch(ctx as RouterContext, next);
      // What the dispatcher leaves on the context: whether a route ran, and the layers matching the path.
      const { routeMatched, matched = [] } = ctx as unknown as { routeMatched?: boolean; matched?: Layer[] };
      if (routeMatched === true) return;
      const layers = matched;
      if (layers.length === 0) throw new ManifoldError("NOT_FOUND", `no route ${ctx.method} ${ctx.path}`);
      const allow = allowOf(layers);
      ctx.set("Allow", allow);
      if (ctx.method === "OPTIONS") {
        const origin = ctx.req.headers.origin;
        if (origin !== undefined) {
          if (cors.allowed(origin) === undefined)
            throw new ManifoldError("FORBIDDEN", "this origin is not allowed to call from a browser: it is not listed in MANIFOLD_CORS_ORIGINS");
          ctx.set("Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
          ctx.set("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
        }
        ctx.status = 204;
        return;
      }
      throw new ManifoldError("METHOD_NOT_ALLOWED", `${ctx.method} is not allowed on ${ctx.path}`);
    },
    match(path) {
      const layers = router.match(path, "GET").path as Layer[];
      return layers.find((layer) => layer.methods.length > 0)?.path as string | undefined;
    },
  };
}
