import type { IncomingMessage, ServerResponse } from "node:http";
import type { RouteContext } from "./route-context.js";

export type { RouteContext } from "./route-context.js";
export type RouteHandler = (ctx: RouteContext) => void | Promise<void>;
/** Adds one route; a path may name parameters (`:task_id`), read back from `ctx.params`. */
export type AddRoute = (method: string, path: string, handler: RouteHandler) => void;
/** A route that answers from the raw request and writes its own response (a capability POST). */
export type RawServe = (req: IncomingMessage, res: ServerResponse) => void;

interface Route {
  readonly method: string;
  readonly template: string;
  readonly handler?: RouteHandler;
  readonly serve?: RawServe;
  /** Per path segment: the literal, or undefined where a parameter goes. */
  readonly segments: readonly (string | undefined)[];
  readonly names: readonly string[];
  /** A last segment `*name`: the rest of the path (one or more segments, at least one character) as `name`. */
  readonly rest: string | undefined;
}

/** What the table knows about one request path. */
export interface Found {
  /** The route template (`/api/v1/tasks/:task_id`), for the span's `http.route`; undefined for a 404. */
  readonly template: string | undefined;
  /** The route for the request's method, when there is one. */
  readonly route: Pick<Route, "handler" | "serve"> | undefined;
  readonly params: Record<string, string> | undefined;
  /** `GET, HEAD, POST, OPTIONS`: what the path's routes accept, for a 405 or a preflight (worked out when asked). */
  readonly allow: () => string;
}

export interface RouteTable {
  readonly add: AddRoute;
  /** A route served from the raw request, without a route context. */
  addRaw(method: string, path: string, serve: RawServe): void;
  /** The routes of `path`, and which one answers `method`. */
  find(method: string, path: string): Found;
  /** The route template serving `path` (`/api/v1/tasks/:task_id`), for the span's `http.route`; undefined for a 404. */
  match(path: string): string | undefined;
}

const NOT_FOUND: Found = { template: undefined, route: undefined, params: undefined, allow: () => "" };

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The parameters of `path` when `route` matches it: strict (no trailing slash), case-sensitive, a parameter is one non-empty segment. */
function paramsOf(route: Route, parts: readonly string[]): Record<string, string> | undefined {
  const { segments, rest } = route;
  if (rest === undefined ? parts.length !== segments.length : parts.length <= segments.length) return undefined;
  let params: Record<string, string> | undefined;
  let name = 0;
  for (let i = 0; i < segments.length; i++) {
    const literal = segments[i];
    const part = parts[i]!;
    if (literal === undefined) {
      if (part === "") return undefined;
      (params ??= {})[route.names[name++]!] = decode(part);
    } else if (literal !== part) return undefined;
  }
  if (rest !== undefined) {
    const tail = parts.slice(segments.length).join("/");
    if (tail === "") return undefined;
    (params ??= {})[rest] = decode(tail);
  }
  return params ?? {};
}

/** `GET, HEAD, POST, OPTIONS` from the routes matching a path, in registration order (as @koa/router answered). */
function allowOf(routes: readonly Route[]): string {
  const methods = new Set<string>();
  for (const route of routes) if (route.method !== "HEAD" && route.method !== "OPTIONS") methods.add(route.method);
  const list = [...methods];
  if (methods.has("GET")) list.push("HEAD");
  return [...list, "OPTIONS"].join(", ");
}

/** Everything the matching routes say about one path: the first route per method wins; GET answers HEAD too. */
function foundOf(matching: readonly { route: Route; params: Record<string, string> }[], method: string): Found {
  if (matching.length === 0) return NOT_FOUND;
  const hit = matching.find((m) => m.route.method === method || (method === "HEAD" && m.route.method === "GET"));
  return { template: matching[0]!.route.template, route: hit?.route, params: hit?.params, allow: () => allowOf(matching.map((m) => m.route)) };
}

/**
 * One compiled route table for every route: a Map from a static path to what answers each method there
 * (worked out once at start-up, including a parameter route registered earlier that also matches it),
 * and the parameter routes tried segment by segment for the rest. Strict and case-sensitive, so
 * `/health/` and `/Health` are 404; the first route registered for a path and method answers, as with
 * @koa/router before it.
 */
export function createRouteTable(): RouteTable {
  const routes: Route[] = [];
  const taken = new Set<string>();
  let compiled: { statics: Map<string, Map<string, Found>>; params: Route[] } | undefined;

  const register = (method: string, template: string, handler: RouteHandler | undefined, serve: RawServe | undefined): void => {
    const key = `${method} ${template}`;
    if (taken.has(key)) throw new TypeError(`two routes for ${key}`);
    taken.add(key);
    const parts = template.split("/");
    const rest = parts.at(-1)?.startsWith("*") === true ? parts.pop()!.slice(1) : undefined;
    const names = parts.filter((part) => part.startsWith(":")).map((part) => part.slice(1));
    const segments = parts.map((part) => (part.startsWith(":") ? undefined : part));
    routes.push({ method, template, segments, names, rest, ...(handler === undefined ? {} : { handler }), ...(serve === undefined ? {} : { serve }) });
    compiled = undefined;
  };

  const matchAll = (candidates: readonly Route[], path: string) => {
    const parts = path.split("/");
    const matching: { route: Route; params: Record<string, string> }[] = [];
    for (const route of candidates) {
      const params = paramsOf(route, parts);
      if (params !== undefined) matching.push({ route, params });
    }
    return matching;
  };

  const compile = () => {
    const statics = new Map<string, Map<string, Found>>();
    for (const route of routes) {
      if (route.names.length > 0 || route.rest !== undefined || statics.has(route.template)) continue;
      const matching = matchAll(routes, route.template);
      // Every method answered here, HEAD and the unrouted ones resolved once: a request does one Map lookup.
      const byMethod = new Map<string, Found>();
      for (const { route: other } of matching)
        for (const method of [other.method, ...(other.method === "GET" ? ["HEAD"] : [])])
          if (!byMethod.has(method)) byMethod.set(method, foundOf(matching, method));
      byMethod.set("", foundOf(matching, ""));
      statics.set(route.template, byMethod);
    }
    return { statics, params: routes.filter((route) => route.names.length > 0 || route.rest !== undefined) };
  };

  const find = (method: string, path: string): Found => {
    compiled ??= compile();
    const known = compiled.statics.get(path);
    if (known !== undefined) return known.get(method) ?? known.get("")!;
    return compiled.params.length === 0 ? NOT_FOUND : foundOf(matchAll(compiled.params, path), method);
  };

  return {
    add: (method, path, handler) => register(method, path, handler, undefined),
    addRaw: (method, path, serve) => register(method, path, undefined, serve),
    find,
    match: (path) => find("GET", path).template,
  };
}
