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
  // Without an escape decodeURIComponent returns the text unchanged: skip the call and its try.
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Does `route` match `path`? Walks the path without splitting it (no array or substring per request).
 * Strict (no trailing slash), case-sensitive, a parameter is one non-empty segment.
 */
function matches(route: Route, path: string): boolean {
  const { segments, rest } = route;
  let start = 0;
  let end = -1;
  for (let i = 0; i < segments.length; i++) {
    // Past the path's last segment: fewer parts than the route names.
    if (start > path.length) return false;
    end = path.indexOf("/", start);
    if (end === -1) end = path.length;
    const literal = segments[i];
    if (literal === undefined ? end === start : end - start !== literal.length || !path.startsWith(literal, start)) return false;
    start = end + 1;
  }
  // Without a rest, the path ends with the route's last segment; with one, at least one non-empty character follows it.
  return rest === undefined ? end === path.length : end < path.length && end + 1 < path.length;
}

/**
 * `matches` and the URI-decoded parameters in one walk of the path: the parameters when `route` matches, else
 * undefined. A request answered by a parameter route walks its path once, not twice.
 */
function paramsIfMatches(route: Route, path: string): Record<string, string> | undefined {
  const { segments, names, rest } = route;
  const params: Record<string, string> = {};
  let name = 0;
  let start = 0;
  let end = -1;
  for (let i = 0; i < segments.length; i++) {
    if (start > path.length) return undefined;
    end = path.indexOf("/", start);
    if (end === -1) end = path.length;
    const literal = segments[i];
    if (literal === undefined) {
      if (end === start) return undefined;
      params[names[name++]!] = decode(path.slice(start, end));
    } else if (end - start !== literal.length || !path.startsWith(literal, start)) return undefined;
    start = end + 1;
  }
  if (rest === undefined) return end === path.length ? params : undefined;
  if (end >= path.length || end + 1 >= path.length) return undefined;
  params[rest] = decode(path.slice(start));
  return params;
}

/** `GET, HEAD, POST, OPTIONS` from the routes matching a path, in registration order (as @koa/router answered). */
function allowOf(routes: readonly Route[]): string {
  const methods = new Set<string>();
  for (const route of routes) if (route.method !== "HEAD" && route.method !== "OPTIONS") methods.add(route.method);
  const list = [...methods];
  if (methods.has("GET")) list.push("HEAD");
  return [...list, "OPTIONS"].join(", ");
}

/** Does this route answer `method` (GET answers HEAD too)? */
function answers(route: Route, method: string): boolean {
  return route.method === method || (method === "HEAD" && route.method === "GET");
}

/** Everything the matching routes say about one path: the first route per method wins; GET answers HEAD too. */
function foundOf(matching: readonly Route[], method: string, path: string): Found {
  if (matching.length === 0) return NOT_FOUND;
  const hit = matching.find((route) => answers(route, method));
  return { template: matching[0]!.template, route: hit, params: hit === undefined ? undefined : paramsIfMatches(hit, path), allow: () => allowOf(matching) };
}

/**
 * What a parameter route lookup found: a class, so a request makes one object and no closure; the
 * Allow list (a 405 or a preflight only) is worked out from the path when asked.
 */
class ParamFound implements Found {
  constructor(
    readonly template: string,
    readonly route: Route | undefined,
    readonly params: Record<string, string> | undefined,
    private readonly candidates: readonly Route[],
    private readonly path: string,
  ) {}

  allow(): string {
    return allowOf(this.candidates.filter((route) => matches(route, this.path)));
  }
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

  const matchAll = (candidates: readonly Route[], path: string): Route[] => candidates.filter((route) => matches(route, path));

  const compile = () => {
    const statics = new Map<string, Map<string, Found>>();
    for (const route of routes) {
      if (route.names.length > 0 || route.rest !== undefined || statics.has(route.template)) continue;
      const matching = matchAll(routes, route.template);
      // Every method answered here, HEAD and the unrouted ones resolved once: a request does one Map lookup.
      const byMethod = new Map<string, Found>();
      for (const other of matching)
        for (const method of [other.method, ...(other.method === "GET" ? ["HEAD"] : [])])
          if (!byMethod.has(method)) byMethod.set(method, foundOf(matching, method, route.template));
      byMethod.set("", foundOf(matching, "", route.template));
      statics.set(route.template, byMethod);
    }
    return { statics, params: routes.filter((route) => route.names.length > 0 || route.rest !== undefined) };
  };

  /** The parameter routes in registration order: the first matching names the template, the first answering `method` serves. */
  const findParam = (params: readonly Route[], method: string, path: string): Found => {
    let first: Route | undefined;
    for (const route of params) {
      if (answers(route, method)) {
        const found = paramsIfMatches(route, path);
        if (found !== undefined) return new ParamFound((first ?? route).template, route, found, params, path);
      } else if (matches(route, path)) first ??= route;
    }
    return first === undefined ? NOT_FOUND : new ParamFound(first.template, undefined, undefined, params, path);
  };

  // The static route last found: a client's calls come in runs to one route (a keep-alive connection
  // calling one capability), and two string comparisons cost less than hashing each request's fresh
  // path for the Map. Reset with the table.
  let last: { readonly method: string; readonly path: string; readonly found: Found } | undefined;
  const find = (method: string, path: string): Found => {
    if (compiled === undefined) {
      compiled = compile();
      last = undefined;
    }
    if (last !== undefined && path === last.path && method === last.method) return last.found;
    const known = compiled.statics.get(path);
    if (known === undefined) return compiled.params.length === 0 ? NOT_FOUND : findParam(compiled.params, method, path);
    const found = known.get(method) ?? known.get("")!;
    last = { method, path, found };
    return found;
  };

  return {
    add: (method, path, handler) => register(method, path, handler, undefined),
    addRaw: (method, path, serve) => register(method, path, undefined, serve),
    find,
    match: (path) => find("GET", path).template,
  };
}
