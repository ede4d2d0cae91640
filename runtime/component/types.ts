import type { ComponentSpec } from "../spec/types.js";

/** What generated code declares per component: capability key → its input and output types. */
export type CapabilityTypes = { [key: string]: { input: unknown; output: unknown } };

/** Passed to every handler beside its validated input. */
export interface HandlerContext {
  /** Aborts when the client disconnects or the server is shutting down past its drain timeout. */
  readonly signal: AbortSignal;
  /** The capability being served (its manifest name). */
  readonly capability: string;
  /** `X-Manifold-Request-ID` of the call, or a fresh one. */
  readonly requestId: string;
  /** Incoming request headers, lower-cased names. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export type Handler<I, O> = (input: I, ctx: HandlerContext) => O | Promise<O>;

export type Handlers<C extends CapabilityTypes> = { [K in keyof C]: Handler<C[K]["input"], C[K]["output"]> };

export interface ComponentOptions<C extends CapabilityTypes> {
  readonly handlers: Handlers<C>;
  /**
   * Port to listen on; 0 picks a free one.
   * @defaultValue `PORT` from the environment, else the manifest's `port`, else 0
   */
  readonly port?: number;
  /** @defaultValue "127.0.0.1" unless `HOST` is set */
  readonly host?: string;
  /** Largest accepted request body in bytes. @defaultValue 1 MiB */
  readonly bodyLimit?: number;
  /** Serve `GET /openapi.json`. @defaultValue `MANIFOLD_ENABLE_OPENAPI === "true"`, else false */
  readonly enableOpenApi?: boolean;
  /** On SIGTERM/SIGINT: stop accepting, drain in-flight requests, exit 0. @defaultValue true */
  readonly handleSignals?: boolean;
  /** How long a graceful shutdown waits for in-flight requests. @defaultValue 10000 */
  readonly drainTimeoutMs?: number;
  /** Where one-line operational messages go (never request bodies or secrets). @defaultValue console.error */
  readonly log?: (message: string) => void;
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
  readonly headers?: Readonly<Record<string, string>>;
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
  /** Sent on every call (for example a tenant header). */
  readonly headers?: Readonly<Record<string, string>>;
}

export type Client<C extends CapabilityTypes> = {
  readonly [K in keyof C]: (input: C[K]["input"], options?: CallOptions) => Promise<C[K]["output"]>;
};
