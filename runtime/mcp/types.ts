/**
 * What the component runtime gives the MCP server: its tools. Free of the SDK, so that importing the
 * folder costs nothing until a component actually serves MCP.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ErrorDetail } from "../errors/index.js";
import type { Clock } from "../util/index.js";

/** Where the MCP server writes one-line messages; an `error` method gets failures at error level. */
export type McpLog = ((message: string) => void) & { readonly error?: (message: string) => void };

/** What a tool's call gets beside its arguments: the MCP request's abort and the caller's scope. */
export interface McpToolRequest<S> {
  /** Aborts when the client cancels the request (`notifications/cancelled`) or its connection goes. */
  readonly signal: AbortSignal;
  /** The HTTP request's scope, as the endpoint was given it (`McpEndpoint.handle`). */
  readonly scope: S;
}

/** A tool's answer: `structured` is the result's `structuredContent` (an object), `text` its text content. */
export interface McpToolOutcome {
  readonly structured?: Record<string, unknown>;
  readonly text: string;
  /** `text` is `JSON.stringify(structured)`: the answer writes that JSON once for both. */
  readonly textIsStructured?: boolean;
}

export interface McpToolDefinition<S> {
  readonly name: string;
  readonly description: string;
  /** A draft-07 JSON Schema object with `type: "object"`: what `tools/list` shows. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** When given, `structured` validates against it. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  /** The violations of the arguments with their JSON pointers, undefined when they are valid. */
  readonly validate: (args: Record<string, unknown>) => readonly ErrorDetail[] | undefined;
  /** The answer; a thrown ManifoldError is the tool error with its code. */
  call(args: Record<string, unknown>, request: McpToolRequest<S>): McpToolOutcome | Promise<McpToolOutcome>;
}

export interface McpEndpointOptions<S> {
  /** The component's name: the server's name in `initialize`. */
  readonly name: string;
  /** The manifest's version. */
  readonly version: string;
  /** Shown to the host's model as the server's instructions (the component's description). */
  readonly instructions?: string;
  readonly tools: readonly McpToolDefinition<S>[];
  readonly log: McpLog;
  /** @defaultValue 1000 */
  readonly maxSessions?: number | undefined;
  /** A session idle this long is closed. @defaultValue 600000 (10 minutes) */
  readonly sessionTtlMs?: number | undefined;
  /** @defaultValue systemClock */
  readonly clock?: Clock | undefined;
  /**
   * The bounds of the component's in-memory event store, which lets a client whose stream dropped
   * resume it with `Last-Event-ID`; `false` keeps no events. @defaultValue its defaults (event-store.ts)
   */
  readonly resumability?: McpResumability | false | undefined;
  /** A call still running after this long is answered as a resumable event stream instead of JSON. @defaultValue 1000 */
  readonly streamAfterMs?: number | undefined;
}

/** How much of its streams a component keeps for clients to resume. */
export interface McpResumability {
  /** @defaultValue 100 */
  readonly maxEventsPerStream?: number;
  /** @defaultValue 4 MiB */
  readonly maxBytes?: number;
  /** A stream neither written nor resumed this long is forgotten. @defaultValue 300000 (5 minutes) */
  readonly idleTtlMs?: number;
}

export interface McpEndpoint<S> {
  /**
   * Answers one request to `/mcp` (POST, GET or DELETE) on `res`. `body` is the parsed POST body;
   * `scope` reaches the calls of the tools this request runs.
   */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, scope: S): Promise<void>;
  /** Ends the sessions' server-to-client streams (GET), so a graceful drain does not wait on them. */
  draining(): void;
  /** Closes every session. */
  close(): Promise<void>;
  /** Open sessions. */
  readonly sessions: number;
}
