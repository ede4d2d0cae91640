import { ManifoldError } from "../errors/index.js";
import { checkName } from "./entry.js";
import type { Registry, RegistryEntry } from "./types.js";

export interface DiscoverOptions {
  /** @defaultValue "round-robin" */
  readonly strategy?: "round-robin" | "random";
  /**
   * When the registry cannot answer or lists no usable replica, the replicas of the last successful
   * lookup are used for this long. It bridges a Redis restart: the registry comes back empty and
   * components re-register within moments, and calls should not fail in between.
   * @defaultValue 10000
   */
  readonly staleMs?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

/** `http://address:port`, with brackets around an IPv6 address. */
export function baseUrlOf(entry: Pick<RegistryEntry, "address" | "port">): string {
  return `http://${entry.address.includes(":") ? `[${entry.address}]` : entry.address}:${entry.port}`;
}

/** The replicas worth calling: the healthy ones, else every one given (degraded, say). */
export function preferHealthy(entries: readonly RegistryEntry[]): readonly RegistryEntry[] {
  const healthy = entries.filter((e) => e.health === "healthy");
  return healthy.length > 0 ? healthy : entries;
}

/**
 * A client's BaseUrlSource that finds `name` in the registry before every call: a healthy replica
 * (round-robin or random), else a degraded one; with none, ManifoldError `UNAVAILABLE` (retryable).
 *
 * ```ts
 * const weather = createClient(WeatherServiceSpec, { baseUrl: discover(defaultRegistry(), "weather-service") });
 * ```
 */
export function discover(
  registry: Registry,
  name: string,
  { strategy = "round-robin", staleMs = 10_000, now = Date.now }: DiscoverOptions = {},
): () => Promise<string> {
  checkName(name, "component name");
  let next = 0;
  let last: { urls: string[]; at: number } | undefined;

  const pick = (urls: readonly string[]): string => {
    const index = strategy === "random" ? Math.floor(Math.random() * urls.length) : next++ % urls.length;
    return urls[index]!;
  };

  return async () => {
    let entries: RegistryEntry[];
    try {
      entries = await registry.byName(name, { health: ["healthy", "degraded"] });
    } catch (error) {
      if (last !== undefined && now() - last.at < staleMs) return pick(last.urls);
      const reason = error instanceof Error ? error.message : String(error);
      throw new ManifoldError("UNAVAILABLE", `cannot find ${name}: ${reason}`, { cause: error });
    }
    const usable = preferHealthy(entries);
    if (usable.length === 0) {
      if (last !== undefined && now() - last.at < staleMs) return pick(last.urls);
      throw new ManifoldError(
        "UNAVAILABLE",
        `no healthy replica of ${name} is registered: start it with the same store settings as this process (REDIS_URL / MANIFOLD_REDIS_*), or give its address (baseUrl, or baseUrls in clients())`,
      );
    }
    last = { urls: usable.map(baseUrlOf), at: now() };
    return pick(last.urls);
  };
}
