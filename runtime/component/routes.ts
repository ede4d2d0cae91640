import type { Context, Middleware } from "koa";
import { ManifoldError } from "../errors/index.js";
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS } from "./reply.js";

export type RouteHandler = (ctx: Context) => void | Promise<void>;

export interface Route {
  readonly methods: Map<string, RouteHandler>;
  /** The Allow header value, kept in step with `methods`. */
  allow: string;
}

export interface RouteTable {
  readonly routes: Map<string, Route>;
  add(method: string, path: string, handler: RouteHandler): void;
}

/**
 * No router library: every path is known when the app is built, so one Map lookup by exact path does,
 * and keeping the methods per path gives 405 with its Allow header for free.
 */
export function createRouteTable(): RouteTable {
  const routes = new Map<string, Route>();
  const add = (method: string, path: string, handler: RouteHandler): void => {
    let route = routes.get(path);
    if (route === undefined) {
      route = { methods: new Map(), allow: "" };
      routes.set(path, route);
    }
    if (route.methods.has(method)) throw new TypeError(`two routes for ${method} ${path}`);
    route.methods.set(method, handler);
    const methods = [...route.methods.keys()];
    if (route.methods.has("GET")) methods.push("HEAD");
    route.allow = [...methods, "OPTIONS"].join(", ");
  };
  return { routes, add };
}

/**
 * A path ending in `/*` is a prefix route: it serves every path below the prefix that no exact route
 * serves (a resource by id, `/api/v1/tasks/<id>`); its handler reads the rest of `ctx.path` itself.
 */
export const PREFIX_WILDCARD = "/*";

/**
 * The route template serving `path`: the path itself when exact, else the longest prefix route, else
 * undefined. Prefix routes are few (one per resource), so a scan of them costs nothing measurable.
 */
export function createRouteMatcher(routes: ReadonlyMap<string, Route>): (path: string) => string | undefined {
  const prefixes = [...routes.keys()].filter((key) => key.endsWith(PREFIX_WILDCARD)).sort((a, b) => b.length - a.length);
  return (path) => {
    if (routes.has(path)) return path;
    for (const prefix of prefixes) if (path.length > prefix.length - 1 && path.startsWith(prefix.slice(0, -1))) return prefix;
    return undefined;
  };
}

/** Dispatch: 404 for an unknown path, CORS preflight for OPTIONS, GET for HEAD (Koa drops the body), else 405. */
export function createRouter(routes: ReadonlyMap<string, Route>, match = createRouteMatcher(routes)): Middleware {
  return async (ctx) => {
    const template = match(ctx.path);
    const route = template === undefined ? undefined : routes.get(template);
    if (route === undefined) throw new ManifoldError("NOT_FOUND", `no route ${ctx.method} ${ctx.path}`);
    if (ctx.method === "OPTIONS") {
      ctx.set("Allow", route.allow);
      ctx.set("Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
      ctx.set("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
      ctx.status = 204;
      return;
    }
    const handler = route.methods.get(ctx.method === "HEAD" ? "GET" : ctx.method);
    if (handler === undefined) {
      ctx.set("Allow", route.allow);
      throw new ManifoldError("METHOD_NOT_ALLOWED", `${ctx.method} is not allowed on ${ctx.path}`);
    }
    await handler(ctx);
  };
}
