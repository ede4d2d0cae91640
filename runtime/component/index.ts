/**
 * The component runtime: serve a ComponentSpec over HTTP, and call one. Generated code reaches this
 * through `agent-manifold/runtime/codegen/v1`; hand-written code may import it directly.
 */
export { serveComponent, startupError } from "./serve.js";
export { createClient, createClientSend, type ClientSend } from "./client.js";
// The HTTP kit of extensions: body reading within the limit, JSON answers, the request scope of a
// route, compiled validators. Features use these instead of reaching into component internals.
export { readJsonBody } from "./body.js";
export { REQUEST_ID_HEADER, sendJson } from "./reply.js";
export { JsonReply, jsonReply, jsonRoute, routeRequestContext, type JsonRouteOptions, type JsonRouteScope, type JsonWork } from "./json-route.js";
export { compileValidator, escapeToken, type InputValidator } from "./validate.js";
export type { ComponentExtension, ExtensionContext, ExtensionStart, McpTool, McpToolAnswer, PostContext, PostOptions, PostWork } from "./extension.js";
export type { AddRoute, RouteContext, RouteHandler } from "./routes.js";
export type {
  AuthOptions,
  BaseUrlSource,
  CallOptions,
  CapabilityTypes,
  Client,
  ClientOptions,
  ComponentOptions,
  ForwardOptions,
  Handler,
  HandlerContext,
  Handlers,
  RunningComponent,
} from "./types.js";
export { openRouteStream, openSseStream, type RouteStream, type SseStream } from "./sse.js";
export { ALLOWED_HOSTS_ENV, CORS_ORIGINS_ENV, isLoopbackAddress, resolveAllowedHosts, resolveCorsOrigins } from "./trust.js";
export { publicUrl } from "./openapi-route.js";
