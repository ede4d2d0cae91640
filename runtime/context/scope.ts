import { AsyncLocalStorage } from "node:async_hooks";
import { inspect } from "node:util";
import { ManifoldError } from "../errors/index.js";
import { validConversationId, validRequestId } from "./ids.js";
import { REDACTED, redactValues, registerSecret } from "./secrets.js";
import { checkHeader, checkToken, isSkippedHeader } from "./headers.js";
import { approvalGateFrom, type ApprovalGate } from "./approval.js";
import { ANONYMOUS, type Identity } from "./identity.js";

const NO_HEADERS: ReadonlyMap<string, readonly [string, string]> = new Map();

/**
 * The token and headers every outbound call made in one request context carries. Mutable on
 * purpose: a handler adds one header without replacing the others, and calls already in flight have
 * read their values, so a change only affects the calls that start after it.
 */
export class OutboundContext {
  #token: string | undefined;
  // Made on first set: every request scope holds an outbound context, most never add a header, and a
  // held chat stream keeps its scope for as long as it is open.
  #headers: Map<string, readonly [string, string]> | undefined;

  get token(): string | undefined {
    return this.#token;
  }

  /** Sets (or, with undefined, clears) the token; a `Bearer `-prefixed token is refused. */
  setToken(token: string | undefined): void {
    this.#token = token === undefined ? undefined : checkToken(token, "outbound context token");
    registerSecret(this.#token);
  }

  /** Adds or replaces one header, leaving the others; reserved names are refused here, not skipped. */
  setHeader(name: string, value: string): void {
    checkHeader(name, value);
    const lower = name.toLowerCase();
    if (isSkippedHeader(lower)) throw new ManifoldError("INVALID_INPUT", `header ${name} is set by the caller and cannot be propagated`);
    registerSecret(value);
    (this.#headers ??= new Map()).set(lower, [lower, value]);
  }

  deleteHeader(name: string): void {
    this.#headers?.delete(name.toLowerCase());
  }

  /** `[lower-case name, value]` pairs. */
  headers(): IterableIterator<readonly [string, string]> {
    return (this.#headers ?? NO_HEADERS).values();
  }

  copyFrom(other: OutboundContext): this {
    this.#token = other.#token;
    if (other.#headers !== undefined) for (const [key, entry] of other.#headers) (this.#headers ??= new Map()).set(key, entry);
    return this;
  }

  toJSON(): { token: string | undefined; headers: Record<string, string> } {
    return { token: this.#token === undefined ? undefined : REDACTED, headers: redactValues(this.headers()) };
  }

  [inspect.custom](): unknown {
    return this.toJSON();
  }
}

/** What the caller reads from the async context of the code that calls it. */
export interface RequestScope {
  readonly requestId: string | undefined;
  readonly originalRequestId: string | undefined;
  readonly conversationId: string | undefined;
  /** Token and headers for outbound calls; undefined until something set one. */
  readonly forwarded: OutboundContext | undefined;
  /** Who is calling, as the inbound check proved it; undefined outside an inbound request (anonymous). */
  readonly identity?: Identity | undefined;
  /** What this request, unapproved, may not call (approval.ts); absent outside any request context. */
  readonly approval?: ApprovalGate | undefined;
}

/** One AsyncLocalStorage per process, shared by every copy of the runtime (see telemetry.ts). */
const SLOT = Symbol.for("agent-manifold.request-scope");
const storage: AsyncLocalStorage<RequestScope> = ((globalThis as Record<symbol, unknown>)[SLOT] ??=
  new AsyncLocalStorage<RequestScope>()) as AsyncLocalStorage<RequestScope>;

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Runs `fn(...args)` with `scope` as the current request scope; arguments avoid a closure per request. */
export function runInScope<A extends unknown[], R>(scope: RequestScope, fn: (...args: A) => R, ...args: A): R {
  return storage.run(scope, fn, ...args);
}

export interface RequestContextInit {
  /** @defaultValue the enclosing scope's, else none (each call then gets a fresh id) */
  readonly requestId?: string;
  /** @defaultValue the enclosing scope's, else the request id */
  readonly originalRequestId?: string;
  /** Validated: letters, digits and `._:-`, at most 128. @defaultValue the enclosing scope's */
  readonly conversationId?: string;
  /** Bearer token (without `Bearer `) for every call made inside. @defaultValue the enclosing scope's */
  readonly token?: string;
  /** Added to (not replacing) the enclosing scope's propagated headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The inbound `X-Manifold-Approval-Gate` value: restrictions the caller's request carries. */
  readonly approvalGate?: string | string[] | undefined;
}

function checked(value: string | undefined, valid: (v: unknown) => string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (valid(value) === undefined) throw new ManifoldError("INVALID_INPUT", `${what} is not a valid id`);
  return value;
}

/**
 * Runs `fn` in a request context outside a component (a script, a test, the orchestrator): every
 * outbound call inside carries the given ids, token and headers. Inside a handler it refines the
 * handler's context for a part of the work.
 */
export function withRequestContext<T>(init: RequestContextInit, fn: () => T): T {
  const outer = storage.getStore();
  const forwarded = new OutboundContext();
  if (outer?.forwarded !== undefined) forwarded.copyFrom(outer.forwarded);
  if (init.token !== undefined) forwarded.setToken(init.token);
  for (const [name, value] of Object.entries(init.headers ?? {})) forwarded.setHeader(name, value);
  const requestId = checked(init.requestId, validRequestId, "requestId") ?? outer?.requestId;
  const scope: RequestScope = {
    requestId,
    originalRequestId: checked(init.originalRequestId, validRequestId, "originalRequestId") ?? outer?.originalRequestId ?? requestId,
    conversationId: checked(init.conversationId, validConversationId, "conversationId") ?? outer?.conversationId,
    forwarded,
    identity: outer?.identity,
    // One gate per request: a nested context shares it (restrictions only grow), the outermost makes it.
    approval: outer?.approval?.addHeader(init.approvalGate) ?? approvalGateFrom(init.approvalGate),
  };
  return storage.run(scope, fn);
}

/** The caller of the request being handled: what ownership is decided by. Anonymous outside a request. */
export function callerIdentity(): Identity {
  return storage.getStore()?.identity ?? ANONYMOUS;
}

/**
 * Runs `fn` as `identity`: the component's inbound check calls it once per request, with what it
 * verified. Not a RequestContextInit field, so nothing that builds a context from headers can set it.
 */
export function withIdentity<T>(identity: Identity, fn: () => T): T {
  const outer = storage.getStore();
  const scope: RequestScope = {
    requestId: outer?.requestId,
    originalRequestId: outer?.originalRequestId,
    conversationId: outer?.conversationId,
    forwarded: outer?.forwarded,
    identity,
    approval: outer?.approval,
  };
  return storage.run(scope, fn);
}
