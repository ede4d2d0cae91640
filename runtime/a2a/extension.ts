/**
 * The A2A feature's running part (loaded, with the SDK, only when the agent serves A2A): the card at
 * `GET /.well-known/agent-card.json` and the SDK's JSON-RPC transport at `POST /a2a`, both on the
 * agent's route table behind its bearer check; the SDK's `DefaultRequestHandler` over the bounded,
 * owner-scoped task store and the executor that runs skills through the agent's own routes.
 */
import type { ServerResponse } from "node:http";
import { AgentCard as AgentCardJson } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { AgentEvent, DefaultRequestHandler, JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import { publicUrl, readJsonBody, REQUEST_ID_HEADER, sendJson, type AddRoute, type ComponentExtension, type RouteContext } from "../component/index.js";
import { currentScope, ownerKey, requestIdentity, requestIdOf, type Identity } from "../context/index.js";
import { isManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { Logger } from "../telemetry/index.js";
import { A2A_CARD_PATH, A2A_PATH, buildAgentCard, skillTargets, type SkillTarget } from "./card.js";
import { createManifoldExecutor, HEADERS_STATE } from "./executor.js";
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

/** The identity the bearer check proved for this request. */
const identityOf = (ctx: RouteContext): Identity => currentScope()?.identity ?? requestIdentity(ctx.req);

function callContext(ctx: RouteContext, requestId: string): ServerCallContext {
  const identity = identityOf(ctx);
  const version = ctx.get(VERSION_HEADER);
  const context = new ServerCallContext({
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
  const executor = createManifoldExecutor({ targets, chat, caller: createSelfCaller(() => baseUrl), event: AgentEvent });
  const store = createBoundedTaskStore(storeOptions);
  let transport: JsonRpcTransportHandler | undefined;
  // The SDK's v0.3 layer over the same request handler: same tasks, same executor, v0.3 names and shapes.
  let legacy: LegacyJsonRpcTransportHandler | undefined;
  let handlerCard: ReturnType<typeof buildAgentCard> | undefined;

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
    if (transport === undefined || legacy === undefined || handlerCard === undefined) return sendJson(ctx, 503, rpcError(-32603, "the agent is starting"));
    const context = callContext(ctx, requestId);
    const v03 = (ctx.get(VERSION_HEADER) || LEGACY_VERSION) === LEGACY_VERSION;
    try {
      if (!v03) validateVersion(context.requestedVersion, handlerCard, "JSONRPC");
    } catch (error) {
      const { code, message } = JsonRpcTransportHandler.mapToJSONRPCError(error);
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
      add("GET", A2A_CARD_PATH, (ctx) => {
        // Callers prove themselves with a bearer token exactly when this one had to (or chose to) read the card.
        const card = buildAgentCard({ spec, targets, baseUrl: publicUrl(ctx.req), bearer: identityOf(ctx).via === "token" });
        sendJson(ctx, 200, JSON.stringify(AgentCardJson.toJSON(card)));
      });
      add("POST", A2A_PATH, (ctx) => serveRpc(ctx, bodyLimit));
    },
    start({ url }) {
      baseUrl = url;
      handlerCard = buildAgentCard({ spec, targets, baseUrl: url, bearer: false });
      const handler = new DefaultRequestHandler(handlerCard, store, executor);
      transport = new JsonRpcTransportHandler(handler);
      legacy = new LegacyJsonRpcTransportHandler(handler);
    },
    async stop() {
      executor.abortAll();
    },
  };
}
