/**
 * The one request pipeline of a component: every request, whatever its route, passes the
 * same steps in the same order: 503 while draining, the server span, the Host and Origin check, one
 * lookup in the compiled route table, then either a raw route (a capability POST, which reads,
 * validates and answers by itself) or a route handler on a RouteContext inside the errors step (CORS,
 * the error envelope, `Connection: close` while draining, lingering for an unread body).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { requestIdOf } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import { getTelemetry } from "../telemetry/index.js";
import { isThenable } from "../util/index.js";
import { endReadBodyless, readBodyless } from "./body.js";
import { errorResponse, type Log } from "./errors-middleware.js";
import type { Around } from "./koa-middleware.js";
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, corsHeaders, lingerIfIncomplete, sendJson, writeReply, type ServerState } from "./reply.js";
import { RouteContext, respond } from "./route-context.js";
import type { Found, RouteTable } from "./routes.js";
import type { TrustCheck } from "./trust.js";

export interface PipelineParts {
  readonly name: string;
  readonly log: Log;
  readonly state: ServerState;
  readonly table: RouteTable;
  readonly trust: TrustCheck;
  /** The user's Koa middleware, run after the checks and before the route (koa-middleware.ts); none: the route directly. */
  readonly around?: Around | undefined;
}

function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/**
 * What a path's routes owe when none answers the method: 404 for an unknown path, a CORS preflight
 * (allowlisted origins only: any other origin's is 403, which a browser reports as a failed preflight
 * and a person debugging can read), else 405 with Allow; all in the error envelope.
 */
function unrouted(ctx: RouteContext, found: Found, state: ServerState): void {
  if (found.template === undefined) throw new ManifoldError("NOT_FOUND", `no route ${ctx.method} ${ctx.path}`);
  ctx.set("Allow", found.allow());
  if (ctx.method === "OPTIONS") {
    const origin = ctx.req.headers.origin;
    if (origin !== undefined) {
      if (state.cors.allowed(origin) === undefined)
        throw new ManifoldError("FORBIDDEN", "this origin is not allowed to call from a browser: it is not listed in MANIFOLD_CORS_ORIGINS");
      ctx.set("Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
      ctx.set("Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
    }
    ctx.status = 204;
    return;
  }
  throw new ManifoldError("METHOD_NOT_ALLOWED", `${ctx.method} is not allowed on ${ctx.path}`);
}

/** A thrown value as the envelope; headers the route set stay (a 401's challenge must). */
function fail(ctx: RouteContext, error: unknown, { name, log }: PipelineParts): void {
  const { status, body } = errorResponse(error, log, `${name} ${ctx.method} ${ctx.path}`);
  sendJson(ctx, status, body);
}

function finish(ctx: RouteContext, { name, log, state }: PipelineParts, bodyless: boolean): void {
  if (state.draining) ctx.set("Connection", "close");
  lingerIfIncomplete(ctx.res, state);
  try {
    respond(ctx);
  } catch (error) {
    log(`${name} response failed: ${String(error)}`);
  }
  if (bodyless) endReadBodyless(ctx.req, ctx.res);
}

/**
 * A route handler on its context, inside the errors step. Synchronous handlers (health, schemas) are
 * answered without a promise or a closure: both are measurable per request at the rates we aim for.
 */
function serveRoute(req: IncomingMessage, res: ServerResponse, path: string, found: Found, parts: PipelineParts): void {
  // With Koa middleware around the route, its code may read the response's headers once the route is
  // done, so they go on the node response as they are set; without, a JSON answer's wait for one writeHead.
  const ctx = new RouteContext(req, res, path, found.params, parts.around === undefined);
  // Set before the route runs, so a route that takes over the response (an SSE stream) keeps them.
  if (parts.state.cors.enabled) {
    const cors = corsHeaders(parts.state.cors, req.headers.origin);
    for (let i = 0; i + 1 < cors.length; i += 2) res.setHeader(cors[i]!, cors[i + 1]!);
  }
  // User middleware may look at the request after the route has answered, so only without it.
  const bodyless = parts.around === undefined && readBodyless(req);
  let outcome: unknown;
  try {
    const handler = found.route?.handler;
    outcome = handler === undefined ? unrouted(ctx, found, parts.state) : handler(ctx);
  } catch (error) {
    fail(ctx, error, parts);
    return finish(ctx, parts, bodyless);
  }
  if (!isThenable(outcome)) return finish(ctx, parts, bodyless);
  outcome.then(
    () => finish(ctx, parts, bodyless),
    (error: unknown) => {
      fail(ctx, error, parts);
      finish(ctx, parts, bodyless);
    },
  );
}

/** The node:http listener of a component: every route through the steps above. */
export function createPipeline(parts: PipelineParts): RequestListener {
  const { name, state, table, trust, around } = parts;
  return (req, res) => {
    if (state.draining) {
      const reply = new ManifoldError("UNAVAILABLE", "server shutting down").toEnvelope();
      writeReply(res, { status: 503, body: JSON.stringify(reply), requestId: requestIdOf(req) }, state);
      return;
    }
    const path = pathOf(req.url ?? "/");
    const found = table.find(req.method ?? "GET", path);
    // One property read when telemetry is off; on, the server span starts before anything else runs.
    const telemetry = getTelemetry();
    if (telemetry.enabled) telemetry.startServer(req, res, { component: name, path, route: found.template });
    const refused = trust(req);
    if (refused !== undefined) {
      writeReply(res, { status: refused.status, body: JSON.stringify(refused.toEnvelope()), requestId: requestIdOf(req) }, state);
      return;
    }
    const serve = found.route?.serve;
    // Only with user middleware is a closure made per request.
    if (around !== undefined) around(req, res, () => (serve !== undefined ? serve(req, res) : serveRoute(req, res, path, found, parts)));
    else if (serve !== undefined) serve(req, res);
    else serveRoute(req, res, path, found, parts);
  };
}
