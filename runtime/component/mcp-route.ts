/**
 * The component's MCP server (issue 34) at `POST|GET|DELETE /mcp`: its non-internal capabilities as
 * tools (the same schemas, the same compiled validators and handlers as their HTTP routes), and its
 * extensions' `mcpTools`. The route is added to the same table as every other, behind the same bearer
 * check, body limit, CORS and Host/Origin checks; each tool call runs in a request scope built from
 * the HTTP request that carried it, as a capability call's does.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { requestIdOf, runInScope } from "../context/index.js";
import { ManifoldError, toManifoldError } from "../errors/index.js";
import { createMcpEndpoint, MCP_PATH, type McpEndpoint, type McpToolDefinition, type McpToolOutcome, type McpToolRequest } from "../mcp/index.js";
import { capabilitySchema, schemaName, type CapabilitySpec, type ComponentSpec, type JsonSchema } from "../spec/index.js";
import { getTelemetry, type ServerTrace } from "../telemetry/index.js";
import { AUTH_CHALLENGE, type AuthCheck } from "./auth.js";
import { readBody, readJsonBody } from "./body.js";
import { CallContext } from "./call-context.js";
import { errorResponse, type Log } from "./errors-middleware.js";
import type { ComponentExtension, McpTool } from "./extension.js";
import { JsonReply } from "./json-route.js";
import { CORS_ALLOW_HEADERS, corsHeaders, REQUEST_ID_HEADER, writeReply, type ServerState } from "./reply.js";
import type { AddRoute, RawServe } from "./routes.js";
import type { CorsPolicy } from "./trust.js";
import { resolveMcpEnabled } from "./options.js";
import type { Handler, McpOptions } from "./types.js";
import { compileValidator, type AjvSource, type InputValidator } from "./validate.js";

/** The HTTP request a tool call arrived in. */
interface McpScope {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly trace: ServerTrace | undefined;
}

/** A capability as served: its handler and the validator its HTTP route uses. */
export interface ServedCapability {
  readonly handler: Handler<unknown, unknown>;
  readonly validate: InputValidator;
}

export interface McpRouteParts {
  readonly spec: ComponentSpec;
  readonly log: Log;
  readonly state: ServerState;
  readonly bodyLimit: number;
  readonly capabilities: ReadonlyMap<CapabilitySpec, ServedCapability>;
  readonly extensions: readonly ComponentExtension[];
  /** The app's ajv, for the extensions' tool schemas. */
  readonly ajv: AjvSource;
  readonly settings: McpOptions;
  /** The component's bearer check, for the raw POST (the route handlers get it from `add`). */
  readonly auth: AuthCheck | undefined;
  /** Adds the POST as a raw route (every tools/call); without it the POST is a route handler like GET and DELETE. */
  readonly addRaw?: ((method: string, path: string, serve: RawServe) => void) | undefined;
}

/** `/mcp` as served: its lifecycle. */
export interface McpRoutes {
  readonly extension: ComponentExtension;
}

const EXPOSED = ["Access-Control-Expose-Headers", `Mcp-Session-Id, ${REQUEST_ID_HEADER}`] as const;
const ANY_OBJECT: JsonSchema = { type: "object" };

/**
 * A handler's context whose signal also aborts when the MCP client cancels the call. Its identity is
 * the request's (CallContext reads it from the request), so the call needs no identity scope of its own.
 */
class McpCallContext extends CallContext {
  readonly #request: McpToolRequest<McpScope>;
  #signal: AbortSignal | undefined;

  constructor(name: string, request: McpToolRequest<McpScope>, state: ServerState) {
    const { req, res, requestId, trace } = request.scope;
    super(name, requestId, req, res, state, trace);
    this.#request = request;
  }

  // Both signals are made only when the handler asks: most never do.
  override get signal(): AbortSignal {
    return (this.#signal ??= AbortSignal.any([super.signal, this.#request.signal]));
  }
}

/** Runs `work` as a capability call's handler runs: in the call's request scope, inside its server span. */
async function inScope<R>(context: CallContext, trace: ServerTrace | undefined, work: (context: CallContext) => R): Promise<Awaited<R>> {
  try {
    return await (trace === undefined ? runInScope(context, work, context) : trace.run(() => runInScope(context, work, context)));
  } catch (error) {
    trace?.fail(toManifoldError(error).code);
    throw error;
  }
}

/** The JSON a capability's route answers, as a tool result: an object output is also the structured content. */
function outcomeOf(output: unknown): McpToolOutcome {
  const value = output instanceof JsonReply ? output.body : output;
  const text = JSON.stringify(value) ?? "null";
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? { structured: value as Record<string, unknown>, text, textIsStructured: true }
    : { text };
}

function capabilityTool(capability: CapabilitySpec, { handler, validate }: ServedCapability, state: ServerState): McpToolDefinition<McpScope> {
  const outputSchema = capabilitySchema(capability, "output", schemaName(capability, "output"));
  return {
    name: capability.name,
    description: capability.description,
    inputSchema: capabilitySchema(capability, "input", schemaName(capability, "input")) ?? ANY_OBJECT,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    validate,
    call: async (args, request) => {
      const context = new McpCallContext(capability.name, request, state);
      return outcomeOf(await inScope(context, request.scope.trace, (ctx) => handler(args, ctx)));
    },
  };
}

/** An extension's tool; its calls start with the extensions' `gated` on their approval gate, as its routes do. */
function extensionTool(tool: McpTool, state: ServerState, ajv: AjvSource, gated: readonly string[]): McpToolDefinition<McpScope> {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    validate: compileValidator(tool.inputSchema as JsonSchema, { ajv }),
    call: async (args, request) => {
      const context = new McpCallContext(tool.name, request, state);
      if (gated.length > 0) context.approval.restrict(gated);
      const { structured, text } = await inScope(context, request.scope.trace, (ctx) => tool.call(args, ctx));
      return text === undefined ? { structured, text: JSON.stringify(structured), textIsStructured: true } : { structured, text };
    },
  };
}

/**
 * `POST /mcp` as a raw route, as capability POSTs are served (a tools/call is one): the same bearer
 * check, body limit, CORS and exposed headers, request id, identity and span as the route handler
 * below (used with `fastPath: false`), without a route context per call.
 */
function fastPost(endpoint: McpEndpoint<McpScope>, { spec, log, state, bodyLimit, auth }: McpRouteParts): RawServe {
  return (req, res) => {
    const trace = getTelemetry().serverTraceOf(req);
    const requestId = requestIdOf(req, trace?.requestId);
    const fail = (error: unknown): void => {
      const { status, body } = errorResponse(error, log, `${spec.name} POST ${MCP_PATH} [${requestId}]`);
      trace?.fail(toManifoldError(error).code);
      if (res.headersSent) return void res.destroy();
      writeReply(res, status === 401 ? { status, body, requestId, headers: AUTH_CHALLENGE } : { status, body, requestId }, state);
    };
    const serve = (): void =>
      readBody(req, bodyLimit, (error, body) => {
        if (body === undefined) return fail(error);
        const cors = corsHeaders(state.cors, req.headers.origin);
        for (let i = 0; i + 1 < cors.length; i += 2) res.setHeader(cors[i]!, cors[i + 1]!);
        if (state.cors.allowed(req.headers.origin) !== undefined) res.setHeader(EXPOSED[0], EXPOSED[1]);
        res.setHeader(REQUEST_ID_HEADER, requestId);
        if (state.draining) res.setHeader("Connection", "close");
        // No identity scope: a tool call's context reads the identity from the request (McpCallContext).
        endpoint.handle(req, res, body, { req, res, requestId, trace }).catch(fail);
      });
    if (auth === undefined) return serve();
    auth(req, (error) => (error === undefined ? serve() : fail(error)));
  };
}

/** What an MCP client in a browser sends beside the usual headers (the session, the protocol version, a resumption point). */
const MCP_ALLOW_HEADERS = `${CORS_ALLOW_HEADERS}, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID`;

/**
 * The CORS preflight of `/mcp` (with `add`, the unguarded adder: a browser sends no token on a
 * preflight). As every route's: answered for an allowlisted origin only (403 for another), and the
 * origin echoed by the errors middleware; it also allows the MCP headers.
 */
export function addMcpPreflight(add: AddRoute, cors: CorsPolicy): void {
  add("OPTIONS", MCP_PATH, (ctx) => {
    ctx.set("Allow", "POST, GET, DELETE, OPTIONS");
    const origin = ctx.req.headers.origin;
    if (origin !== undefined) {
      if (cors.allowed(origin) === undefined)
        throw new ManifoldError("FORBIDDEN", "this origin is not allowed to call from a browser: it is not listed in MANIFOLD_CORS_ORIGINS");
      ctx.set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
      ctx.set("Access-Control-Allow-Headers", MCP_ALLOW_HEADERS);
    }
    ctx.status = 204;
  });
}

/** The MCP settings when `/mcp` is served (option, else `MANIFOLD_MCP_ENABLED`, else the manifest), else undefined. */
export function mcpSettings(option: boolean | McpOptions | undefined, spec: ComponentSpec, env = process.env): McpOptions | undefined {
  const settings = typeof option === "object" ? option : {};
  const enabled = resolveMcpEnabled(typeof option === "boolean" ? option : settings.enabled, spec.mcp, env);
  return enabled ? settings : undefined;
}

/**
 * Adds `/mcp` (with `add`, the bearer-checked route adder) and returns its lifecycle: on draining the
 * sessions' event streams end (a drain would otherwise wait for them), on stop the sessions close.
 */
export function addMcpRoutes(add: AddRoute, parts: McpRouteParts): McpRoutes {
  const { spec, log, state, bodyLimit, capabilities, extensions, ajv } = parts;
  const gated = extensions.flatMap((extension) => extension.gated ?? []);
  const tools = [
    ...[...capabilities].filter(([capability]) => !capability.internal).map(([capability, served]) => capabilityTool(capability, served, state)),
    ...extensions.flatMap((extension) => extension.mcpTools ?? []).map((tool) => extensionTool(tool, state, ajv, gated)),
  ];
  const endpoint = createMcpEndpoint<McpScope>({
    name: spec.name,
    version: spec.version,
    instructions: spec.description,
    tools,
    log,
    maxSessions: parts.settings.maxSessions,
    sessionTtlMs: parts.settings.sessionTtlMs,
    clock: parts.settings.clock,
    resumability: parts.settings.resumability,
    streamAfterMs: parts.settings.streamAfterMs,
  });
  for (const method of ["POST", "GET", "DELETE"]) {
    if (method === "POST" && parts.addRaw !== undefined) {
      parts.addRaw("POST", MCP_PATH, fastPost(endpoint, parts));
      continue;
    }
    add(method, MCP_PATH, async (ctx) => {
      const trace = getTelemetry().serverTraceOf(ctx.req);
      const requestId = requestIdOf(ctx.req, trace?.requestId);
      ctx.set(REQUEST_ID_HEADER, requestId);
      // A browser page of an allowlisted origin must be able to read the session id it is given.
      if (state.cors.allowed(ctx.req.headers.origin) !== undefined) ctx.set(EXPOSED[0], EXPOSED[1]);
      const body = method === "POST" ? await readJsonBody(ctx.req, bodyLimit) : undefined;
      // The SDK's transport writes the response itself (JSON or an event stream).
      ctx.respond = false;
      try {
        await endpoint.handle(ctx.req, ctx.res, body, { req: ctx.req, res: ctx.res, requestId, trace });
      } catch (error) {
        if (ctx.res.headersSent) {
          log(`${spec.name} MCP ${method} failed mid-response: ${String(error)}`);
          ctx.res.destroy();
          return;
        }
        // Nothing written yet: the errors middleware answers in the envelope.
        ctx.respond = true;
        throw error;
      }
    });
  }
  return { extension: { name: "mcp", draining: () => endpoint.draining(), stop: () => endpoint.close() } };
}
