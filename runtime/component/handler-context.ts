import type { ForwardOptions, OutboundContext } from "../context/index.js";

/** Passed to every handler beside its validated input. */
export interface HandlerContext {
  /** Aborts when the client disconnects or the server is shutting down past its drain timeout. */
  readonly signal: AbortSignal;
  /** The capability being served (its manifest name). */
  readonly capability: string;
  /** `X-Manifold-Request-ID` of the call, or a fresh one. */
  readonly requestId: string;
  /** Incoming request headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The request id that started this chain (baggage `original_request_id`), else `requestId`. */
  readonly originalRequestId: string;
  /** Baggage `conversation_id`, else `X-Manifold-Conversation-ID`, when valid. */
  readonly conversationId: string | undefined;
  /** Token and headers every outbound call made while handling this request carries. */
  readonly outbound: OutboundContext;
  /**
   * Copies the incoming bearer token (unless `token: false`) and the named incoming headers into
   * `outbound`; other headers already set there stay. Reserved names are skipped.
   */
  forward(options?: ForwardOptions): void;
}
