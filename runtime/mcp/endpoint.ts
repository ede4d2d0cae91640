/**
 * `/mcp`: the MCP Streamable HTTP endpoint of one component, on the official SDK's low-level `Server`
 * and our node:http transport (transport.ts), stateful. An `initialize` POST opens a session (its id a
 * random UUID, in `Mcp-Session-Id`); every later request names it and is handed to that session's
 * transport; DELETE ends it. The component's event store keeps its streams' events for resumption. The caller's route has already checked the bearer token and read the body within
 * the component's limit, so this sees a parsed body and an identified request.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { ownerKey, requestIdentity } from "../context/index.js";
import { systemClock } from "../util/index.js";
import { createMcpEventStore } from "./event-store.js";
import { createSessionTable } from "./sessions.js";
import { createToolTable, isPlainRecord, type McpToolTable } from "./tools.js";
import { McpNodeTransport, refuse, type DirectCall } from "./transport.js";
import type { McpEndpoint, McpEndpointOptions } from "./types.js";

interface Session<S> {
  readonly server: Server;
  readonly transport: McpNodeTransport<S>;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whose session it is: the identity the bearer check settled on (anonymous without one). */
function ownerOf(req: IncomingMessage): string {
  return ownerKey(requestIdentity(req));
}

function createSessionServer<S>(options: McpEndpointOptions<S>, tools: McpToolTable<S>, scopes: AsyncLocalStorage<S>): Server {
  const { name, version, instructions } = options;
  const server = new Server({ name, version }, { capabilities: { tools: { listChanged: false } }, ...(instructions === undefined ? {} : { instructions }) });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.list] }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    // The tool runs inside the POST that carried it, whose scope the endpoint put here.
    const scope = scopes.getStore() as S;
    return tools.call(request.params.name, request.params.arguments ?? {}, { signal: extra.signal, scope });
  });
  // Transport errors (a malformed message, a refused header) are answered to the client by the SDK.
  server.onerror = () => {};
  return server;
}

/**
 * A `tools/call` answered without the SDK's `Protocol` (its zod parses of the request and the result,
 * an AbortController and a promise chain per call): the ones whose params are only a name and
 * arguments the SDK's schema would take unchanged. Anything else (`_meta`, `task`, odd arguments)
 * goes to the server, which answers it as before.
 */
function answerDirectly<S>(tools: McpToolTable<S>, request: Record<string, unknown>, call: DirectCall<S>): Promise<string> | undefined {
  if (request["method"] !== "tools/call") return undefined;
  const params = request["params"] as Record<string, unknown> | undefined;
  if (params === undefined || !isPlainRecord(params)) return undefined;
  for (const key in params) if (key !== "name" && key !== "arguments") return undefined;
  const { name, arguments: args } = params;
  if (typeof name !== "string") return undefined;
  if (args === undefined) return tools.answer(name, {}, call);
  if (typeof args !== "object" || args === null || !isPlainRecord(args)) return undefined;
  return tools.answer(name, args as Record<string, unknown>, call);
}

/** The endpoint on the SDK; loaded by `createMcpEndpoint` (lazy-endpoint.ts) on first need. */
export function createSdkEndpoint<S>(options: McpEndpointOptions<S>): McpEndpoint<S> {
  const { log, maxSessions, sessionTtlMs, clock = systemClock, resumability = {}, streamAfterMs = 1000 } = options;
  // One store for the component's sessions, so its bounds hold whatever the number of sessions.
  const events = resumability === false ? undefined : createMcpEventStore({ clock, ...resumability });
  const tools = createToolTable(options.tools, { log, component: options.name });
  const scopes = new AsyncLocalStorage<S>();
  const closing = new Set<Promise<void>>();
  // Closing the server closes its transport: open streams end, requests still running are cancelled.
  const closeSession = ({ server }: Session<S>): void => {
    const closed: Promise<void> = server
      .close()
      .catch((error: unknown) => log(`${options.name} MCP session close failed: ${String(error)}`))
      .finally(() => closing.delete(closed));
    closing.add(closed);
  };
  const table = createSessionTable<Session<S>>({
    ...(maxSessions === undefined ? {} : { maxSessions }),
    ...(sessionTtlMs === undefined ? {} : { idleTtlMs: sessionTtlMs }),
    clock,
    close: closeSession,
  });

  /** A new session for an `initialize` POST; it joins the table once the SDK has given it its id. */
  const enter = (scope: S, deliver: () => void): void => scopes.run(scope, deliver);
  const direct = (request: Record<string, unknown>, call: DirectCall<S>): Promise<string> | undefined => answerDirectly(tools, request, call);
  const open = async (owner: string): Promise<Session<S>> => {
    const sessionId = randomUUID();
    const onInitialized = (): void => table.add(sessionId, session, owner);
    const transport = new McpNodeTransport<S>({ sessionId, events, clock, streamAfterMs, onInitialized, enter, direct });
    // DELETE, or the server closed: the session leaves the table (a no-op when it already has).
    transport.onclose = () => table.remove(sessionId);
    const server = createSessionServer(options, tools, scopes);
    const session: Session<S> = { server, transport };
    await server.connect(transport);
    return session;
  };

  const serve = (session: Session<S>, id: string | undefined, req: IncomingMessage, res: ServerResponse, body: unknown, scope: S): void => {
    // In flight until the response closes (a GET stream stays open): such a session is never idle.
    const release = id === undefined ? undefined : table.hold(id);
    if (release !== undefined) res.once("close", release);
    session.transport.handle(req, res, body, scope);
  };

  return {
    async handle(req, res, body, scope) {
      const id = header(req, "mcp-session-id");
      if (id !== undefined) {
        const session = table.get(id, ownerOf(req));
        if (session === undefined) return refuse(res, 404, -32001, "Session not found");
        return serve(session, id, req, res, body, scope);
      }
      if (req.method !== "POST" || !isInitializeRequest(body)) return refuse(res, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
      return serve(await open(ownerOf(req)), undefined, req, res, body, scope);
    },
    draining() {
      for (const { transport } of table.values()) transport.closeStandaloneSSEStream();
    },
    async close() {
      table.clear();
      await Promise.all([...closing]);
      events?.clear();
    },
    get sessions() {
      return table.size;
    },
  };
}
