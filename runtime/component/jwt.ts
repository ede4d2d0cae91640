/**
 * Verification of JWT bearer tokens through `jose`: a JWKS URL (keys fetched, cached and re-fetched
 * on rotation by jose's remote key set) and/or an HS256 shared secret, with issuer and audience
 * checked when configured. Configured by `auth.jwt` or `MANIFOLD_AUTH_*`.
 */
import type { JWTVerifyGetKey } from "jose";
import { registerSecret } from "../context/index.js";
import { ManifoldError } from "../errors/index.js";
import type { JwtOptions } from "./types.js";

/** Resolves to the token's subject; rejects with a ManifoldError (401, or 503 when the issuer's keys cannot be fetched). */
export type JwtVerifier = (token: string) => Promise<string>;

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
/** RFC 7518 §3.2: an HS256 key is at least as long as the hash. */
const MIN_SECRET_BYTES = 32;
const CLOCK_TOLERANCE_SECONDS = 5;
const SUBJECT = /^[\x21-\x7e]{1,128}$/;

type Env = Readonly<Record<string, string | undefined>>;
type Jose = typeof import("jose");

// jose (46 modules) loads with the first token checked, not with every component that might check one.
let jose: Promise<Jose> | undefined;
const loadJose = (): Promise<Jose> => (jose ??= import("jose"));

/** The option's fields, else `MANIFOLD_AUTH_JWKS_URL` / `_JWT_SECRET` / `_ISSUER` / `_AUDIENCE`; undefined when neither a URL nor a secret is set. */
export function resolveJwtOptions(option: JwtOptions | undefined, env: Env = process.env): JwtOptions | undefined {
  const pick = (value: string | undefined, name: string): string | undefined => value ?? (env[name] || undefined);
  const jwksUrl = pick(option?.jwksUrl, "MANIFOLD_AUTH_JWKS_URL");
  const secret = pick(option?.secret, "MANIFOLD_AUTH_JWT_SECRET");
  if (jwksUrl === undefined && secret === undefined) return undefined;
  const issuer = pick(option?.issuer, "MANIFOLD_AUTH_ISSUER");
  const audience = pick(option?.audience, "MANIFOLD_AUTH_AUDIENCE");
  return {
    ...(jwksUrl === undefined ? {} : { jwksUrl }),
    ...(secret === undefined ? {} : { secret }),
    ...(issuer === undefined ? {} : { issuer }),
    ...(audience === undefined ? {} : { audience }),
  };
}

/** The JWKS URL, checked at start-up so a bad one is a start-up error, not a 401 at the first call. */
function jwksUrlOf(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError("MANIFOLD_AUTH_JWKS_URL must be an absolute http(s) URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new RangeError("MANIFOLD_AUTH_JWKS_URL must be an absolute http(s) URL");
  return parsed;
}

/** A JOSE verdict on the token is 401; a key set that cannot be fetched is the issuer's outage, 503. */
function failure({ errors }: Jose, error: unknown): ManifoldError {
  if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError) || error instanceof errors.JWKSInvalid)
    return new ManifoldError("UNAVAILABLE", "the token issuer's keys could not be fetched", { expose: true });
  return new ManifoldError("UNAUTHORIZED", "the bearer token is not valid");
}

/** A verifier for the configured JWTs; a short secret or a bad URL is a start-up error that quotes neither. */
export function createJwtVerifier({ jwksUrl, secret, issuer, audience }: JwtOptions): JwtVerifier {
  if (secret !== undefined && Buffer.byteLength(secret, "utf8") < MIN_SECRET_BYTES)
    throw new RangeError(`MANIFOLD_AUTH_JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes: generate one with \`openssl rand -hex 32\``);
  registerSecret(secret);
  const hmac = secret === undefined ? undefined : new TextEncoder().encode(secret);
  const jwksAt = jwksUrl === undefined ? undefined : jwksUrlOf(jwksUrl);
  // One remote key set per verifier, made with jose's first load: it caches and re-fetches keys on rotation.
  let jwks: JWTVerifyGetKey | undefined;
  const algorithms = [...(hmac === undefined ? [] : ["HS256"]), ...(jwksAt === undefined ? [] : ASYMMETRIC)];
  // The token's own header picks the key kind, but only among the configured algorithms: no alg confusion.
  const key: JWTVerifyGetKey = async (header, token) => (header.alg === "HS256" && hmac !== undefined ? hmac : jwks!(header, token));
  const options = {
    algorithms,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ["sub", "exp"],
    ...(issuer === undefined ? {} : { issuer }),
    ...(audience === undefined ? {} : { audience }),
  };
  return async (token) => {
    const lib = await loadJose();
    if (jwksAt !== undefined) jwks ??= lib.createRemoteJWKSet(jwksAt);
    let subject: unknown;
    try {
      ({
        payload: { sub: subject },
      } = await lib.jwtVerify(token, key, options));
    } catch (error) {
      throw failure(lib, error);
    }
    if (typeof subject !== "string" || !SUBJECT.test(subject))
      throw new ManifoldError("UNAUTHORIZED", "the bearer token's subject is not usable (1-128 visible characters)");
    return subject;
  };
}

/** Three base64url parts: worth verifying as a JWT; anything else is a static token for `verify`. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}
