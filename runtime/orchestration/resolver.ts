/**
 * The default `Resolve`: where does `capability` of `component` live? The endpoint comes from the
 * component's spec when the agent was generated with it, else from the capability wire list the
 * component registered in discovery (cached); the base URL from an explicit map, else from discovery
 * (a healthy replica, round-robin). A component known by spec and base URL resolves synchronously,
 * from a table built once.
 */
import { discover, type DiscoverOptions } from "../discovery/index.js";
import { defaultRegistry } from "../discovery/index.js";
import type { Registry, RegistryEntry } from "../discovery/index.js";
import { ManifoldError } from "../errors/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { Resolve, Target } from "./executor.js";

export interface ResolverOptions {
  /** Specs of the components the agent uses: their endpoints are known without asking discovery. */
  readonly components?: readonly ComponentSpec[];
  /** Base URL per component name, instead of discovery. */
  readonly baseUrls?: Readonly<Record<string, string>>;
  /** Where components are found; `false`: nowhere but `baseUrls`. @defaultValue `defaultRegistry()`, on first use */
  readonly registry?: Registry | false;
  readonly discover?: DiscoverOptions;
  /** How long a component's registered capability list is reused before it is read again. @defaultValue 30000 */
  readonly catalogTtlMs?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

/** `/api/capabilities/<name>`: the endpoint of a capability that does not set one (DESIGN §2). */
export function defaultEndpoint(capability: string): string {
  return `/api/capabilities/${capability}`;
}

export function checkBaseUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${what} is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError(`${what} must be http or https`);
  return value.replace(/\/+$/, "");
}

interface CachedEndpoints {
  readonly at: number;
  readonly endpoints: ReadonlyMap<string, string>;
}

/** Each capability's endpoint, from the first replica listing it; an MCP server's entry names no HTTP endpoint (only its users' sessions reach it). */
function endpointsOf(entries: readonly RegistryEntry[]): Map<string, string> {
  const endpoints = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type === "mcp") continue;
    for (const wire of entry.capabilities) if (!endpoints.has(wire.name)) endpoints.set(wire.name, wire.endpoint);
  }
  return endpoints;
}

export function createResolver({
  components = [],
  baseUrls = {},
  registry: given,
  discover: discoverOptions,
  catalogTtlMs = 30_000,
  now = Date.now,
}: ResolverOptions = {}): Resolve {
  const specs = new Map(components.map((spec) => [spec.name, new Map(spec.capabilities.map((c) => [c.name, c.endpoint]))]));
  const bases = new Map(Object.entries(baseUrls).map(([name, url]) => [name, checkBaseUrl(url, `baseUrls.${name}`)]));
  // The fast path: spec + base URL known, so the answer is a lookup with no promise.
  const fixed = new Map<string, Map<string, Target>>();
  for (const [name, endpoints] of specs) {
    const base = bases.get(name);
    if (base !== undefined) fixed.set(name, new Map([...endpoints].map(([capability, endpoint]) => [capability, { url: base + endpoint }])));
  }
  let registry: Registry | false | undefined = given;
  const registryOf = (): Registry | false => (registry ??= defaultRegistry());
  const finders = new Map<string, () => Promise<string>>();
  const catalog = new Map<string, CachedEndpoints>();

  /** The component's registered endpoints, and whether they were read just now. */
  const registered = async (component: string, refresh: boolean): Promise<{ endpoints: ReadonlyMap<string, string> | undefined; fresh: boolean }> => {
    const cached = catalog.get(component);
    if (cached !== undefined && !refresh && now() - cached.at < catalogTtlMs) return { endpoints: cached.endpoints, fresh: false };
    const source = registryOf();
    if (source === false) return { endpoints: undefined, fresh: true };
    const entries = await source.byName(component, { health: ["healthy", "degraded"] });
    if (entries.length === 0) return { endpoints: undefined, fresh: true };
    const endpoints = endpointsOf(entries);
    catalog.set(component, { at: now(), endpoints });
    return { endpoints, fresh: true };
  };

  const endpointOf = async (component: string, capability: string): Promise<string> => {
    let { endpoints, fresh } = await registered(component, false);
    // A capability the cached list lacks may be new (a redeploy): read once more before refusing.
    if (endpoints !== undefined && !endpoints.has(capability) && !fresh) ({ endpoints } = await registered(component, true));
    const endpoint = endpoints?.get(capability);
    if (endpoint !== undefined) return endpoint;
    if (endpoints !== undefined) throw new ManifoldError("NOT_FOUND", `${component} has no capability ${capability}`);
    // Not registered, but reachable at a configured address: the documented default endpoint.
    if (bases.has(component)) return defaultEndpoint(capability);
    if (registryOf() === false) throw new ManifoldError("NOT_FOUND", `unknown component ${component}: no spec, no base URL and no registry`);
    // A name the agent does not use and nobody registered is most likely wrong: final, not retried.
    if (!specs.has(component)) {
      throw new ManifoldError(
        "NOT_FOUND",
        `no component named ${component} is registered, and the agent does not use one: check the name, serve it with the same store settings (REDIS_URL / MANIFOLD_REDIS_*), or give its address in baseUrls`,
      );
    }
    throw new ManifoldError(
      "UNAVAILABLE",
      `no healthy replica of ${component} is registered: start it with the same store settings as this agent (REDIS_URL / MANIFOLD_REDIS_*), or give its address in baseUrls`,
    );
  };

  const baseOf = (component: string): string | Promise<string> => {
    const base = bases.get(component);
    if (base !== undefined) return base;
    let find = finders.get(component);
    if (find === undefined) {
      const source = registryOf();
      if (source === false) throw new ManifoldError("NOT_FOUND", `no base URL for ${component} and no registry to find it in`);
      find = discover(source, component, discoverOptions);
      finders.set(component, find);
    }
    return find();
  };

  const slow = async (component: string, capability: string): Promise<Target> => {
    const known = specs.get(component);
    const endpoint = known === undefined ? await endpointOf(component, capability) : known.get(capability);
    if (endpoint === undefined) throw new ManifoldError("NOT_FOUND", `${component} has no capability ${capability}`);
    return { url: (await baseOf(component)) + endpoint };
  };

  return (component, capability) => fixed.get(component)?.get(capability) ?? slow(component, capability);
}
