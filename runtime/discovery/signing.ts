/**
 * Registry records signed with the network key (`MANIFOLD_REGISTRY_KEY`, DESIGN §5.5). Anyone who
 * can write to the registry's store can register a record; only a holder of the key can sign one.
 * A keyed registry signs every registration and heartbeat, and its lookups return only records it
 * can verify, so a neighbour's record named like an agent never receives that agent's calls.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { registerSecret } from "../context/index.js";
import { ATTR, createLogger, getTelemetry, METRIC, type Metrics } from "../telemetry/index.js";
import { resolveTiming, toStoredRecord } from "./entry.js";
import type { ComponentRegistration, LookupOptions, Registry, RegistryEntry, Verification } from "./types.js";

export const REGISTRY_KEY_ENV = "MANIFOLD_REGISTRY_KEY";

/** Bytes of key material required: HMAC-SHA256's own block of strength. */
const MIN_KEY_BYTES = 32;
/** Records whose rejection was reported, remembered to report each once; the oldest is forgotten first. */
const MAX_REPORTED = 10_000;
/** Bumped if the signed text ever changes shape, so an old signature can never verify a new layout. */
const DOMAIN = "manifold-registry-v1\n";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The key is used as the text given, so every node derives the same bytes; but text that is all hex
 * digits (or all base64) carries fewer than 8 bits per character, so it must be long enough to hold
 * 32 bytes once decoded: `openssl rand -hex 32` (64 characters) or `openssl rand -base64 32` (44).
 */
export function checkRegistryKey(key: string, what: string = REGISTRY_KEY_ENV): string {
  const hex = /^[0-9a-fA-F]+$/.test(key);
  const base64 = !hex && /^[A-Za-z0-9+/]+={0,2}$/.test(key);
  const bytes = hex ? key.length / 2 : base64 ? Math.floor((key.replace(/=+$/, "").length * 3) / 4) : Buffer.byteLength(key, "utf8");
  if (bytes < MIN_KEY_BYTES)
    throw new RangeError(
      `${what} must be at least ${MIN_KEY_BYTES} bytes of key material (got ${bytes}${hex ? ", as hex" : base64 ? ", as base64" : ""}): generate one with \`openssl rand -hex 32\``,
    );
  return key;
}

/** The network key from the option (`false`: none), else `MANIFOLD_REGISTRY_KEY`; checked, and registered for redaction. */
export function resolveRegistryKey(option: string | false | undefined, env: Env = process.env): string | undefined {
  if (option === false) return undefined;
  const key = option ?? (env[REGISTRY_KEY_ENV] || undefined);
  if (key === undefined) return undefined;
  checkRegistryKey(key, option === undefined ? REGISTRY_KEY_ENV : "the registry key");
  registerSecret(key);
  return key;
}

/** Object keys sorted at every level: the text signed does not depend on the order a writer used. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** Every field of the stored record but the signature itself: a change to any of them breaks it. */
interface SignedFields extends Omit<ComponentRegistration, "signature"> {
  readonly ttl_ms: number;
  readonly heartbeat_ms: number;
  readonly signed_at: number;
}

function signedFieldsOf(entry: RegistryEntry, signedAt: number): SignedFields {
  return {
    id: entry.id,
    name: entry.name,
    type: entry.type,
    description: entry.description,
    address: entry.address,
    port: entry.port,
    metadata: entry.metadata,
    capabilities: entry.capabilities,
    health: entry.reported_health,
    ttl_ms: entry.ttl_ms,
    heartbeat_ms: entry.heartbeat_ms,
    signed_at: signedAt,
  };
}

function mac(key: string, fields: SignedFields): Buffer {
  return createHmac("sha256", key).update(DOMAIN).update(canonicalJson(fields)).digest();
}

/** Whether a record's signature is the one `key` makes over its fields: time plays no part, so it can be remembered per record. */
function signatureOf(entry: RegistryEntry, key: string): "unsigned" | "bad_signature" | "good" {
  const { signature, signed_at: signedAt } = entry;
  if (typeof signature !== "string" || typeof signedAt !== "number") return "unsigned";
  let expected: Buffer;
  try {
    expected = mac(key, signedFieldsOf(entry, signedAt));
  } catch {
    // A forged record built to break serialisation (a cycle cannot come from JSON, but depth can).
    return "bad_signature";
  }
  const given = Buffer.from(signature, "base64url");
  return given.length === expected.length && timingSafeEqual(given, expected) ? "good" : "bad_signature";
}

/** A well-signed record at `now`: `expired` once `signed_at + ttl_ms` has passed. */
const expiryAt = (entry: RegistryEntry, now: number): Verification => (now > (entry.signed_at as number) + entry.ttl_ms ? "expired" : "verified");

/**
 * How a record verifies under `key` at `now` (the reader's clock): `expired` once `signed_at + ttl_ms`
 * has passed, so a captured record replayed into the store is worth no more than its own TTL. A
 * heartbeat re-signs every `ttl_ms / 3`, which leaves room for two thirds of a TTL of clock skew.
 */
export function verifyEntry(entry: RegistryEntry, key: string, now: number): Verification {
  const signature = signatureOf(entry, key);
  return signature === "good" ? expiryAt(entry, now) : signature;
}

export interface RegistryKeyOptions {
  /** The network key: at least 32 bytes (see checkRegistryKey). */
  readonly key: string;
  /** The signer's and verifier's clock. @defaultValue Date.now */
  readonly now?: () => number;
  /** Where an ignored record is reported (once per record id and reason). @defaultValue a WARN line of the `discovery` logger */
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  /** @defaultValue the process's telemetry metrics, read at each report */
  readonly metrics?: Metrics;
}

type Lookup = (options?: LookupOptions) => Promise<RegistryEntry[]>;

/**
 * A registry that signs what it registers and returns from its lookups only the records that verify.
 * `{ unverified: true }` returns every record, each with its `verification` (what the dashboard
 * shows); lookups that route calls never ask for it. Each record that is ignored is reported once
 * per id and reason (a WARN line and `manifold.discovery.rejected_records`), not at every lookup.
 */
export function withRegistryKey(registry: Registry, { key, now = Date.now, log, metrics }: RegistryKeyOptions): Registry {
  checkRegistryKey(key, "the registry key");
  registerSecret(key);
  const warn = log ?? ((message, fields) => createLogger({ component: "discovery" }).warn(message, fields));
  const reported = new Map<string, Verification>();

  const report = (entry: RegistryEntry, reason: Verification): void => {
    if (reported.get(entry.id) === reason) return;
    reported.delete(entry.id);
    reported.set(entry.id, reason);
    if (reported.size > MAX_REPORTED) reported.delete(reported.keys().next().value!);
    warn(`registry record ignored: ${entry.name} (${entry.id}) is ${reason.replace("_", " ")}`, { name: entry.name, id: entry.id, reason });
    (metrics ?? getTelemetry().metrics).counter(METRIC.DISCOVERY_REJECTED_RECORDS, 1, { [ATTR.MODULE]: "discovery", [ATTR.ERROR_TYPE]: reason });
  };

  // The catalog cache hands out the same record objects while it is fresh: their MAC is computed once
  // (a lookup precedes every outbound call), their expiry checked at each lookup.
  const signatures = new WeakMap<RegistryEntry, ReturnType<typeof signatureOf>>();
  const verify = (entry: RegistryEntry, at: number): Verification => {
    let signature = signatures.get(entry);
    if (signature === undefined) signatures.set(entry, (signature = signatureOf(entry, key)));
    return signature === "good" ? expiryAt(entry, at) : signature;
  };

  // The judged copy is kept per record object and verdict: while nothing changed, lookups hand out the
  // same objects, so what readers build from them once (the dashboard's JSON) stays valid.
  const judged = new WeakMap<RegistryEntry, RegistryEntry>();
  const judgedAs = (entry: RegistryEntry, verification: Verification): RegistryEntry => {
    const known = judged.get(entry);
    if (known?.verification === verification) return known;
    const made = Object.freeze({ ...entry, verification });
    judged.set(entry, made);
    return made;
  };

  const judge = (entries: readonly RegistryEntry[], options: LookupOptions | undefined): RegistryEntry[] => {
    const at = now();
    const out: RegistryEntry[] = [];
    for (const entry of entries) {
      const verification = verify(entry, at);
      if (verification !== "verified") report(entry, verification);
      if (verification === "verified" || options?.unverified === true) out.push(judgedAs(entry, verification));
    }
    return out;
  };

  const lookup =
    (run: (options?: LookupOptions) => Promise<RegistryEntry[]>): Lookup =>
    async (options) =>
      judge(await run(options), options);

  return {
    verifies: true,
    register: (component, options) => {
      const timing = resolveTiming(options);
      const { signature: _old, ...plain } = component;
      const signedAt = now();
      const record = toStoredRecord({ ...plain, signed_at: signedAt }, timing);
      const signature = mac(key, signedFieldsOf({ ...record, reported_health: record.health } as unknown as RegistryEntry, signedAt)).toString("base64url");
      return registry.register({ ...plain, signed_at: signedAt, signature }, options);
    },
    unregister: (id) => registry.unregister(id),
    get: async (id) => {
      const entry = await registry.get(id);
      return entry === undefined ? undefined : judge([entry], undefined)[0];
    },
    byName: (name, options) => lookup((o) => registry.byName(name, o))(options),
    byType: (type, options) => lookup((o) => registry.byType(type, o))(options),
    byCapability: (capabilities, options) => lookup((o) => registry.byCapability(capabilities, o))(options),
    listAll: (options) => lookup((o) => registry.listAll(o))(options),
    onReconnect: (listener) => registry.onReconnect(listener),
    close: () => registry.close(),
  };
}
