import type { IncomingMessage } from "node:http";
import { ManifoldError } from "../errors/index.js";
import { bearerToken, registerSecret } from "../context/index.js";
import { isThenable } from "../util/index.js";
import type { AuthOptions } from "./types.js";

/** Calls back with nothing when the request may proceed, else with the error to answer. */
export type AuthCheck = (req: IncomingMessage, callback: (error: unknown) => void) => void;

/** Sent with every 401, as RFC 9110 requires: the scheme the client should use. */
export const AUTH_CHALLENGE = ["WWW-Authenticate", "Bearer"] as const;

/**
 * Bearer authentication of capability calls, in callback style like the rest of the fast path: a
 * synchronous `verify` costs no promise. A present but malformed Authorization header is refused even
 * when a token is not required; a `verify` that throws is an internal error, not a 401.
 */
export function createAuthCheck(options: AuthOptions | undefined): AuthCheck | undefined {
  if (options === undefined) return undefined;
  const { required = true, verify } = options;
  const missing = new ManifoldError("UNAUTHORIZED", "a bearer token is required");
  const malformed = new ManifoldError("UNAUTHORIZED", "the Authorization header is not a bearer token");
  const rejected = new ManifoldError("UNAUTHORIZED", "the bearer token is not valid");

  return (req, callback) => {
    const header = req.headers.authorization;
    if (header === undefined) return callback(required ? missing : undefined);
    const token = bearerToken(header);
    if (token === undefined) return callback(malformed);
    // From here the token may be quoted by anything that fails: the logger must know to redact it.
    registerSecret(token);
    if (verify === undefined) return callback(undefined);
    let verdict: unknown;
    try {
      verdict = verify(token);
    } catch (error) {
      return callback(error);
    }
    if (!isThenable(verdict)) return callback(verdict === true ? undefined : rejected);
    verdict.then((ok) => callback(ok === true ? undefined : rejected), callback);
  };
}
