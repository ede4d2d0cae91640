/**
 * A user's own Koa middleware in front of every route (`ComponentOptions.middleware`). Koa is imported
 * only when middleware is given, at start-up; without it no request goes near Koa. The middleware is
 * composed once into one Koa app whose last middleware hands the request to the component's pipeline,
 * which writes the response itself (`ctx.respond = false`). It runs after the pipeline's draining and
 * Host/Origin checks (a middleware's own answer never bypasses the DNS rebinding defence) and before
 * the route, so it sees capability POSTs, extension routes, /health and 404s alike.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type Koa from "koa";
import { ManifoldError } from "../errors/index.js";
import { errorResponse, type Log } from "./errors-middleware.js";
import { corsHeaders, JSON_CONTENT_TYPE, lingerIfIncomplete, type ServerState } from "./reply.js";

/** Runs before a request's route; `go` serves the route. */
export type Around = (req: IncomingMessage, res: ServerResponse, go: () => void) => void;

export interface AroundParts {
  readonly name: string;
  readonly log: Log;
  readonly state: ServerState;
}

/** Builds the Koa app once the component's state exists (createComponentApp calls it). */
export type AroundFactory = (parts: AroundParts) => Around;

/** Koa's own `ctx.throw(401, "…")` statuses that have a Manifold code; any other is INTERNAL, as any unknown throw. */
const KOA_STATUS_CODES = new Map([
  [401, "UNAUTHORIZED"],
  [403, "FORBIDDEN"],
  [404, "NOT_FOUND"],
] as const);

/** A Koa HTTP error meant for the client (`expose`, set by http-errors for 4xx) as its ManifoldError. */
function fromKoaError(error: unknown): unknown {
  if (typeof error !== "object" || error === null || (error as { expose?: unknown }).expose !== true) return error;
  const code = KOA_STATUS_CODES.get((error as { status?: unknown }).status as 401);
  return code === undefined || !(error instanceof Error) ? error : new ManifoldError(code, error.message);
}

function checkMiddleware(middleware: readonly unknown[]): void {
  if (!Array.isArray(middleware)) throw new TypeError("middleware must be an array of Koa middleware functions");
  middleware.forEach((fn, i) => {
    if (typeof fn !== "function") throw new TypeError(`middleware[${i}] must be a function (ctx, next)`);
  });
}

/**
 * The outermost middleware: a throw from the user's middleware becomes the standard envelope (INTERNAL
 * with no stack for anything but a ManifoldError), not Koa's text answer; an answer a middleware gave
 * itself gets what the pipeline's own answers get (Connection: close while draining, an unread body dropped).
 */
function envelope({ name, log, state }: AroundParts): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (ctx.res.headersSent) {
        // The route's answer is already on the wire; all that is left is to say so in the log.
        errorResponse(error, log, `${name} ${ctx.method} ${ctx.path} middleware after the response`);
        return;
      }
      const { status, body } = errorResponse(fromKoaError(error), log, `${name} ${ctx.method} ${ctx.path} middleware`);
      ctx.respond = true;
      ctx.status = status;
      ctx.set("Content-Type", JSON_CONTENT_TYPE);
      ctx.body = body;
    }
    if (ctx.respond === false) return;
    if (state.draining) ctx.set("Connection", "close");
    lingerIfIncomplete(ctx.res, state);
  };
}

/**
 * Loads Koa and returns what builds the app. Validates the list first, so a bad entry fails the start
 * with its index rather than every request.
 */
export async function loadKoaMiddleware(middleware: readonly Koa.Middleware[]): Promise<AroundFactory> {
  checkMiddleware(middleware);
  const { default: KoaApp } = await import("koa");
  return (parts) => {
    // The route to serve for a request Koa is handling; a WeakMap so a short-circuited request leaves nothing behind.
    const routes = new WeakMap<IncomingMessage, () => void>();
    const app = new KoaApp();
    app.use(envelope(parts));
    for (const fn of middleware) app.use(fn);
    // Last: the pipeline writes the response; Koa's `next()` resolves once it is finished (or the client
    // left), so a middleware can time the request or read the final status after `await next()`.
    app.use((ctx) => {
      const go = routes.get(ctx.req);
      routes.delete(ctx.req);
      ctx.respond = false;
      return new Promise<void>((resolve) => {
        ctx.res.once("close", resolve);
        go?.();
      });
    });
    // Errors reach here only from Koa itself (a failed write); without a listener Koa prints to stderr.
    app.on("error", (error: unknown) => errorResponse(error, parts.log, `${parts.name} koa`));
    const handle = app.callback();
    return (req, res, go) => {
      // Set first so an answer a middleware gives itself (a 401) is readable by an allowlisted browser page.
      const cors = corsHeaders(parts.state.cors, req.headers.origin);
      for (let i = 0; i + 1 < cors.length; i += 2) res.setHeader(cors[i]!, cors[i + 1]!);
      routes.set(req, go);
      void handle(req, res);
    };
  };
}
