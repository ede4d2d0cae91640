/**
 * Who may talk to a component from a browser (issue 32, H1 and L4). Same-origin by default: no
 * response carries CORS headers unless its Origin is on the allowlist (`MANIFOLD_CORS_ORIGINS`); a
 * state-changing request whose Origin is neither the component's own nor allowlisted is refused
 * before any handler runs, since a browser sends it (and the server acts on it) even when the page
 * may not read the answer; and a loopback-bound server answers only Host names that cannot be a
 * rebound attacker's domain. Settings follow option > environment > default, checked at start-up.
 */
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { ManifoldError } from "../errors/index.js";

export const CORS_ORIGINS_ENV = "MANIFOLD_CORS_ORIGINS";
export const ALLOWED_HOSTS_ENV = "MANIFOLD_ALLOWED_HOSTS";

type Env = Readonly<Record<string, string | undefined>>;

/** The pieces of a list given as an option, else as a comma-separated variable; empty entries dropped. */
function listOf(option: readonly string[] | undefined, env: Env, variable: string): readonly string[] {
  const raw = option ?? (env[variable] ?? "").split(",");
  return raw.map((entry) => entry.trim()).filter((entry) => entry !== "");
}

function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/** Exact origins (`scheme://host[:port]`, http or https, no path), as browsers send them in `Origin`. */
export function resolveCorsOrigins(option: readonly string[] | undefined, env: Env = process.env): readonly string[] {
  const source = option === undefined ? CORS_ORIGINS_ENV : "corsOrigins";
  const entries = listOf(option, env, CORS_ORIGINS_ENV);
  return [
    ...new Set(
      entries.map((entry) => {
        if (entry === "*") throw new RangeError(`${source}: "*" is not accepted: list the origins that may call from a browser, e.g. https://app.example.com`);
        let url: URL | undefined;
        try {
          url = new URL(entry);
        } catch {
          url = undefined;
        }
        const origin = url?.origin;
        if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || origin !== entry.toLowerCase()) {
          throw new RangeError(
            `${source}: ${quoted(entry)} is not an origin: scheme://host[:port] with http or https, no path or trailing slash (e.g. http://localhost:5173)`,
          );
        }
        return origin;
      }),
    ),
  ];
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/;

/** Host names (no scheme, no port), lower-cased; a request's Host is compared without its port. */
export function resolveAllowedHosts(option: readonly string[] | undefined, env: Env = process.env): readonly string[] {
  const source = option === undefined ? ALLOWED_HOSTS_ENV : "allowedHosts";
  const entries = listOf(option, env, ALLOWED_HOSTS_ENV);
  return [
    ...new Set(
      entries.map((entry) => {
        if (entry === "*") throw new RangeError(`${source}: "*" is not accepted: list the names clients use for this server, e.g. app.example.com`);
        const name = entry.toLowerCase();
        if (!HOST_NAME.test(name)) throw new RangeError(`${source}: ${quoted(entry)} is not a host name (no scheme, port or path, e.g. app.example.com)`);
        // The fully qualified form (a trailing dot) names the same host; requests are compared without it too.
        return name.endsWith(".") ? name.slice(0, -1) : name;
      }),
    ),
  ];
}

/** The allowlist as the reply writers use it: one Set lookup per response when configured, nothing when not. */
export interface CorsPolicy {
  /** Whether an allowlist is configured; without one no response carries a CORS header. */
  readonly enabled: boolean;
  /** The Origin to echo in `Access-Control-Allow-Origin`, when it is allowlisted. */
  allowed(origin: string | undefined): string | undefined;
}

export function createCorsPolicy(origins: readonly string[]): CorsPolicy {
  const allowed = new Set(origins);
  return { enabled: allowed.size > 0, allowed: (origin) => (origin !== undefined && allowed.has(origin) ? origin : undefined) };
}

/** Whether the server listens on loopback only, so only a local process or a browser on this machine reaches it. */
export function isLoopbackAddress(host: string): boolean {
  const name = host.toLowerCase();
  return name === "localhost" || name === "::1" || name === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** `example.com:8080` → `example.com`, `[::1]:80` → `[::1]`. */
function hostNameOf(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.lastIndexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}

/** Bounded: only accepted Host values are remembered, and a client cannot grow it past this. */
const MAX_REMEMBERED_HOSTS = 64;

/**
 * The Host rule, or undefined when every Host is served. An IP literal is always accepted: DNS
 * rebinding needs a name the attacker's DNS answers, and a page whose origin is an IP address is
 * the server itself (this is also what a probe sends, addressing the pod IP).
 */
function createHostRule(boundHost: string, allowedHosts: readonly string[]): ((host: string) => boolean) | undefined {
  // Bound to every interface (or a public one) with no list: the public names are unknowable here,
  // so any is served; the production checklist says to set MANIFOLD_ALLOWED_HOSTS.
  if (!isLoopbackAddress(boundHost) && allowedHosts.length === 0) return undefined;
  const names = new Set(["localhost", ...allowedHosts]);
  const seen = new Set<string>();
  // The Host last accepted: a keep-alive connection sends the same one on every request, and one
  // string comparison costs less than hashing each request's fresh copy for the Set.
  let last: string | undefined;
  return (host) => {
    if (host === last) return true;
    if (seen.has(host)) {
      last = host;
      return true;
    }
    let name = hostNameOf(host).toLowerCase();
    if (name.endsWith(".")) name = name.slice(0, -1);
    const bare = name.startsWith("[") ? name.slice(1, -1) : name;
    const ok = names.has(name) || isIP(bare) !== 0;
    if (!ok) return false;
    last = host;
    if (seen.size < MAX_REMEMBERED_HOSTS) seen.add(host);
    return true;
  };
}

/** Reads never change state, and a browser blocks the page from reading what is not allowlisted. */
function isSafeMethod(method: string | undefined): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}

/** Whether `origin` (`http://host:port`) names the Host the request was sent to: the component's own page. */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  const rest = origin.startsWith("http://") ? origin.slice(7) : origin.startsWith("https://") ? origin.slice(8) : undefined;
  return rest !== undefined && rest.toLowerCase() === host.toLowerCase();
}

export interface TrustOptions {
  readonly corsOrigins: readonly string[];
  readonly allowedHosts: readonly string[];
  /** The address the server listens on. */
  readonly boundHost: string;
}

/** The check every request passes before it is served; the error to answer with, else undefined. */
export type TrustCheck = (req: IncomingMessage) => ManifoldError | undefined;

export function createTrustCheck({ corsOrigins, allowedHosts, boundHost }: TrustOptions): TrustCheck {
  const origins = new Set(corsOrigins);
  const hostRule = createHostRule(boundHost, allowedHosts);
  const crossOrigin = new ManifoldError("FORBIDDEN", "requests from other origins are not accepted here: the origin is not listed in MANIFOLD_CORS_ORIGINS");
  return (req) => {
    const { headers } = req;
    if (hostRule !== undefined) {
      const host = headers.host;
      if (host !== undefined && !hostRule(host))
        return new ManifoldError("FORBIDDEN", `Host ${quoted(host)} is not served here: list it in MANIFOLD_ALLOWED_HOSTS`);
    }
    // One header lookup, no allocation, for the requests without an Origin (servers, curl).
    const origin = headers.origin;
    if (origin === undefined || isSafeMethod(req.method) || origins.has(origin) || isOwnOrigin(origin, headers.host)) return undefined;
    return crossOrigin;
  };
}
