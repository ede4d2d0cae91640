import type { CapabilityWire } from "../spec/index.js";

/**
 * `unknown` is never reported by a component: it is what a reader sees when a registration's
 * heartbeat is overdue (its process may be gone) until the registration expires.
 */
export type HealthState = "healthy" | "degraded" | "unhealthy" | "unknown";
export type ReportedHealth = Exclude<HealthState, "unknown">;
/**
 * `mcp`: an external MCP server an agent uses, registered by that agent for the dashboard to show
 * (its address is the server's; it is reached through the agent's MCP session, never over HTTP).
 */
export type ComponentType = "tool" | "agent" | "mcp";

export const HEALTH_STATES: readonly HealthState[] = ["healthy", "degraded", "unhealthy", "unknown"];

/** What a component writes at registration and at every heartbeat: its full record. */
export interface ComponentRegistration {
  /** Unique per replica: `<name>-<8 hex>` for a served component. */
  readonly id: string;
  readonly name: string;
  readonly type: ComponentType;
  readonly description: string;
  /** Host or IP other components dial; with `port`, the base URL `http://address:port`. */
  readonly address: string;
  readonly port: number;
  readonly metadata: Readonly<Record<string, string>>;
  /** The capability wire objects of `GET /api/capabilities`. */
  readonly capabilities: readonly CapabilityWire[];
  readonly health: ReportedHealth;
  /** With a registry key (MANIFOLD_REGISTRY_KEY): when the record was signed (ms since the epoch, the signer's clock). Set by the keyed registry. */
  readonly signed_at?: number;
  /** With a registry key: HMAC-SHA256 (base64url) over every other field of the stored record. Set by the keyed registry. */
  readonly signature?: string;
}

/**
 * How a record checked against the registry key: `expired` is a signed record looked up after its
 * `signed_at + ttl_ms` (a replay). Without a key nothing is checked and lookups carry no verification.
 */
export type Verification = "verified" | "unsigned" | "bad_signature" | "expired";

/** A registration as a lookup returns it. */
export interface RegistryEntry extends Omit<ComponentRegistration, "health"> {
  /** The reported health, or `unknown` once the heartbeat is overdue. */
  readonly health: HealthState;
  /** What the component reported at its last heartbeat. */
  readonly reported_health: ReportedHealth;
  /** ISO 8601, the registry's clock (Redis server time) at the last heartbeat. */
  readonly last_seen: string;
  /** The registration expires this long after its last heartbeat. */
  readonly ttl_ms: number;
  /** The heartbeat period; overdue (so `unknown`) after 1.5 × this without one. */
  readonly heartbeat_ms: number;
  /** Set by a keyed registry (withRegistryKey): always `verified`, unless `unverified: true` was asked. */
  readonly verification?: Verification;
}

export interface RegisterOptions {
  /** @defaultValue 30000 */
  readonly ttlMs?: number;
  /** @defaultValue ttlMs / 3 */
  readonly heartbeatMs?: number;
}

/**
 * A component's own view of its health, asked at every heartbeat and by `GET /health`. Throwing, or
 * not answering within 2 s, counts as `unhealthy`.
 */
export type HealthCheck = () => ReportedHealth | Promise<ReportedHealth>;

/** How a served component registers itself (ComponentOptions.registration). */
export interface RegistrationOptions extends RegisterOptions {
  /**
   * The address other components dial.
   * @defaultValue `MANIFOLD_ADVERTISE_ADDRESS`, else the listening address (a wildcard listener
   * advertises the first non-internal IPv4 address, else loopback)
   */
  readonly address?: string;
  /** Added to the record's metadata (which always holds `version`). */
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface LookupOptions {
  /** Which effective health states to return. @defaultValue ["healthy"] for byName/byType/byCapability, every state for listAll */
  readonly health?: readonly HealthState[];
  /**
   * With a registry key: also return the records that do not verify, each with its `verification`
   * (the dashboard shows them). Lookups that route calls never set it. @defaultValue false
   */
  readonly unverified?: boolean;
}

/**
 * The registry port (DESIGN §5): a `memory` and a `redis` adapter implement it, and one contract
 * suite (test/contract/registry.cases.ts) runs against both. Lookups return entries sorted by id.
 * A failure to reach the backing store rejects with ManifoldError `UNAVAILABLE`.
 */
export interface Registry {
  /** True when lookups return only records verified with a registry key (withRegistryKey). */
  readonly verifies?: boolean;
  /** Writes the full record and (re)starts its TTL: registration and heartbeat are the same call. */
  register(component: ComponentRegistration, options?: RegisterOptions): Promise<void>;
  /** Removes the record and its index entries; false when there was none. */
  unregister(id: string): Promise<boolean>;
  get(id: string): Promise<RegistryEntry | undefined>;
  /** Every replica of a component; by default only the healthy ones. */
  byName(name: string, options?: LookupOptions): Promise<RegistryEntry[]>;
  byType(type: ComponentType, options?: LookupOptions): Promise<RegistryEntry[]>;
  /** Components that have every one of `capabilities` (AND). */
  byCapability(capabilities: string | readonly string[], options?: LookupOptions): Promise<RegistryEntry[]>;
  listAll(options?: LookupOptions): Promise<RegistryEntry[]>;
  /**
   * Called when the backing store comes back after an outage, which may have lost its data (a Redis
   * restart): registered components rewrite their record at once instead of at their next beat.
   */
  onReconnect(listener: () => void): () => void;
  /** Releases what the registry owns (its store connection, when it made one). */
  close(): Promise<void>;
}
