import type { IncomingMessage, ServerResponse } from "node:http";
import { inspect } from "node:util";
import { ManifoldError } from "../errors/index.js";
import {
  APPROVAL_GATE_HEADER,
  approvalGateFrom,
  forwardedFrom,
  OutboundContext,
  requestIdentity,
  validConversationId,
  type ApprovalGate,
  type Identity,
  type RequestScope,
} from "../context/index.js";
import { CONVERSATION_HEADER } from "../telemetry/index.js";
import type { ServerTrace } from "../telemetry/index.js";
import type { ForwardOptions, HandlerContext } from "./types.js";
import type { ServerState } from "./reply.js";

/**
 * The HandlerContext of one call, and the request scope outbound calls made by its handler read.
 * The AbortSignal and the outbound context are created on first use: most handlers never look at
 * them, and objects per request are measurable at the throughput we aim for.
 */
export class CallContext implements HandlerContext, RequestScope {
  readonly capability: string;
  readonly requestId: string;
  readonly headers: IncomingMessage["headers"];
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #state: ServerState;
  readonly #trace: ServerTrace | undefined;
  #controller: AbortController | undefined;
  #outbound: OutboundContext | undefined;
  #approval: ApprovalGate | undefined;

  constructor(capability: string, requestId: string, req: IncomingMessage, res: ServerResponse, state: ServerState, trace?: ServerTrace) {
    this.capability = capability;
    this.requestId = requestId;
    this.headers = req.headers;
    this.#req = req;
    this.#res = res;
    this.#state = state;
    this.#trace = trace;
  }

  get originalRequestId(): string {
    return this.#trace?.originalRequestId ?? this.requestId;
  }

  get conversationId(): string | undefined {
    return this.#trace?.conversationId ?? validConversationId(this.headers[CONVERSATION_HEADER]);
  }

  get outbound(): OutboundContext {
    return (this.#outbound ??= new OutboundContext());
  }

  /** RequestScope: the HITL gate the calling request carries (`X-Manifold-Approval-Gate`), made on first use. */
  get approval(): ApprovalGate {
    return (this.#approval ??= approvalGateFrom(this.headers[APPROVAL_GATE_HEADER]));
  }

  /** RequestScope: who is calling, as the inbound check settled it (anonymous without one). */
  get identity(): Identity {
    return requestIdentity(this.#req);
  }

  /** RequestScope: read by the caller without creating the outbound context. */
  get forwarded(): OutboundContext | undefined {
    return this.#outbound;
  }

  forward(options?: ForwardOptions): void {
    const outbound = this.outbound;
    const { token, headers } = forwardedFrom(this.headers, options);
    if (token !== undefined) outbound.setToken(token);
    for (const [name, value] of Object.entries(headers)) outbound.setHeader(name, value);
  }

  /** Header names only: values may be tokens or propagated secrets. */
  toJSON(): Record<string, unknown> {
    return {
      capability: this.capability,
      requestId: this.requestId,
      originalRequestId: this.originalRequestId,
      conversationId: this.conversationId,
      headers: Object.keys(this.headers),
      outbound: this.#outbound,
    };
  }

  [inspect.custom](): unknown {
    return this.toJSON();
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
