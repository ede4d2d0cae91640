import type { OpenApiAddition } from "../spec/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { Log } from "./errors-middleware.js";
import type { AddRoute } from "./routes.js";
import type { ForwardOptions } from "../context/index.js";
import type { HandlerContext } from "./handler-context.js";

/** What a fast POST route's work gets beside the body; the signal is created on first use. */
export type PostContext = Pick<HandlerContext, "signal" | "requestId" | "headers" | "originalRequestId" | "conversationId">;

/** A fast POST route's work: its answer (a `jsonReply` sets the status), or a promise of it; a thrown ManifoldError is the envelope. */
export type PostWork = (body: Record<string, unknown>, context: PostContext) => unknown;

export interface PostOptions {
  /** Copy the incoming token and these headers into the calls the work makes. @defaultValue nothing is forwarded */
  readonly forward?: ForwardOptions;
}

/**
 * A tool an extension serves over MCP (`/mcp`, issue 34) beside the component's capabilities: an
 * agent's natural mode (`ask`), its workflows, its task types. Called in the MCP request's scope (its
 * identity, approval gate, trace context and forwarded headers), like a route's handler.
 */
export interface McpTool {
  readonly name: string;
  readonly description: string;
  /** A JSON Schema object (draft-07, `type: "object"`) the arguments are validated against before `call`. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** When given, the structured answer validates against it. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /**
   * The tool's answer: `structured` becomes the result's `structuredContent`, `text` its text content
   * (default: the JSON of `structured`). A thrown ManifoldError is a tool error (`isError`) carrying
   * its code, never a protocol error.
   */
  call(args: Record<string, unknown>, context: PostContext): Promise<McpToolAnswer>;
}

export interface McpToolAnswer {
  readonly structured: Record<string, unknown>;
  readonly text?: string;
}

/** What an extension sees of the component it extends. */
export interface ExtensionContext {
  readonly spec: ComponentSpec;
  readonly log: Log;
  /** The component's request body limit in bytes, for routes that read a JSON body (`readJsonBody`). */
  readonly bodyLimit: number;
  /**
   * Adds a JSON POST route served as capability calls are, as a raw route without a route context:
   * the bearer check, the body read within `bodyLimit`, `work` in the request scope, its answer as
   * JSON, every failure in the envelope; 404, 405 and CORS as for every route. For hot routes
   * (`/api/v1/scheduled`). No path parameters.
   */
  post(path: string, work: PostWork, options?: PostOptions): void;
}

/** The running component, once it listens. */
export interface ExtensionStart {
  /** `<name>-<hex>`, as registered in discovery. */
  readonly id: string;
  readonly url: string;
  /**
   * Every extension's `gated`, for background work that serves a client's request with no route around
   * it (a task worker, also in a worker-only process): its request scope's approval gate starts with
   * them, as an extension route's does. @defaultValue none
   */
  readonly gated?: readonly string[];
}

/**
 * How an agent's framework features (orchestration, tasks, …) join a component without the component
 * knowing them: each adds routes (named parameters allowed) to the same table (so 404, 405 with Allow, CORS and the
 * error envelope behave as for every other route) and may run background work while the component is
 * up. Handlers throw ManifoldError for error answers; the errors middleware writes the envelope.
 */
export interface ComponentExtension {
  /** For log lines and errors, e.g. `tasks`. */
  readonly name: string;
  /** Adds routes; called once while the app is built. */
  routes?(add: AddRoute, context: ExtensionContext): void;
  /** Paths and schemas of its routes in the component's OpenAPI document (`/openapi.json`). */
  readonly openapi?: readonly OpenApiAddition[];
  /**
   * Capabilities (`name` or `component.name`) that no request served by an extension route may call
   * unapproved: the request's approval gate (context/approval.ts) starts with them, so what its handlers
   * call through typed clients is gated as a plan step's callee is. Capability routes are not gated here
   * (a direct call is its caller's choice; an inbound gate header still applies). HITL sets its policy's.
   */
  readonly gated?: readonly string[];
  /** Tools it adds to the component's MCP server (when `mcp: true` or MANIFOLD_MCP_ENABLED=true). @defaultValue none */
  readonly mcpTools?: readonly McpTool[];
  /** Called once the component listens, before it registers in discovery. */
  start?(running: ExtensionStart): void | Promise<void>;
  /**
   * Called as soon as shutdown begins, before the HTTP drain: stop taking new background work (a
   * worker pool stops dequeuing) while in-flight requests finish. Must not throw.
   */
  draining?(): void;
  /**
   * Called on close after the HTTP server has drained (so no route is still using what it stops).
   * Should finish within `deadlineMs` (the component's drain timeout) and must not throw.
   */
  stop?(deadlineMs: number): Promise<void>;
}
