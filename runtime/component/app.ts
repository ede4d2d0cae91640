import { randomBytes } from "node:crypto";
import type { RequestListener } from "node:http";
import type { ReportedHealth } from "../discovery/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { capabilitySchema, capabilityWire, schemaName } from "../spec/index.js";
import type { CapabilitySpec, ComponentSpec } from "../spec/index.js";
import { createLogger, noteServiceName } from "../telemetry/index.js";
import { AUTH_CHALLENGE, createAuthCheck, type AuthCheck } from "./auth.js";
import { createCapabilityCall, createPostCall, type CapabilityCall, type CapabilityCallOptions } from "./capability.js";
import { ApprovalGate, currentScope, requestIdentity, runInScope, withIdentity } from "../context/index.js";
import type { CallContext } from "./call-context.js";
import type { Log } from "./errors-middleware.js";
import type { ComponentExtension, ExtensionContext } from "./extension.js";
import type { AroundFactory } from "./koa-middleware.js";
import { addMcpPreflight, addMcpRoutes, mcpSettings, type ServedCapability } from "./mcp-route.js";
import { mcpOpenApi } from "../mcp/index.js";
import { openApiBody } from "./openapi-route.js";
import { resolveBodyLimit, resolveEnableOpenApi, resolveHost } from "./options.js";
import { createPipeline } from "./pipeline.js";
import { REQUEST_ID_HEADER, sendJson, type ServerState } from "./reply.js";
import { createRouteTable, type AddRoute, type RouteTable } from "./routes.js";
import type { CapabilityTypes, ComponentOptions, Handler } from "./types.js";
import { checkHandlerKeys, handlerAt } from "../util/index.js";
import { compileInputValidator, createAjv, type AjvSource } from "./validate.js";
import { createCorsPolicy, createTrustCheck, resolveAllowedHosts, resolveCorsOrigins } from "./trust.js";

export type AppOptions<C extends CapabilityTypes> = Pick<
  ComponentOptions<C>,
  "handlers" | "bodyLimit" | "enableOpenApi" | "log" | "auth" | "extensions" | "healthOnly" | "host" | "corsOrigins" | "allowedHosts" | "mcp"
> & {
  /** The component's current health for `GET /health` (serve passes its health probe). @defaultValue always healthy */
  readonly health?: () => Promise<ReportedHealth>;
  /** The user's Koa middleware, Koa already loaded (serve does it: start-up is async, this is not). */
  readonly around?: AroundFactory | undefined;
};

/**
 * Not part of ComponentOptions: lets tests and the benchmark serve capability POSTs as route handlers
 * on a RouteContext (as every other route is) instead of raw, to prove both answer the same.
 */
export interface AppInternals {
  /** @defaultValue true */
  readonly fastPath?: boolean;
}

export interface ComponentApp {
  /** `<name>-<8 hex>`, reported by /health; one per app instance. */
  readonly id: string;
  /** The node:http listener: every route through one pipeline (pipeline.ts). */
  readonly listener: RequestListener;
  readonly state: ServerState;
  /** The app's own parts with a lifecycle (the MCP sessions), drained and stopped after the given extensions. */
  readonly extensions: readonly ComponentExtension[];
}

/**
 * The component's log when none is given: one JSON line per message (`DEV_MODE=true`: readable text).
 * The logger is callable (info) and has `error`, which errorResponse uses for handler failures.
 */
export function defaultComponentLog(spec: ComponentSpec): Log {
  return createLogger({ service: spec.name, component: "component" });
}

/** Every capability has a function handler and every handler names a capability; checked by own keys only. */
function resolveHandlers(spec: ComponentSpec, handlers: object): Map<CapabilitySpec, Handler<unknown, unknown>> {
  checkHandlerKeys(handlers, new Set(spec.capabilities.map((c) => c.key)), { prefix: "handlers", noun: "a capability", owner: spec.name });
  return new Map(spec.capabilities.map((c) => [c, handlerAt<Handler<unknown, unknown>>(handlers, c.key, "handlers", `capability ${c.name}`)]));
}

/** The capability POSTs: raw routes (their call writes the response), or route handlers when the fast path is off. */
interface CallTable {
  add(path: string, call: Pick<CapabilityCall, "reply" | "serve">): void;
}

function createCallTable(table: RouteTable, fastPath: boolean): CallTable {
  return {
    add(path, call) {
      if (fastPath) return table.addRaw("POST", path, call.serve);
      table.add("POST", path, async (ctx) => {
        const reply = await call.reply(ctx.req, ctx.res);
        ctx.set(REQUEST_ID_HEADER, reply.requestId);
        const extra = reply.headers ?? [];
        for (let i = 0; i + 1 < extra.length; i += 2) ctx.set(extra[i]!, extra[i + 1]!);
        sendJson(ctx, reply.status, reply.body);
      });
    },
  };
}

/**
 * An extension's JSON POST (orchestration, tasks), served like a capability call; `forward` names
 * headers its outbound calls pass on; `gated` goes on its request's approval gate (issue 32, H2).
 */
function postRoutes(spec: ComponentSpec, table: CallTable, options: CapabilityCallOptions, gated: readonly string[]): ExtensionContext["post"] {
  return (path, work, { forward } = {}) => {
    const invoke =
      forward === undefined && gated.length === 0
        ? work
        : (input: Record<string, unknown>, context: CallContext) => {
            if (gated.length > 0) context.approval.restrict(gated);
            if (forward !== undefined) context.forward(forward);
            return work(input, context);
          };
    const where = `${spec.name} POST ${path}`;
    table.add(path, createPostCall({ name: path, where, invoke }, options));
  };
}

/** `/health` and `/api/capabilities`, their bodies serialised once here (only a non-healthy status is serialised per request). */
function addDescriptionRoutes(add: AddRoute, spec: ComponentSpec, id: string, health: (() => Promise<ReportedHealth>) | undefined, healthOnly: boolean): void {
  const healthBody = (status: ReportedHealth): string => JSON.stringify({ status, type: spec.kind, name: spec.name, id });
  const healthy = healthBody("healthy");
  // Degraded still serves (200); unhealthy answers 503 so a load balancer or probe takes it out.
  add(
    "GET",
    "/health",
    health === undefined
      ? (ctx) => sendJson(ctx, 200, healthy)
      : async (ctx) => {
          const status = await health();
          sendJson(ctx, status === "unhealthy" ? 503 : 200, status === "healthy" ? healthy : healthBody(status));
        },
  );
  if (healthOnly) return;
  const capabilities = JSON.stringify(spec.capabilities.map(capabilityWire));
  add("GET", "/api/capabilities", (ctx) => sendJson(ctx, 200, capabilities));
}

/**
 * Each capability's POST (validated against its input schema) and `GET /api/capabilities/{name}/schema`;
 * returns each handler with its compiled validator, which the MCP tools use too.
 */
function addCapabilityRoutes(
  add: AddRoute,
  table: CallTable,
  resolved: ReadonlyMap<CapabilitySpec, Handler<unknown, unknown>>,
  options: CapabilityCallOptions,
  ajv: AjvSource,
): Map<CapabilitySpec, ServedCapability> {
  const served = new Map<CapabilitySpec, ServedCapability>();
  for (const [capability, handler] of resolved) {
    const validate = compileInputValidator(ajv, capability);
    served.set(capability, { handler, validate });
    table.add(capability.endpoint, createCapabilityCall(capability, handler, validate, options));
    const schema = capabilitySchema(capability, "input", schemaName(capability, "input"));
    const schemaBody = schema === undefined ? undefined : JSON.stringify(schema);
    add("GET", `/api/capabilities/${capability.name}/schema`, (ctx) => {
      if (schemaBody === undefined) throw new ManifoldError("NOT_FOUND", `capability ${capability.name} has no input schema`);
      sendJson(ctx, 200, schemaBody);
    });
  }
  return served;
}

/**
 * Extension routes (orchestration, tasks) act for the caller just as capability calls do, so the
 * same bearer check guards them; /health and /api/capabilities stay open.
 */
function guardedRoutes(add: AddRoute, authCheck: AuthCheck | undefined): AddRoute {
  if (authCheck === undefined) return add;
  return (method, path, handler) =>
    add(method, path, async (ctx) => {
      const refused = await new Promise<unknown>((resolve) => authCheck(ctx.req, resolve));
      if (refused !== undefined) {
        if (isManifoldError(refused) && refused.code === "UNAUTHORIZED") ctx.set(AUTH_CHALLENGE[0], AUTH_CHALLENGE[1]);
        throw refused;
      }
      // The route and every scope it opens see the identity the check settled on.
      await withIdentity(requestIdentity(ctx.req), () => handler(ctx));
    });
}

/**
 * Extension routes (chat, HITL, orchestration, tasks) run in a scope whose approval gate already holds
 * `gated`: a handler that calls a sensitive capability itself, before or without any orchestration run,
 * is refused APPROVAL_REQUIRED (issue 32, H2). The route's own request context shares this gate.
 */
function gatedRoutes(add: AddRoute, gated: readonly string[]): AddRoute {
  if (gated.length === 0) return add;
  return (method, path, handler) =>
    add(method, path, (ctx) => {
      const outer = currentScope();
      const approval = (outer?.approval ?? new ApprovalGate()).restrict(gated);
      const { requestId, originalRequestId, conversationId, forwarded, identity } = outer ?? {};
      return runInScope({ requestId, originalRequestId, conversationId, forwarded, identity, approval }, handler, ctx);
    });
}

export function createComponentApp<C extends CapabilityTypes>(
  spec: ComponentSpec,
  {
    handlers,
    bodyLimit,
    enableOpenApi,
    log = defaultComponentLog(spec),
    health,
    auth,
    extensions = [],
    healthOnly = false,
    mcp,
    around,
    ...trusted
  }: AppOptions<C>,
  { fastPath = true }: AppInternals = {},
): ComponentApp {
  const id = `${spec.name}-${randomBytes(4).toString("hex")}`;
  const corsOrigins = resolveCorsOrigins(trusted.corsOrigins);
  const trust = createTrustCheck({ corsOrigins, allowedHosts: resolveAllowedHosts(trusted.allowedHosts), boundHost: resolveHost(trusted.host) });
  const state: ServerState = { draining: false, signals: new Set(), cors: createCorsPolicy(corsOrigins) };
  const limit = resolveBodyLimit(bodyLimit);
  const resolved = resolveHandlers(spec, handlers);
  const table = createRouteTable();
  const { add } = table;
  const calls = createCallTable(table, fastPath);
  const callOptions: CapabilityCallOptions = { component: spec.name, bodyLimit: limit, log, state, auth: createAuthCheck(auth, spec.name) };
  noteServiceName(spec.name);

  addDescriptionRoutes(add, spec, id, health, healthOnly);
  const own: ComponentExtension[] = [];
  if (!healthOnly) {
    const ajv = createAjv();
    const capabilities = addCapabilityRoutes(add, calls, resolved, callOptions, ajv);
    const gated = extensions.flatMap((extension) => extension.gated ?? []);
    const post = postRoutes(spec, calls, callOptions, gated);
    const guarded = gatedRoutes(guardedRoutes(add, callOptions.auth), gated);
    for (const extension of extensions) extension.routes?.(guarded, { spec, log, bodyLimit: limit, post });
    const settings = mcpSettings(mcp, spec);
    // Not gated as a whole: a capability tool is a direct call, as its POST is; extension tools gate each call.
    if (settings !== undefined) {
      // Its POST (every tools/call) a raw route too; GET and DELETE, rare, are route handlers.
      const addRaw = fastPath ? table.addRaw : undefined;
      const parts = { spec, log, state, bodyLimit: limit, capabilities, extensions, ajv, settings, auth: callOptions.auth, addRaw };
      const mcpRoutes = addMcpRoutes(guardedRoutes(add, callOptions.auth), parts);
      own.push(mcpRoutes.extension);
      addMcpPreflight(add, state.cors);
    }
    if (resolveEnableOpenApi(enableOpenApi)) {
      const additions = [...extensions.flatMap((extension) => extension.openapi ?? []), ...(settings === undefined ? [] : [mcpOpenApi])];
      // The live document states what this server checks, unlike the emitted file, which cannot know.
      const security = auth === undefined ? "none" : auth.required === false ? "optional" : "required";
      add("GET", "/openapi.json", (ctx) => sendJson(ctx, 200, openApiBody(spec, ctx.req, additions, security)));
    }
  }

  return {
    id,
    listener: createPipeline({ name: spec.name, log, state, table, trust, around: around?.({ name: spec.name, log, state }) }),
    state,
    extensions: own,
  };
}
