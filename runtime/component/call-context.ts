import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ManifoldError } from "../errors/index.js";
import type { HandlerContext } from "./types.js";
import type { ServerState } from "./reply.js";

/**
 * A caller's request id is echoed in a response header and copied into logs, so only a short token
 * of visible ASCII is taken as is; anything else gets a fresh id.
 */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers["x-manifold-request-id"];
  return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The HandlerContext of one call. The AbortSignal is created on first read: most handlers never look
 * at it, and an AbortController plus a listener per request is measurable at the throughput we aim for.
 */
export class CallContext implements HandlerContext {
  readonly capability: string;
  readonly requestId: string;
  readonly headers: IncomingMessage["headers"];
  readonly #res: ServerResponse;
  readonly #state: ServerState;
  #controller: AbortController | undefined;

  constructor(capability: string, requestId: string, req: IncomingMessage, res: ServerResponse, state: ServerState) {
    this.capability = capability;
    this.requestId = requestId;
    this.headers = req.headers;
    this.#res = res;
    this.#state = state;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const res = this.#res;
      const signals = this.#state.signals;
      // `close` without `finish` means the socket went away first: the client hung up (or the
      // connection was cut at shutdown, in which case serve has already aborted with UNAVAILABLE).
      const onClose = (): void => {
        signals.delete(controller);
        if (!res.writableFinished) controller.abort(new ManifoldError("ABORTED", "client disconnected"));
      };
      if (res.destroyed) {
        onClose();
      } else {
        signals.add(controller);
        res.once("close", onClose);
      }
    }
    return this.#controller.signal;
  }
}
