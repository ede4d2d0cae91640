/**
 * The A2A feature's running part (loaded, with the SDK, only when the agent serves A2A): the card at
 * `GET /.well-known/agent-card.json` and the SDK's JSON-RPC transport at `POST /a2a`, both on the
 * agent's route table behind its bearer check; the SDK's `DefaultRequestHandler` over the bounded,
 * owner-scoped task store and the executor that runs skills through the agent's own routes.
 */
import type { ServerResponse } from "node:http";
import type { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import type { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { publicUrl, readJsonBody, REQUEST_ID_HEADER, sendJson, type AddRoute, type ComponentExtension, type RouteContext } from "../component/index.js";
import { currentScope, ownerKey, requestIdentity, requestIdOf, type Identity } from "../context/index.js";
import { isManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";
import { A2A_CARD_PATH, A2A_PATH, buildAgentCard, skillTargets, type SkillTarget } from "./card.js";
import { createManifoldExecutor, HEADERS_STATE, type ExecutorDeps } from "./executor.js";
import { carriedHeaders, createSelfCaller } from "./self-call.js";
import { createBoundedTaskStore, type TaskStoreOptions } from "./task-store.js";

export interface A2aExtensionOptions extends TaskStoreOptions {
  readonly spec: ComponentSpec;
  /** Whether natural mode is served (the manifest's `natural`, or a planner). */
  readonly natural: boolean;
  /** Whether the agent has chat: natural mode then runs on the chat session of the message's `contextId`. */
  readonly chat?: boolean;
  readonly log: Logger;
}

const VERSION_HEADER = "a2a-version";
/** A2A v0.3 (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`): a request without the version header is one, by A2A 1.0's rule. */
const LEGACY_VERSION = "0.3";
/** JSON-RPC's parse error: a body that is not a JSON object never reaches the SDK. */
const PARSE_ERROR = -32700;

/** The A2A SDK's three entry points; each imports jose (about 50 modules with the SDK's own). */
interface Sdk {
  readonly core: typeof import("@a2a-js/sdk");
  readonly server: typeof import("@a2a-js/sdk/server");
  readonly legacy: typeof import("@a2a-js/sdk/compat/v0_3/server");
}

let sdkLoad: Promise<Sdk> | undefined;

/** Imported with the first A2A request (card or JSON-RPC), not at start: that request waits for the load. */
function loadSdk(): Promise<Sdk> {
  sdkLoad ??= Promise.all([import("@a2a-js/sdk"), import("@a2a-js/sdk/server"), import("@a2a-js/sdk/compat/v0_3/server")]).then(
    ([core, server, legacy]) => ({ core, server, legacy }),
    (error: unknown) => {
      sdkLoad = undefined;
      throw error;
    },
  );
  return sdkLoad;
}

/** The identity the bearer check proved for this request. */
const identityOf = (ctx: RouteContext): Identity => currentScope()?.identity ?? requestIdentity(ctx.req);

function callContext({ server }: Sdk, ctx: RouteContext, requestId: string): ServerCallContext {
  const identity = identityOf(ctx);
  const version = ctx.get(VERSION_HEADER);
  const context = new server.ServerCallContext({
    user: { isAuthenticated: identity.via !== "anonymous", userName: ownerKey(identity) },
    ...(version === "" ? {} : { requestedVersion: version }),
  });
  context.state.set(HEADERS_STATE, { ...carriedHeaders(ctx.headers), "x-manifold-request-id": requestId });
  return context;
}

/** One JSON-RPC response per SSE frame, as the SDK's client reads them; ends when the run's stream does. */
async function writeStream(res: ServerResponse, requestId: string, stream: AsyncGenerator<unknown>, log: Logger): Promise<void> {
  res.writeHead(200, {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
    [REQUEST_ID_HEADER]: requestId,
  });
  res.flushHeaders();
  try {
    for await (const event of stream) {
      if (res.destroyed) break;
      res.write(`data: ${JSON.stringify(event)}\n\n`);
    }
  } catch (error) {
    // The SDK's generator maps protocol errors itself; anything else is ours, and says nothing of internals.
    log.warn("A2A stream failed", { error });
    if (!res.destroyed)
      res.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "internal error" } })}\n\n`);
  } finally {
    if (!res.destroyed) res.end();
  }
}

const rpcError = (code: number, message: string): string => JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } });

export function createA2aExtension({ spec, natural, chat = false, log, ...storeOptions }: A2aExtensionOptions): ComponentExtension {
  const targets: ReadonlyMap<string, SkillTarget> = skillTargets(spec, natural);
  let baseUrl: string | undefined;
  // The executor runs only under the SDK's request handler, made after the SDK loaded: `events` is set by then.
  let events: ExecutorDeps["event"] | undefined;
  const event: ExecutorDeps["event"] = {
    task: (task) => events!.task(task),
    statusUpdate: (update) => events!.statusUpdate(update),
    artifactUpdate: (update) => events!.artifactUpdate(update),
  };
  const executor = createManifoldExecutor({ targets, chat, caller: createSelfCaller(() => baseUrl), event });
  const store = createBoundedTaskStore(storeOptions);
  let handlerCard: ReturnType<typeof buildAgentCard> | undefined;
  // The SDK's v0.3 layer over the same request handler: same tasks, same executor, v0.3 names and shapes.
  let transports: Promise<{ sdk: Sdk; transport: JsonRpcTransportHandler; legacy: LegacyJsonRpcTransportHandler }> | undefined;
  const transportsFor = (card: NonNullable<typeof handlerCard>) =>
    (transports ??= loadSdk().then((sdk) => {
      events = sdk.server.AgentEvent;
      const handler = new sdk.server.DefaultRequestHandler(card, store, executor);
      return { sdk, transport: new sdk.server.JsonRpcTransportHandler(handler), legacy: new sdk.legacy.LegacyJsonRpcTransportHandler(handler) };
    }));

  const serveRpc = async (ctx: RouteContext, bodyLimit: number): Promise<void> => {
    const requestId = requestIdOf(ctx.req);
    ctx.set(REQUEST_ID_HEADER, requestId);
    let body: Record<string, unknown>;
    try {
      body = await readJsonBody(ctx.req, bodyLimit);
    } catch (error) {
      if (isManifoldError(error) && error.code === "INVALID_JSON") return sendJson(ctx, 200, rpcError(PARSE_ERROR, error.message));
      throw error;
    }
    if (handlerCard === undefined) return sendJson(ctx, 503, rpcError(-32603, "the agent is starting"));
    const { sdk, transport, legacy } = await transportsFor(handlerCard);
    const context = callContext(sdk, ctx, requestId);
    const v03 = (ctx.get(VERSION_HEADER) || LEGACY_VERSION) === LEGACY_VERSION;
    try {
      if (!v03) sdk.server.validateVersion(context.requestedVersion, handlerCard, "JSONRPC");
    } catch (error) {
      const { code, message } = sdk.server.JsonRpcTransportHandler.mapToJSONRPCError(error);
      return sendJson(ctx, 200, JSON.stringify({ jsonrpc: "2.0", id: (body["id"] as string | number | undefined) ?? null, error: { code, message } }));
    }
    const answer = await (v03 ? legacy : transport).handle(body, context);
    if (Symbol.asyncIterator in answer) {
      ctx.respond = false;
      return writeStream(ctx.res, requestId, answer, log);
    }
    sendJson(ctx, 200, JSON.stringify(answer));
  };

  return {
    name: "a2a",
    routes(add: AddRoute, { bodyLimit }) {
      add("GET", A2A_CARD_PATH, async (ctx) => {
        // Callers prove themselves with a bearer token exactly when this one had to (or chose to) read the card.
        const card = buildAgentCard({ spec, targets, baseUrl: publicUrl(ctx.req), bearer: identityOf(ctx).via === "token" });
        const { core } = await loadSdk();
        sendJson(ctx, 200, JSON.stringify(core.AgentCard.toJSON(card)));
      });
      add("POST", A2A_PATH, (ctx) => serveRpc(ctx, bodyLimit));
    },
    start({ url }) {
      baseUrl = url;
      handlerCard = buildAgentCard({ spec, targets, baseUrl: url, bearer: false });
    },
    async stop() {
      executor.abortAll();
    },
  };
}
