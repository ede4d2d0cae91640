/** What both adapters share: input checks, the stored record, effective health, lookup filtering. */
import { ManifoldError } from "../errors/index.js";
import { DEFAULT_REGISTRATION_TTL_MS } from "../spec/index.js";
import type { ComponentRegistration, HealthState, LookupOptions, RegisterOptions, RegistryEntry, ReportedHealth } from "./types.js";

/** Names become key parts: no colon, brace or whitespace (a brace would move a key's cluster slot). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const REPORTED: readonly string[] = ["healthy", "degraded", "unhealthy"];

/** A registration is overdue, so `unknown`, after this many heartbeat periods without one. */
export const OVERDUE_FACTOR = 1.5;
export const DEFAULT_TTL_MS = DEFAULT_REGISTRATION_TTL_MS;

function invalid(message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", `invalid registration: ${message}`);
}

export function checkName(value: unknown, what: string): string {
  if (typeof value !== "string" || !NAME.test(value))
    throw new ManifoldError("INVALID_INPUT", `invalid ${what}: 1-128 letters, digits, '.', '_' or '-' expected`);
  return value;
}

export function checkRegistration(c: ComponentRegistration): void {
  checkName(c.id, "id");
  checkName(c.name, "name");
  if (c.type !== "tool" && c.type !== "agent" && c.type !== "mcp") throw invalid("type must be tool, agent or mcp");
  if (typeof c.description !== "string") throw invalid("description must be a string");
  if (typeof c.metadata !== "object" || c.metadata === null) throw invalid("metadata must be an object of strings");
  if (typeof c.address !== "string" || c.address === "" || /\s/.test(c.address)) throw invalid("address must be a host name or IP");
  if (!Number.isInteger(c.port) || c.port < 1 || c.port > 65535) throw invalid("port must be an integer from 1 to 65535");
  if (!REPORTED.includes(c.health)) throw invalid("health must be healthy, degraded or unhealthy");
  if (!Array.isArray(c.capabilities)) throw invalid("capabilities must be an array");
  for (const capability of c.capabilities) checkName(capability?.name, "a capability name");
  if (c.signed_at !== undefined && !Number.isSafeInteger(c.signed_at)) throw invalid("signed_at must be an integer (ms)");
  if (c.signature !== undefined && (typeof c.signature !== "string" || c.signature.length > 128)) throw invalid("signature must be a short string");
  for (const value of Object.values(c.metadata)) {
    if (typeof value !== "string") throw invalid("metadata values must be strings");
  }
}

export interface Timing {
  readonly ttlMs: number;
  readonly heartbeatMs: number;
}

export function resolveTiming({ ttlMs = DEFAULT_TTL_MS, heartbeatMs = ttlMs / 3 }: RegisterOptions = {}): Timing {
  if (!Number.isFinite(ttlMs) || ttlMs < 10) throw new RangeError("ttlMs must be at least 10");
  if (!Number.isFinite(heartbeatMs) || heartbeatMs <= 0 || heartbeatMs > ttlMs) throw new RangeError("heartbeatMs must be positive and at most ttlMs");
  return { ttlMs: Math.round(ttlMs), heartbeatMs: Math.round(heartbeatMs) };
}

/** The JSON each adapter stores: the registration as given plus its timing. */
export interface StoredRecord extends ComponentRegistration {
  readonly ttl_ms: number;
  readonly heartbeat_ms: number;
}

export function toStoredRecord(c: ComponentRegistration, { ttlMs, heartbeatMs }: Timing): StoredRecord {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    description: c.description,
    address: c.address,
    port: c.port,
    metadata: { ...c.metadata },
    capabilities: c.capabilities.map((capability) => ({ ...capability })),
    health: c.health,
    ttl_ms: ttlMs,
    heartbeat_ms: heartbeatMs,
    // Kept as written: a keyed registry checks them on read (signing.ts).
    ...(c.signed_at === undefined ? {} : { signed_at: c.signed_at }),
    ...(c.signature === undefined ? {} : { signature: c.signature }),
  };
}

/** Index names a record belongs to, beyond the `all` index. */
export function indexesOf(c: ComponentRegistration): string[] {
  return [`name:${c.name}`, `type:${c.type}`, ...new Set(c.capabilities.map((capability) => `capability:${capability.name}`))];
}

export function effectiveHealth(reported: ReportedHealth, lastSeenMs: number, heartbeatMs: number, nowMs: number): HealthState {
  return nowMs - lastSeenMs > OVERDUE_FACTOR * heartbeatMs ? "unknown" : reported;
}

export function toEntry(record: StoredRecord, lastSeenMs: number, nowMs: number): RegistryEntry {
  const { health, ...rest } = record;
  return {
    ...rest,
    health: effectiveHealth(health, lastSeenMs, record.heartbeat_ms, nowMs),
    reported_health: health,
    last_seen: new Date(lastSeenMs).toISOString(),
  };
}

/**
 * A stored record parsed once per stored text (a refresh that reads the same text reuses it), and
 * the entry last made from it. Both are deep-frozen: they are handed to every caller, so a caller
 * cannot change what the next lookup returns, and downstream caches keyed by identity (signature
 * checks, the catalog, compiled validators) stay warm while nothing changed.
 */
export interface ParsedRecord {
  readonly record: StoredRecord;
  /** What the text is known by: its SHA-1 on Redis (the `digest` field), the text itself in memory. */
  readonly version: string;
  entry?: RegistryEntry;
  lastSeen?: number;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A stored record's JSON, parsed and frozen; undefined when it is not a record. */
export function parseRecord(json: unknown, version: string): ParsedRecord | undefined {
  if (typeof json !== "string") return undefined;
  try {
    const record = JSON.parse(json) as StoredRecord;
    return typeof record === "object" && record !== null && typeof record.id === "string" ? { record: deepFreeze(record), version } : undefined;
  } catch {
    return undefined;
  }
}

/** The entry for a parsed record at `nowMs`: the previous one while its last beat and effective health are unchanged. */
export function entryOf(parsed: ParsedRecord, lastSeenMs: number, nowMs: number): RegistryEntry {
  const { entry, record } = parsed;
  if (entry !== undefined && parsed.lastSeen === lastSeenMs && entry.health === effectiveHealth(record.health, lastSeenMs, record.heartbeat_ms, nowMs))
    return entry;
  parsed.lastSeen = lastSeenMs;
  return (parsed.entry = Object.freeze(toEntry(record, lastSeenMs, nowMs)));
}

export const LOOKUP_DEFAULT: readonly HealthState[] = ["healthy"];
export const LIST_DEFAULT: readonly HealthState[] = ["healthy", "degraded", "unhealthy", "unknown"];

/**
 * `metadata.role` of a registration that serves no calls: a task worker (`MANIFOLD_MODE=worker`)
 * registers so operators see it, with no capabilities, and lookups that route calls skip it.
 */
export const ROLE_KEY = "role";
export const WORKER_ROLE = "worker";

const routable = (entry: RegistryEntry): boolean => entry.metadata[ROLE_KEY] !== WORKER_ROLE;

/** Entries in the wanted health states, by id. The lookups that route calls (`fallback` LOOKUP_DEFAULT) also skip workers; `listAll` keeps them. */
export function select(entries: readonly RegistryEntry[], { health }: LookupOptions, fallback: readonly HealthState[]): RegistryEntry[] {
  const wanted = health ?? fallback;
  const routing = fallback === LOOKUP_DEFAULT;
  return entries.filter((e) => wanted.includes(e.health) && (!routing || routable(e))).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function capabilityList(capabilities: string | readonly string[]): string[] {
  const list = typeof capabilities === "string" ? [capabilities] : [...new Set(capabilities)];
  if (list.length === 0) throw new ManifoldError("INVALID_INPUT", "byCapability needs at least one capability name");
  for (const name of list) checkName(name, "a capability name");
  return list;
}
