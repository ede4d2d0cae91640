/**
 * Agent-to-agent identity: every agent's outbound call carries `X-Manifold-Agent-Token`, a short-lived
 * HS256 JWT naming the agent (`sub`), the component it calls (`aud`, when known) and `kind: agent`.
 * Its key is derived (HKDF-SHA256, label "manifold agent identity") from the network key
 * `MANIFOLD_REGISTRY_KEY`, so a node that can sign registry records can also prove its name, and a
 * leaked agent token cannot sign registry records (nor the other way round).
 */
import { hkdfSync } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import { isDnsLabel } from "../spec/index.js";
import { HEADER } from "./headers.js";
import { registerSecret } from "./secrets.js";

export const AGENT_TOKEN_HEADER = HEADER.AGENT_TOKEN;
const ISSUER = "manifold-agent";
const LABEL = "manifold agent identity";
/** Long enough for a slow call to start, short enough that a copied token is soon worthless. */
const TTL_SECONDS = 120;
/** Node clocks disagree by milliseconds under NTP; a few seconds of slack covers an unsynced laptop. */
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * jose (about 46 modules) loads with the first token minted or checked, not with every component that
 * imports the context (every one does): a component without a network key never needs it (start-up time).
 */
let joseModule: Promise<typeof import("jose")> | undefined;
const jose = (): Promise<typeof import("jose")> => (joseModule ??= import("jose"));

const rejected = (): ManifoldError => new ManifoldError("UNAUTHORIZED", "the agent token is not valid");

/** The agent-identity key from `MANIFOLD_REGISTRY_KEY`, or undefined when the network has no key. */
export function agentIdentityKey(env: Readonly<Record<string, string | undefined>> = process.env): Uint8Array | undefined {
  const networkKey = env["MANIFOLD_REGISTRY_KEY"];
  if (networkKey === undefined || networkKey === "") return undefined;
  registerSecret(networkKey);
  return new Uint8Array(hkdfSync("sha256", Buffer.from(networkKey, "utf8"), Buffer.alloc(0), LABEL, 32));
}

/**
 * A token proving `agent` to `audience` (the called component's name, when the caller knows it).
 * `ttlSeconds` is for a person's copy-paste example (npm start's curl); calls use the default.
 */
export async function mintAgentToken(
  key: Uint8Array,
  agent: string,
  audience: string | undefined,
  nowMs: number = Date.now(),
  ttlSeconds: number = TTL_SECONDS,
): Promise<string> {
  const { SignJWT } = await jose();
  const now = Math.floor(nowMs / 1000);
  const jwt = new SignJWT({ kind: "agent" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuer(ISSUER).setSubject(agent).setIssuedAt(now);
  if (audience !== undefined) jwt.setAudience(audience);
  const token = await jwt.setExpirationTime(now + ttlSeconds).sign(key);
  registerSecret(token);
  return token;
}

/**
 * The agent a token proves, for the component `self`: signature, issuer, expiry, `kind`, and the
 * audience when the token names one. Every failure is the same 401, naming nothing from the token.
 */
export async function verifyAgentToken(key: Uint8Array, token: string, self: string): Promise<string> {
  registerSecret(token);
  const { jwtVerify } = await jose();
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: ["HS256"],
      issuer: ISSUER,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["exp", "sub"],
    }));
  } catch {
    throw rejected();
  }
  const { sub, aud, kind } = payload;
  if (kind !== "agent" || typeof sub !== "string" || !isDnsLabel(sub)) throw rejected();
  if (aud !== undefined && !(aud === self || (Array.isArray(aud) && aud.includes(self)))) throw rejected();
  return sub;
}
