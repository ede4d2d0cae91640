/**
 * The registry as the dashboard shows it: the spec's service registration records (`/api/services`)
 * and the API browser's list of OpenAPI documents (`/swagger-urls.json`).
 */
import { baseUrlOf, type ComponentType, type HealthState, type Registry, type RegistryEntry, type Verification } from "../discovery/index.js";
import type { CapabilityWire } from "../spec/index.js";

/** The capability as the dashboard shows it: the wire object without its output summary (the spec hides output schemas here). */
export type DashboardCapability = Omit<CapabilityWire, "output_summary">;

/** The spec's service registration record. */
export interface ServiceRecord {
  readonly id: string;
  readonly name: string;
  readonly type: ComponentType;
  readonly health: HealthState;
  /** ISO 8601, the registry's clock at the last heartbeat. */
  readonly last_seen: string;
  readonly description: string;
  readonly address: string;
  readonly port: number;
  readonly metadata: Readonly<Record<string, string>>;
  readonly capabilities: readonly DashboardCapability[];
  /**
   * How the record checked against the registry key. Without a key the dashboard checks nothing:
   * `unsigned` when the record carries no signature, `unchecked` when it does.
   */
  readonly verification: Verification | "unchecked";
}

/** What the dashboard says of a record's signature (the signature itself is never shown). */
export function verificationOf(entry: RegistryEntry): Verification | "unchecked" {
  return entry.verification ?? (entry.signature === undefined ? "unsigned" : "unchecked");
}

export interface SwaggerUrl {
  readonly name: string;
  readonly url: string;
}

/**
 * Registration metadata a component may set to say whether it serves `/openapi.json`; without it
 * the dashboard asks the component once per replica.
 */
export const OPENAPI_METADATA_KEY = "openapi";

export function capabilityOf(wire: CapabilityWire): DashboardCapability {
  // Built field by field rather than by deleting output_summary: a future wire field is not shown until someone decides it may be.
  return {
    name: wire.name,
    description: wire.description,
    endpoint: wire.endpoint,
    type: wire.type,
    internal: wire.internal,
    ...(wire.input_summary === undefined ? {} : { input_summary: wire.input_summary }),
  };
}

export function serviceRecord(entry: RegistryEntry): ServiceRecord {
  return {
    id: entry.id,
    name: entry.name,
    type: entry.type,
    health: entry.health,
    last_seen: entry.last_seen,
    description: entry.description,
    address: entry.address,
    port: entry.port,
    metadata: entry.metadata,
    capabilities: entry.capabilities.map(capabilityOf),
    verification: verificationOf(entry),
  };
}

/** Every registration in every health state (a viewer shows the unhealthy ones too), optionally of one type. */
export async function listServices(registry: Registry, type?: ComponentType): Promise<ServiceRecord[]> {
  const entries = type === undefined ? await registry.listAll() : await registry.byType(type, { health: ["healthy", "degraded", "unhealthy", "unknown"] });
  return entries.map(serviceRecord);
}

export interface OpenApiProbeOptions {
  /** One probe's timeout. @defaultValue 1000 */
  readonly timeoutMs?: number;
  /** How long a `/swagger-urls.json` request waits for the probes it starts; the rest finish in the background. @defaultValue 2000 */
  readonly waitMs?: number;
  /** Probes at once. @defaultValue 16 */
  readonly concurrency?: number;
  /** Replica answers remembered (ids are per process, so an answer never changes). @defaultValue 10000 */
  readonly maxRemembered?: number;
}

export interface OpenApiProbe {
  /** The API browser's list: one entry per service name with a replica serving OpenAPI, sorted by name. */
  swaggerUrls(entries: readonly RegistryEntry[], urlOf: (name: string) => string): Promise<SwaggerUrl[]>;
  /** The replicas of `name` known to serve `/openapi.json`, healthy first. */
  servingReplicas(entries: readonly RegistryEntry[]): Promise<RegistryEntry[]>;
}

function metadataAnswer(entry: RegistryEntry): boolean | undefined {
  const value = entry.metadata[OPENAPI_METADATA_KEY];
  return value === "true" ? true : value === "false" ? false : undefined;
}

/**
 * Whether a replica serves `/openapi.json` is not in its registration, so the dashboard asks it
 * (HEAD, bounded in time and in number at once) and remembers the answer by replica id: a replica's
 * OpenAPI switch is fixed for its process's life. A replica that could not be asked (unreachable,
 * timed out) is asked again next time.
 */
export function createOpenApiProbe({ timeoutMs = 1000, waitMs = 2000, concurrency = 16, maxRemembered = 10_000 }: OpenApiProbeOptions = {}): OpenApiProbe {
  const answers = new Map<string, boolean>();
  const inFlight = new Map<string, Promise<void>>();
  const queue: (() => void)[] = [];
  let active = 0;

  const remember = (id: string, serves: boolean): void => {
    // Oldest first out: Map iteration order is insertion order.
    if (answers.size >= maxRemembered) answers.delete(answers.keys().next().value!);
    answers.set(id, serves);
  };

  const ask = async (entry: RegistryEntry): Promise<void> => {
    if (active >= concurrency) await new Promise<void>((resolve) => queue.push(resolve));
    active += 1;
    try {
      const response = await fetch(`${baseUrlOf(entry)}/openapi.json`, { method: "HEAD", redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
      // 404 is a definite "off"; anything else unexpected (5xx while draining) is asked again later.
      if (response.ok) remember(entry.id, true);
      else if (response.status === 404) remember(entry.id, false);
    } catch {
      // Unreachable or slow: no answer to remember.
    } finally {
      active -= 1;
      queue.shift()?.();
    }
  };

  const known = (entry: RegistryEntry): boolean | undefined => metadataAnswer(entry) ?? answers.get(entry.id);

  const settle = async (entries: readonly RegistryEntry[]): Promise<void> => {
    const pending: Promise<void>[] = [];
    for (const entry of entries) {
      if (known(entry) !== undefined || entry.health === "unknown") continue;
      let probe = inFlight.get(entry.id);
      if (probe === undefined) {
        probe = ask(entry).finally(() => inFlight.delete(entry.id));
        inFlight.set(entry.id, probe);
      }
      pending.push(probe);
    }
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(pending), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  };

  const rank = (health: HealthState): number => (health === "healthy" ? 0 : health === "degraded" ? 1 : 2);

  return {
    async swaggerUrls(entries, urlOf) {
      await settle(entries);
      const names = new Set<string>();
      for (const entry of entries) if (known(entry) === true) names.add(entry.name);
      return [...names].sort().map((name) => ({ name, url: urlOf(name) }));
    },
    async servingReplicas(entries) {
      await settle(entries);
      return entries.filter((entry) => known(entry) === true).sort((a, b) => rank(a.health) - rank(b.health));
    },
  };
}
