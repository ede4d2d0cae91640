import { inspect } from "node:util";
import { REDACTED, agentIdentityKey, checkToken, mintAgentToken, registerSecret } from "../context/index.js";

/**
 * Where a caller's configured token comes from. Asked once at the start of each call, so a call in
 * flight keeps the token it started with while the next call gets whatever is current.
 */
export interface TokenSource {
  token(): string | undefined | Promise<string | undefined>;
}

/** A token that can be replaced at run time; replacing it is a single assignment, safe under concurrency. */
export interface TokenHolder extends TokenSource {
  token(): string | undefined;
  /** A bare token, or undefined for none; `Bearer `-prefixed tokens are refused. */
  set(token: string | undefined): void;
  toJSON(): { token: string | undefined };
}

export function createTokenHolder(initial?: string): TokenHolder {
  let current = initial === undefined ? undefined : checkToken(initial, "token");
  registerSecret(current);
  const holder: TokenHolder = {
    token: () => current,
    set(token) {
      current = token === undefined ? undefined : checkToken(token, "token");
      registerSecret(current);
    },
    toJSON: () => ({ token: current === undefined ? undefined : REDACTED }),
  };
  Object.defineProperty(holder, inspect.custom, { value: () => holder.toJSON() });
  return holder;
}

export function isTokenSource(value: unknown): value is TokenSource {
  return typeof value === "object" && value !== null && typeof (value as { token?: unknown }).token === "function";
}

/** Option, else `MANIFOLD_OAUTH_TOKEN`, else none. A string becomes a holder the caller's setter replaces. */
export function resolveTokenSource(option: string | TokenSource | undefined, env: NodeJS.ProcessEnv = process.env): TokenSource {
  if (isTokenSource(option)) return option;
  if (option !== undefined) return createTokenHolder(checkToken(option, "token option"));
  const fromEnv = env["MANIFOLD_OAUTH_TOKEN"];
  return createTokenHolder(fromEnv === undefined || fromEnv === "" ? undefined : checkToken(fromEnv, "MANIFOLD_OAUTH_TOKEN"));
}

/** Mints the agent's `X-Manifold-Agent-Token` per audience, reusing one until half its life is gone. */
export interface AgentTokens {
  token(audience: string | undefined): Promise<string>;
}

/** Audiences remembered at most; past it the cache starts over (audiences are component names: few). */
const MAX_AUDIENCES = 1_000;
/** Half the token's two minutes: a reused token always has a minute left for its call. */
const REUSE_MS = 60_000;

/** The agent's token source, or undefined when the network has no key (`MANIFOLD_REGISTRY_KEY`) to derive one from. */
export function createAgentTokens(agent: string, env: NodeJS.ProcessEnv, now: () => number = Date.now): AgentTokens | undefined {
  const key = agentIdentityKey(env);
  if (key === undefined) return undefined;
  const minted = new Map<string, { readonly token: Promise<string>; readonly at: number }>();
  return {
    token(audience) {
      const at = now();
      const slot = audience ?? "";
      const found = minted.get(slot);
      if (found !== undefined && at - found.at < REUSE_MS) return found.token;
      if (minted.size >= MAX_AUDIENCES) minted.clear();
      const token = mintAgentToken(key, agent, audience, at);
      minted.set(slot, { token, at });
      return token;
    },
  };
}
