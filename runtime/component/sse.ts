/**
 * A server-sent event stream on a raw response: the headers a browser and a buffering proxy need, one
 * `event:`/`data:` frame per event (data is JSON on one line), and a comment every heartbeat so an
 * idle stream is not closed by a proxy. Writes after the client has gone are dropped.
 */
import type { ServerResponse } from "node:http";
import { ManifoldError } from "../errors/index.js";
import { REQUEST_ID_HEADER } from "./reply.js";
import type { RouteContext } from "./routes.js";

export interface SseStream {
  send(event: string, data: unknown): void;
  /** Stops the heartbeat and ends the response. */
  close(): void;
  /** False once the client disconnected or the stream was closed. */
  readonly open: boolean;
}

export function openSseStream(
  res: ServerResponse,
  { heartbeatMs, headers = {} }: { heartbeatMs: number; headers?: Readonly<Record<string, string>> },
): SseStream {
  res.writeHead(200, {
    ...headers,
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    // nginx buffers responses unless told not to.
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  let open = true;
  const heartbeat = setInterval(() => {
    if (open) res.write(": keep-alive\n\n");
  }, heartbeatMs);
  heartbeat.unref();
  const stop = (): void => {
    open = false;
    clearInterval(heartbeat);
  };
  res.once("close", stop);
  return {
    get open() {
      return open && !res.destroyed;
    },
    send(event, data) {
      if (!open || res.destroyed) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close() {
      if (!open) return;
      stop();
      res.end();
    },
  };
}

/** A route's event stream and what ends it: the work's signal aborts when the client hangs up first. */
export interface RouteStream {
  readonly stream: SseStream;
  readonly controller: AbortController;
  /** Stops listening for the hang-up and closes the stream. */
  end(): void;
}

/**
 * Takes over a route's response for server-sent events (the pipeline no longer answers it), with the request
 * id echoed. The CORS headers the errors middleware set for an allowlisted origin are kept: the
 * response's set headers merge into writeHead's.
 */
export function openRouteStream(ctx: RouteContext, { heartbeatMs, requestId }: { heartbeatMs: number; requestId: string }): RouteStream {
  const controller = new AbortController();
  ctx.respond = false;
  const stream = openSseStream(ctx.res, { heartbeatMs, headers: { [REQUEST_ID_HEADER]: requestId } });
  const onClose = (): void => {
    if (!ctx.res.writableFinished) controller.abort(new ManifoldError("ABORTED", "client disconnected"));
  };
  ctx.res.once("close", onClose);
  return {
    stream,
    controller,
    end() {
      ctx.res.off("close", onClose);
      stream.close();
    },
  };
}
