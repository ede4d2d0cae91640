/**
 * The component runtime: serve a ComponentSpec over HTTP, and call one. Generated code reaches this
 * through `agent-manifold/runtime/codegen/v1`; hand-written code may import it directly.
 */
export { serveComponent } from "./serve.js";
export { serveManifest } from "./serve-manifest.js";
export { createClient } from "./client.js";
export { readJsonBody } from "./body.js";
export { sendJson } from "./reply.js";
export type { ComponentExtension, ExtensionContext, ExtensionStart } from "./extension.js";
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
