import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import { ManifoldError, type ErrorCode } from "../errors/index.js";
import { createLogger, type ClientTrace, type Logger, type Telemetry } from "../telemetry/index.js";
import { ATTR, CONVERSATION_HEADER, METRIC } from "../telemetry/index.js";
import {
  HEADER,
  checkHeader,
  checkToken,
  currentScope,
  parametersHash,
  redactValues,
  registerSecret,
  type ApprovalGate,
  type RequestScope,
} from "../context/index.js";
import { getTelemetry } from "../telemetry/index.js";
import { isThenable, type AbortSource } from "../util/index.js";
import { buildHeaders } from "./headers.js";
import { keepAliveTransport, type HttpMethod, type Transport, type TransportResponse } from "./transport.js";
import { createAgentTokens, createTokenHolder, isTokenSource, resolveTokenSource, type AgentTokens, type TokenSource } from "./token.js";

export interface CallerOptions {
  /** The configured token. @defaultValue `MANIFOLD_OAUTH_TOKEN`, else none */
  readonly token?: string | TokenSource | undefined;
  /** Configured propagated headers, sent on every call (reserved names skipped). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Per-call timeout. @defaultValue 30000 */
  readonly timeoutMs?: number | undefined;
  /** @defaultValue a JSON logger for `outbound` */
  readonly log?: Logger | undefined;
  /** Where `MANIFOLD_OAUTH_TOKEN` is read. @defaultValue process.env */
  readonly env?: NodeJS.ProcessEnv | undefined;
  /**
   * How requests go on the wire. `keepAliveTransport` (undici's keep-alive pools) costs a fraction of
   * `fetchTransport` per call. @defaultValue keepAliveTransport
   */
  readonly transport?: Transport | undefined;
  /**
   * The agent these calls come from: sent as `X-Manifold-Agent-Name` on every call, and proven by an
   * `X-Manifold-Agent-Token` when `env` has `MANIFOLD_REGISTRY_KEY`. @defaultValue none
   */
  readonly agentName?: string | undefined;
}

export interface OutboundRequest {
  /** Absolute http(s) URL of the endpoint. */
  readonly url: string;
  /** GET reads a resource (a task's status): no body, no Content-Type. The others are for `foreign` calls. @defaultValue "POST" */
  readonly method?: HttpMethod | undefined;
  /**
   * The endpoint is an HTTP API, not a component (an OpenAPI import's proxy): `body` undefined sends
   * none (and no Content-Type), an empty 2xx answer is null, and a non-2xx answer is the ManifoldError
   * its status maps to (foreignError), since such a service answers no error envelope. @defaultValue false
   */
  readonly foreign?: boolean | undefined;
  /** JSON-serialised as the body of a POST; undefined sends `{}`. Ignored for GET. */
  readonly body: unknown;
  /** What is called, for messages, spans and metrics: the capability name. */
  readonly name: string;
  /** The called component's name, when known. */
  readonly target?: string | undefined;
  /** Per-request token; wins over the request context's and the configured one. */
  readonly token?: string | undefined;
  /** Per-request propagated headers; win over the context's and the configured ones. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** @defaultValue the request context's id, else a fresh UUID */
  readonly requestId?: string | undefined;
  /** @defaultValue a fresh UUID */
  readonly stepId?: string | undefined;
  /** Workflow calls: sent as `X-Workflow-Id` and `X-Step-Id`. */
  readonly workflow?: { readonly id: string; readonly stepId: string } | undefined;
  /** @defaultValue the caller's timeoutMs */
  readonly timeoutMs?: number | undefined;
  /** Aborts the call (ABORTED): an AbortSignal, or the runtime's cheaper Abortable (a task run's). */
  readonly signal?: AbortSource | undefined;
  /** Sent as `X-Manifold-Idempotency-Key` (reserved: only the caller sets it), e.g. a scheduled run's id. */
  readonly idempotencyKey?: string | undefined;
}

export interface Caller {
  /** POSTs the JSON body (or GETs); resolves to the parsed 2xx body, rejects with a ManifoldError. */
  call(request: OutboundRequest): Promise<unknown>;
  /** Replaces the configured token (or source) for calls that start from now on. */
  setToken(token: string | TokenSource | undefined): void;
  toJSON(): Record<string, unknown>;
}

export function checkTimeout(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError("timeoutMs must be a non-negative number");
  return ms;
}

/** The URL as it may appear in a message: without user info, query or fragment. */
function printable(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** A parsed endpoint and its printable form. */
interface Endpoint {
  readonly url: URL;
  readonly printable: string;
}

/** Endpoints parsed per caller at most; past it the memo starts over. */
const MAX_ENDPOINTS = 1_000;

/**
 * Parses each URL once: a caller sends to the same few endpoints again and again (an orchestrator's
 * tools, an agent's scheduled route). The transport never changes the URL it is given.
 */
function createEndpointMemo(): (text: string) => Endpoint {
  const endpoints = new Map<string, Endpoint>();
  return (text) => {
    let found = endpoints.get(text);
    if (found === undefined) {
      const url = new URL(text);
      if (endpoints.size >= MAX_ENDPOINTS) endpoints.clear();
      endpoints.set(text, (found = { url, printable: printable(url) }));
    }
    return found;
  };
}

/** One caller's settings; `source` changes with setToken. */
interface CallerState {
  source: TokenSource;
  readonly configured: Readonly<Record<string, string>>;
  readonly agentName: string | undefined;
  /** The agent's proof of its name, when it has a name and the network a key. */
  readonly agentTokens: AgentTokens | undefined;
  readonly defaultTimeout: number;
  readonly transport: Transport;
  readonly log: Logger;
  readonly endpointOf: (text: string) => Endpoint;
}

/**
 * The call's token: the request's, else the one forwarded in the request context, else the configured
 * source's. A promise only when the source returns one, so the usual call does not wait a tick for it.
 */
function tokenOf(state: CallerState, request: OutboundRequest, scope: RequestScope | undefined): string | undefined | Promise<string | undefined> {
  const token = request.token !== undefined ? checkToken(request.token, `${request.name} token`) : scope?.forwarded?.token;
  return token !== undefined ? token : state.source.token();
}

/** The reply's JSON: the body of a 2xx, else the error its envelope names. */
export function parseReply(response: TransportResponse, what: string, log: Logger): unknown {
  const { status } = response;
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    throw new ManifoldError("INVALID_RESPONSE", `${what} answered ${status} with a body that is not JSON`);
  }
  if (response.ok) return parsed;
  if (status === 401 || status === 403) log.warn(`${what}: component returned status ${status}`, { status });
  throw ManifoldError.fromEnvelope(status, parsed) ?? new ManifoldError("INVALID_RESPONSE", `${what} answered ${status} without an error envelope`);
}

/** The code of a non-2xx status from an HTTP API that answers no envelope. */
const FOREIGN_CODES: Readonly<Record<number, ErrorCode>> = {
  400: "INVALID_INPUT",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "INVALID_INPUT",
  429: "LIMIT_EXCEEDED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "UNAVAILABLE",
};

/** A `foreign` call's reply: the 2xx body (null when empty), else the ManifoldError of its status; the body is never quoted. */
export function parseForeignReply(response: TransportResponse, what: string, log: Logger): unknown {
  const { status } = response;
  if (!response.ok) {
    if (status === 401 || status === 403) log.warn(`${what}: service returned status ${status}`, { status });
    throw new ManifoldError(FOREIGN_CODES[status] ?? (status >= 500 ? "UNAVAILABLE" : "INVALID_RESPONSE"), `${what} answered ${status}`);
  }
  if (response.text.trim() === "") return null;
  try {
    return JSON.parse(response.text);
  } catch {
    throw new ManifoldError("INVALID_RESPONSE", `${what} answered ${status} with a body that is not JSON`);
  }
}

/** Parameters larger than this are named by their hash alone in an APPROVAL_REQUIRED error. */
const MAX_GATED_PARAMETERS = 16_384;

/**
 * The HITL gate of the request this call is made in (context/approval.ts): a sensitive call the
 * request was not approved for is refused with APPROVAL_REQUIRED, naming the call, so the agent that
 * orchestrates the request can make a checkpoint of it; any other call carries the gate on.
 */
function gatedHeader(gate: ApprovalGate, request: OutboundRequest): string | undefined {
  const refused = gate.check(request.target, request.name, request.body ?? {});
  if (refused.length === 0) return gate.headerFor(request.target, request.name, request.body ?? {});
  const text = JSON.stringify(request.body ?? {});
  const where = request.target === undefined ? request.name : `${request.target}.${request.name}`;
  throw new ManifoldError("APPROVAL_REQUIRED", `${where} is a sensitive capability and this request was not approved`, {
    details: [
      {
        pointer: "",
        message: "needs a human's approval",
        component: request.target,
        capability: request.name,
        ...(text.length <= MAX_GATED_PARAMETERS ? { parameters: request.body ?? {} } : {}),
        parameters_hash: parametersHash(request.body ?? {}),
        sensitive_matches: refused,
      },
    ],
  });
}

/** Ends the client span and records the call's count and duration (telemetry on only). */
function recordCall(
  telemetry: Telemetry,
  trace: ClientTrace | undefined,
  request: OutboundRequest,
  { status, failure, started }: { status: number | undefined; failure: ManifoldError | undefined; started: number },
): void {
  trace?.end(status, failure?.code);
  const labels = {
    [ATTR.TARGET]: request.target,
    [ATTR.CAPABILITY]: request.name,
    [ATTR.HTTP_STATUS]: status,
    [ATTR.OUTCOME]: failure === undefined ? "success" : "error",
    [ATTR.ERROR_CODE]: failure?.code,
  };
  telemetry.metrics.counter(METRIC.CLIENT_REQUESTS, 1, labels);
  telemetry.metrics.histogram(METRIC.CLIENT_DURATION, performance.now() - started, labels);
}

async function call(state: CallerState, request: OutboundRequest): Promise<unknown> {
  const { signal: callerSignal, timeoutMs: callTimeout = state.defaultTimeout, method = "POST" } = request;
  const { url, printable: where } = state.endpointOf(request.url);
  const what = `${request.name} (${method} ${where})`;
  const scope = currentScope();
  const given = tokenOf(state, request, scope);
  const token = isThenable(given) ? await given : given;
  const requestId = request.requestId ?? scope?.requestId ?? randomUUID();
  const gate = scope?.approval === undefined || scope.approval.empty ? undefined : gatedHeader(scope.approval, request);
  const headers = buildHeaders({
    token,
    propagated: [state.configured, scope?.forwarded?.headers(), request.headers],
    requestId,
    stepId: request.stepId ?? randomUUID(),
    workflow: request.workflow,
    agentName: state.agentName,
  });
  const telemetry = getTelemetry();
  const bodiless = method === "GET" || (request.foreign === true && request.body === undefined);
  if (bodiless) delete headers[HEADER.CONTENT_TYPE];
  if (request.foreign === true) headers["accept"] = "application/json";
  if (request.idempotencyKey !== undefined) headers[HEADER.IDEMPOTENCY_KEY] = checkHeader(HEADER.IDEMPOTENCY_KEY, request.idempotencyKey);
  if (gate !== undefined) headers[HEADER.APPROVAL_GATE] = gate;
  // The receiver verifies it: the agent's identity there (X-Manifold-Agent-Name alone proves nothing); a forwarded user token stays the user's.
  if (state.agentTokens !== undefined) headers[HEADER.AGENT_TOKEN] = await state.agentTokens.token(request.target);
  const trace = telemetry.enabled ? telemetry.startClient({ method, url, target: request.target, capability: request.name }) : undefined;
  if (trace !== undefined) {
    trace.inject(headers, { requestId, originalRequestId: scope?.originalRequestId ?? requestId, conversationId: scope?.conversationId });
  } else if (scope?.conversationId !== undefined) {
    headers[CONVERSATION_HEADER] = scope.conversationId;
  }
  const body = bodiless ? undefined : JSON.stringify(request.body ?? {});
  const started = telemetry.enabled ? performance.now() : 0;
  let status: number | undefined;
  let failure: ManifoldError | undefined;
  try {
    const response = await state.transport(url, method, headers, body, callerSignal, checkTimeout(callTimeout), what);
    status = response.status;
    return request.foreign === true ? parseForeignReply(response, what, state.log) : parseReply(response, what, state.log);
  } catch (error) {
    failure = error instanceof ManifoldError ? error : new ManifoldError("INTERNAL", `${what} failed`, { cause: error, expose: false });
    throw failure;
  } finally {
    if (telemetry.enabled) recordCall(telemetry, trace, request, { status, failure, started });
  }
}

/**
 * The one outbound caller: every generated client and the orchestrator POST through it. Headers go
 * out in the documented precedence (see buildHeaders), with trace context and baggage when telemetry
 * is on, or `X-Manifold-Conversation-ID` when it is not. Tokens are read once per call.
 */
export function createCaller(options: CallerOptions = {}): Caller {
  const { timeoutMs = 30_000, headers: configured = {}, env = process.env, transport = keepAliveTransport } = options;
  const defaultTimeout = checkTimeout(timeoutMs);
  for (const [name, value] of Object.entries(configured)) registerSecret(checkHeader(name, value)); // fail at creation, not on the first call
  const state: CallerState = {
    source: resolveTokenSource(options.token, env),
    configured,
    agentName: options.agentName === undefined ? undefined : checkHeader(HEADER.AGENT_NAME, options.agentName),
    agentTokens: options.agentName === undefined ? undefined : createAgentTokens(options.agentName, env),
    defaultTimeout,
    transport,
    log: options.log ?? createLogger({ component: "outbound" }),
    endpointOf: createEndpointMemo(),
  };
  const caller: Caller = {
    call: (request) => call(state, request),
    setToken(token) {
      state.source = isTokenSource(token) ? token : createTokenHolder(token);
    },
    toJSON: () => ({ timeoutMs: defaultTimeout, token: state.source, headers: redactValues(Object.entries(configured)) }),
  };
  Object.defineProperty(caller, inspect.custom, { value: () => caller.toJSON() });
  return caller;
}
