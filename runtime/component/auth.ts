import type { IncomingMessage } from "node:http";
import { ManifoldError } from "../errors/index.js";
import { agentIdentityKey, bearerToken, HEADER, registerSecret, setRequestIdentity, verifyAgentToken, type Identity } from "../context/index.js";
import { isDnsLabel } from "../spec/index.js";
import { isThenable } from "../util/index.js";
import { createJwtVerifier, looksLikeJwt, resolveJwtOptions, type JwtVerifier } from "./jwt.js";
import type { AuthOptions } from "./types.js";

/** Calls back with nothing when the request may proceed (its identity set), else with the error to answer. */
export type AuthCheck = (req: IncomingMessage, callback: (error: unknown) => void) => void;

/** Sent with every 401, as RFC 9110 requires: the scheme the client should use. */
export const AUTH_CHALLENGE = ["WWW-Authenticate", "Bearer"] as const;

const USER_HEADER = "x-user-id";
const USER_ID = /^[A-Za-z0-9_.@:+-]{1,128}$/;

type Env = Readonly<Record<string, string | undefined>>;

/** What the inbound check of one component knows. */
interface Inbound {
  readonly component: string;
  readonly required: boolean;
  /** A malformed Authorization header is refused (some bearer check is configured). */
  readonly checksBearer: boolean;
  readonly verify: AuthOptions["verify"];
  readonly jwt: JwtVerifier | undefined;
  readonly agentKey: Uint8Array | undefined;
  readonly trustHeaders: boolean;
}

const missing = new ManifoldError("UNAUTHORIZED", "a bearer token is required");
const malformed = new ManifoldError("UNAUTHORIZED", "the Authorization header is not a bearer token");
const rejected = new ManifoldError("UNAUTHORIZED", "the bearer token is not valid");

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);
const user = (subject: string, via: Identity["via"]): Identity => ({ subject, kind: "user", via });

/**
 * The identity a trusted gateway's headers state (`X-Manifold-Agent-Name` first, then `X-User-ID`),
 * undefined when it sent neither; a malformed `X-User-ID` is a 400 as it always was.
 */
function headerIdentity(req: IncomingMessage): Identity | undefined {
  const agent = one(req.headers[HEADER.AGENT_NAME]);
  if (agent !== undefined && isDnsLabel(agent)) return { subject: agent, kind: "agent", via: "header" };
  const id = one(req.headers[USER_HEADER]);
  if (id === undefined || id === "") return undefined;
  if (!USER_ID.test(id)) throw new ManifoldError("INVALID_INPUT", "X-User-ID must be 1-128 letters, digits or ._@:+-");
  return user(id, "header");
}

/** The bearer token's subject (undefined: valid, or not checked, but naming nobody); throws the 401. */
function bearerSubject(inbound: Inbound, token: string): string | undefined | Promise<string | undefined> {
  if (inbound.jwt !== undefined && (looksLikeJwt(token) || inbound.verify === undefined)) return inbound.jwt(token);
  if (inbound.verify === undefined) return undefined;
  const verdict = inbound.verify(token);
  const judge = (ok: boolean | string): string | undefined => {
    if (ok === true) return undefined;
    if (typeof ok === "string" && ok !== "") return ok;
    throw rejected;
  };
  return isThenable(verdict) ? verdict.then(judge) : judge(verdict);
}

/** Settles the identity: a proven agent, else the bearer's subject, else a trusted header, else anonymous. */
function settle(inbound: Inbound, req: IncomingMessage, agent: string | undefined, subject: string | undefined): undefined {
  const identity: Identity | undefined =
    agent !== undefined
      ? { subject: agent, kind: "agent", via: "token" }
      : subject !== undefined
        ? user(subject, "token")
        : inbound.trustHeaders
          ? headerIdentity(req)
          : undefined;
  if (identity !== undefined) setRequestIdentity(req, identity);
  return undefined;
}

/** The whole check, as a promise only when a token needs an asynchronous verification. */
function check(inbound: Inbound, req: IncomingMessage): undefined | Promise<undefined> {
  const agentToken = inbound.agentKey === undefined ? undefined : one(req.headers[HEADER.AGENT_TOKEN]);
  const header = req.headers.authorization;
  let subject: string | undefined | Promise<string | undefined>;
  if (header === undefined) {
    if (inbound.required && agentToken === undefined) throw missing;
  } else {
    const token = bearerToken(header);
    if (token === undefined) {
      if (inbound.checksBearer) throw malformed;
    } else {
      // From here the token may be quoted by anything that fails: the logger must know to redact it.
      registerSecret(token);
      subject = bearerSubject(inbound, token);
    }
  }
  // Started only once nothing can throw: a rejection is then always awaited below.
  const proving = agentToken === undefined ? undefined : verifyAgentToken(inbound.agentKey!, agentToken, inbound.component);
  if (proving === undefined && !isThenable(subject)) return settle(inbound, req, undefined, subject);
  return Promise.all([proving, subject]).then(([agent, sub]) => settle(inbound, req, agent, sub));
}

/**
 * The inbound check of every capability call and extension route, in callback style like the rest of
 * the fast path (a synchronous check costs no promise): it settles the caller's identity (see
 * `settle`) and refuses a missing, malformed or invalid credential with 401. A `verify` that throws
 * is an internal error, not a 401. Undefined when nothing is configured: every caller is anonymous.
 */
export function createAuthCheck(options: AuthOptions | undefined, component: string, env: Env = process.env): AuthCheck | undefined {
  const jwtOptions = resolveJwtOptions(options?.jwt, env);
  const inbound: Inbound = {
    component,
    required: options?.required ?? (options !== undefined || jwtOptions !== undefined),
    checksBearer: options !== undefined || jwtOptions !== undefined,
    verify: options?.verify,
    jwt: jwtOptions === undefined ? undefined : createJwtVerifier(jwtOptions),
    agentKey: agentIdentityKey(env),
    trustHeaders: options?.trustIdentityHeaders ?? env["MANIFOLD_TRUST_IDENTITY_HEADERS"] === "true",
  };
  if (!inbound.checksBearer && inbound.agentKey === undefined && !inbound.trustHeaders) return undefined;
  return (req, callback) => {
    let outcome: undefined | Promise<undefined>;
    try {
      outcome = check(inbound, req);
    } catch (error) {
      return callback(error);
    }
    if (outcome === undefined) return callback(undefined);
    outcome.then(() => callback(undefined), callback);
  };
}
