/**
 * The one outbound caller every generated client and the orchestrator use: bearer token
 * (per-request > configured > none), propagated headers with the reserved list, request and step ids,
 * trace context; and the request context (AsyncLocalStorage) that carries them through a handler.
 */
export { createCaller, type Caller, type CallerOptions, type OutboundRequest } from "./caller.js";
export { fetchTransport, keepAliveTransport, type Transport, type TransportResponse } from "./transport.js";
// The request context they read lives in runtime/context; re-exported here, where callers look for it.
export { currentScope, HEADER, OutboundContext, RESERVED_HEADERS, withRequestContext, type RequestContextInit, type RequestScope } from "../context/index.js";
export { buildHeaders, type HeaderParts } from "./headers.js";
export { createTokenHolder, type TokenHolder, type TokenSource } from "./token.js";
export { createClientCredentialsSource, type ClientCredentialsOptions, type ClientCredentialsSource } from "./client-credentials.js";
export { checkTimeout } from "./caller.js";
export {
  createOpenApiProxy,
  type OpenApiProxyOptions,
  type ProxyCredential,
  type ProxyHandler,
  type ProxyOperation,
  type ProxyParameter,
  type ProxySpec,
} from "./openapi-proxy.js";
export { parseForeignReply } from "./caller.js";
export type { HttpMethod } from "./transport.js";
