import type Koa from "koa";
import type { HealthCheck, RegistrationOptions, Registry } from "../discovery/index.js";
import type { McpResumability } from "../mcp/index.js";
import type { TokenSource } from "../outbound/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { ComponentExtension } from "./extension.js";
import type { Logger } from "../telemetry/index.js";
import type { Clock } from "../util/index.js";

/** What generated code declares per component: capability key → its input and output types. */
export type CapabilityTypes = { [key: string]: { input: unknown; output: unknown } };

export type { HandlerContext } from "./handler-context.js";
import type { HandlerContext } from "./handler-context.js";

export type { ForwardOptions } from "../context/index.js";

/** Bearer authentication of capability calls; `/health` and `/api/capabilities` stay open. */
export interface AuthOptions {
  /**
   * Answer 401 UNAUTHORIZED to a capability call without a bearer token (a verified agent token also
   * counts). @defaultValue true when `auth` is given or a JWT is configured
   */
  readonly required?: boolean;
  /**
   * Decides whether a present (non-JWT, or any when no JWT is configured) token is valid: false answers
   * 401; a string is the valid token's subject, the caller's identity; true is valid with no identity.
   * @defaultValue any token is accepted, identifying nobody
   */
  readonly verify?: (token: string) => boolean | string | Promise<boolean | string>;
  /** JWT bearer tokens, verified; the subject is the caller's identity. @defaultValue from `MANIFOLD_AUTH_*` */
  readonly jwt?: JwtOptions;
  /**
   * Honour `X-User-ID` and `X-Manifold-Agent-Name` as the caller's identity: only behind a gateway that
   * sets them itself and strips them from clients. @defaultValue `MANIFOLD_TRUST_IDENTITY_HEADERS === "true"`
   */
  readonly trustIdentityHeaders?: boolean;
}

/** Where JWT bearer tokens are verified: a JWKS URL and/or an HS256 secret; issuer and audience checked when set. */
export interface JwtOptions {
  /** @defaultValue `MANIFOLD_AUTH_JWKS_URL` */
  readonly jwksUrl?: string;
  /** HS256 shared secret, at least 32 bytes. @defaultValue `MANIFOLD_AUTH_JWT_SECRET` */
  readonly secret?: string;
  /** @defaultValue `MANIFOLD_AUTH_ISSUER`, else not checked */
  readonly issuer?: string;
  /** @defaultValue `MANIFOLD_AUTH_AUDIENCE`, else not checked */
  readonly audience?: string;
}

export type Handler<I, O> = (input: I, ctx: HandlerContext) => O | Promise<O>;

export type Handlers<C extends CapabilityTypes> = { [K in keyof C]: Handler<C[K]["input"], C[K]["output"]> };

export interface ComponentOptions<C extends CapabilityTypes> {
  readonly handlers: Handlers<C>;
  /**
   * Port to listen on; 0 picks a free one.
   * @defaultValue `PORT` from the environment, else the manifest's `port`, else 8098 (`0` asks for a free port)
   */
  readonly port?: number;
  /** @defaultValue "127.0.0.1" unless `HOST` is set */
  readonly host?: string;
  /**
   * Origins (`https://app.example.com`, exact) whose browser pages may call this component: their
   * Origin is echoed in `Access-Control-Allow-Origin`, their preflights answered, their writes
   * accepted. Any other origin gets no CORS header, and its POST/PUT/PATCH/DELETE is 403 FORBIDDEN.
   * @defaultValue `MANIFOLD_CORS_ORIGINS` (comma-separated), else none: same-origin only
   */
  readonly corsOrigins?: readonly string[];
  /**
   * Host names served besides loopback names and IP literals (DNS rebinding defence). On a loopback
   * address only those are served; on any other address with no list, every Host is.
   * @defaultValue `MANIFOLD_ALLOWED_HOSTS` (comma-separated), else none
   */
  readonly allowedHosts?: readonly string[];
  /** Largest accepted request body in bytes. @defaultValue 1 MiB */
  readonly bodyLimit?: number;
  /** Serve `GET /openapi.json`. @defaultValue `MANIFOLD_ENABLE_OPENAPI`, else `DEV_MODE === "true"` unless `MANIFOLD_DEV_DISABLE_OPENAPI=true`, else false */
  readonly enableOpenApi?: boolean;
  /** On SIGTERM/SIGINT: stop accepting, drain in-flight requests, exit 0. @defaultValue true */
  readonly handleSignals?: boolean;
  /** How long a graceful shutdown waits for in-flight requests. @defaultValue 10000 */
  readonly drainTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request (headers and body); past it the connection
   * gets 408 and is closed, so a body trickled under the size limit cannot hold a socket. Responses
   * (a long handler, an SSE stream) are not limited by it. @defaultValue 30000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Where one-line operational messages go (never request bodies or secrets). A function with an
   * `error` method (a telemetry Logger) gets handler failures at error level.
   * @defaultValue a JSON-lines logger for the component (`DEV_MODE=true`: readable text)
   */
  readonly log?: ((message: string) => void) & { readonly error?: (message: string) => void };
  /** Require a bearer token on capability calls. @defaultValue none: calls are not authenticated */
  readonly auth?: AuthOptions;
  /**
   * Where the component registers itself while it runs (unregistered on close); `false` opts out.
   * @defaultValue `defaultRegistry()`: Redis when `REDIS_URL` / `MANIFOLD_REDIS_*` is set, else the process's in-memory registry
   */
  readonly registry?: Registry | false;
  /** The component's own view of its health, reported at each heartbeat and by `GET /health`. @defaultValue always healthy */
  readonly healthCheck?: HealthCheck;
  /** Registration TTL (default 30 s), heartbeat (TTL / 3), advertised address and extra metadata. */
  readonly registration?: RegistrationOptions;
  /**
   * Framework features served beside the capabilities (an agent's orchestration and task routes).
   * Generated agent handles pass these; hand-written code rarely needs to. @defaultValue none
   */
  readonly extensions?: readonly ComponentExtension[];
  /**
   * Serve MCP at `/mcp` too (issue 34): `true`/`false`, or the settings of its sessions.
   * @defaultValue `MANIFOLD_MCP_ENABLED` (`true` or `false`), else the manifest's `mcp`, else off
   */
  readonly mcp?: boolean | McpOptions;
  /**
   * Serve only `GET /health` (a worker process, `MANIFOLD_MODE=worker`): no capability, schema,
   * OpenAPI or extension routes; extensions still start and stop. @defaultValue false
   */
  readonly healthOnly?: boolean;
  /**
   * Koa middleware run, in order, before every route (capability calls, extension routes, `/health`,
   * 404s), after the Host/Origin checks. It may set response headers, answer itself without calling
   * `next()`, or throw (a ManifoldError gives its envelope, anything else INTERNAL). After `await next()`
   * the response has been written: status and headers can be read, not changed. Must not read the
   * request body. Koa is loaded only when this is given. @defaultValue none: Koa is never loaded
   */
  readonly middleware?: readonly Koa.Middleware[];
}

/** The MCP server's settings (`ComponentOptions.mcp`). */
export interface McpOptions {
  /** @defaultValue `MANIFOLD_MCP_ENABLED`, else the manifest's `mcp`, else false */
  readonly enabled?: boolean;
  /** Open sessions at most; the least recently used one is closed to make room. @defaultValue 1000 */
  readonly maxSessions?: number;
  /** A session unused this long is closed. @defaultValue 600000 (10 minutes) */
  readonly sessionTtlMs?: number;
  /** What session expiry, the event store's sweep and `streamAfterMs` read time from. @defaultValue systemClock */
  readonly clock?: Clock;
  /**
   * How much of its event streams the component keeps in memory so a client whose stream dropped can
   * resume it with `Last-Event-ID`; `false` keeps none. @defaultValue 100 events a stream, 4 MiB, 5 minutes idle
   */
  readonly resumability?: McpResumability | false;
  /** A tool call still running after this long is answered as a resumable event stream, not JSON. @defaultValue 1000 */
  readonly streamAfterMs?: number;
}

export interface RunningComponent {
  readonly spec: ComponentSpec;
  /** Unique per process: `<name>-<random hex>`. */
  readonly id: string;
  readonly url: string;
  readonly port: number;
  /** Graceful: stops accepting, waits for in-flight requests, then resolves. */
  close(): Promise<void>;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** @defaultValue the client's timeoutMs */
  readonly timeoutMs?: number;
  /** Propagated headers for this call; `Authorization: Bearer <t>` and `X-Manifold-Request-ID` set the token and request id. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Bearer token for this call only (without `Bearer `). @defaultValue the request context's, else the client's */
  readonly token?: string;
  /** @defaultValue the request context's, else a fresh UUID */
  readonly requestId?: string;
  /** `X-Manifold-Step-ID`. @defaultValue a fresh UUID */
  readonly stepId?: string;
}

/**
 * Where a client's calls go: a fixed base URL, or a function asked before every call (discovery
 * uses it to pick a healthy replica of the target by name).
 */
export type BaseUrlSource = string | (() => string | Promise<string>);

export interface ClientOptions {
  readonly baseUrl: BaseUrlSource;
  /** Per-call timeout. @defaultValue 30000 */
  readonly timeoutMs?: number;
  /** Propagated on every call (for example a tenant header); see CallOptions.headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The configured token, or a source such as createTokenHolder(). @defaultValue `MANIFOLD_OAUTH_TOKEN`, else none */
  readonly token?: string | TokenSource;
  /** Where the client logs, e.g. `component returned status 401`. @defaultValue a JSON logger for `outbound` */
  readonly log?: Logger;
  /** The agent making the calls, sent as `X-Manifold-Agent-Name` (an agent's `clients()` set it). */
  readonly agentName?: string;
}

export type Client<C extends CapabilityTypes> = {
  readonly [K in keyof C]: (input: C[K]["input"], options?: CallOptions) => Promise<C[K]["output"]>;
};
