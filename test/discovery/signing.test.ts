/**
 * Registry records signed with the network key (MANIFOLD_REGISTRY_KEY, DESIGN §5.5), against the
 * memory adapter and a real redis-server: a keyed registry's lookups return only records it can
 * verify; an unsigned record, one signed with another key, one with a field changed after signing
 * and a signed record replayed after its TTL are ignored, each reported once (a WARN line and a
 * counter), however often it is looked up.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  createMemoryRegistry,
  createRegistry,
  withRegistryKey,
  type ComponentRegistration,
  type Registry,
  type RegistryEntry,
} from "../../runtime/discovery/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { registration } from "../contract/registry.cases.js";

const KEY = "k".repeat(16) + "-network-key-for-the-suite-0123456789";
const OTHER_KEY = "o".repeat(16) + "-another-network-key-0123456789abcd";

interface Reports {
  readonly lines: { message: string; fields: Record<string, unknown> | undefined }[];
  readonly counted: { name: string; value: number; labels: Record<string, unknown> | undefined }[];
}

function reports(): Reports & { log: (message: string, fields?: Record<string, unknown>) => void; metrics: any } {
  const lines: Reports["lines"] = [];
  const counted: Reports["counted"] = [];
  return {
    lines,
    counted,
    log: (message, fields) => lines.push({ message, fields }),
    metrics: {
      counter: (name: string, value: number, labels?: Record<string, unknown>) => counted.push({ name, value, labels }),
      upDownCounter: () => undefined,
      histogram: () => undefined,
      gauge: () => undefined,
    },
  };
}

/** A record as stored (signature included), to replay or tamper with through an unkeyed registry. */
function asRegistration(entry: RegistryEntry, overrides: Partial<ComponentRegistration> = {}): ComponentRegistration {
  const {
    health: _h,
    reported_health,
    last_seen: _l,
    ttl_ms: _t,
    heartbeat_ms: _b,
    verification: _v,
    ...rest
  } = entry as RegistryEntry & { verification?: string };
  return { ...rest, health: reported_health, ...overrides };
}

const ids = (entries: readonly RegistryEntry[]) => entries.map((e) => e.id).sort();

interface Backend {
  readonly name: string;
  /** A registry over a fresh catalog: keyed (with the given key), or raw (no key: writes what it is given). */
  open(): Promise<{ keyed: (key: string, r: ReturnType<typeof reports>) => Registry; raw: Registry; close(): Promise<void> }>;
}

let redis: RedisServer | undefined;
let namespaceSeq = 0;

const memory: Backend = {
  name: "memory",
  open: async () => {
    const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `signing-${++namespaceSeq}` } });
    return {
      keyed: (key, r) => createRegistry({ store, key, verification: { log: r.log, metrics: r.metrics } }),
      raw: createRegistry({ store, key: false }),
      close: () => store.close(),
    };
  },
};

const redisBackend: Backend = {
  name: "redis",
  open: async () => {
    redis ??= await startRedisServer();
    const env = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: `signing-${++namespaceSeq}` };
    const stores: Store[] = [];
    const storeOf = () => {
      const s = createStore({ env });
      stores.push(s);
      return s;
    };
    return {
      keyed: (key, r) => createRegistry({ store: storeOf(), cache: false, key, verification: { log: r.log, metrics: r.metrics } }),
      raw: createRegistry({ store: storeOf(), cache: false, key: false }),
      close: async () => {
        for (const s of stores) await s.close();
      },
    };
  },
};

test.after(async () => {
  await redis?.close();
});

for (const backend of [memory, redisBackend]) {
  test(`${backend.name}: a signed record is found by every lookup; forged ones are ignored and reported once each`, async () => {
    const catalog = await backend.open();
    const r = reports();
    try {
      const keyed = catalog.keyed(KEY, r);
      const genuine = registration({ name: "pay-agent", id: "pay-agent-genuine1", type: "agent", caps: ["charge"] });
      await keyed.register(genuine);

      // Unsigned, and signed with another network's key.
      const unsigned = registration({ name: "pay-agent", id: "pay-agent-0unsigned", type: "agent", caps: ["charge"], address: "127.0.0.9" });
      await catalog.raw.register(unsigned);
      const strangerReports = reports();
      const stranger = catalog.keyed(OTHER_KEY, strangerReports);
      const wrongKey = registration({ name: "pay-agent", id: "pay-agent-0wrongkey", type: "agent", caps: ["charge"], address: "127.0.0.9" });
      await stranger.register(wrongKey);

      // The genuine record with its address changed, signature kept.
      const stored = await catalog.raw.get(genuine.id);
      assert.ok(stored !== undefined);
      const signed = stored as RegistryEntry & { signature?: string; signed_at?: number };
      assert.type(signed.signature, "string", "the stored record carries its signature");
      assert.type(signed.signed_at, "number");
      const tampered = asRegistration(stored, { id: "pay-agent-0tampered", address: "127.0.0.9" });
      await catalog.raw.register(tampered);

      for (let round = 0; round < 3; round += 1) {
        assert.equal(ids(await keyed.byName("pay-agent")), [genuine.id], "byName");
        assert.equal(ids(await keyed.byType("agent")), [genuine.id], "byType");
        assert.equal(ids(await keyed.byCapability("charge")), [genuine.id], "byCapability");
        assert.equal(ids(await keyed.listAll()), [genuine.id], "listAll");
        assert.is((await keyed.get(unsigned.id)) === undefined, true, "get");
        assert.is((await keyed.get(genuine.id))?.id, genuine.id);
      }
      assert.equal(ids(await catalog.raw.byName("pay-agent")), [genuine.id, tampered.id, unsigned.id, wrongKey.id].sort(), "an unkeyed registry sees them all");

      const reasons = Object.fromEntries(r.lines.map((line) => [line.fields?.["id"], line.fields?.["reason"]]));
      assert.equal(reasons, { [unsigned.id]: "unsigned", [wrongKey.id]: "bad_signature", [tampered.id]: "bad_signature" });
      assert.is(r.lines.length, 3, "one report per record, not per lookup");
      for (const line of r.lines) {
        assert.match(line.message, /pay-agent/);
        assert.is(line.fields?.["name"], "pay-agent");
        assert.not.match(JSON.stringify(line), new RegExp(KEY), "the key never reaches a log line");
      }
      assert.equal(r.counted.map((c) => [c.name, c.value, c.labels?.["error_type"]]).sort(), [
        ["manifold.discovery.rejected_records", 1, "bad_signature"],
        ["manifold.discovery.rejected_records", 1, "bad_signature"],
        ["manifold.discovery.rejected_records", 1, "unsigned"],
      ]);

      // Asked for every record (the dashboard), each says how it verified.
      const all = await keyed.listAll({ unverified: true });
      assert.equal(Object.fromEntries(all.map((e) => [e.id, e.verification])), {
        [genuine.id]: "verified",
        [unsigned.id]: "unsigned",
        [wrongKey.id]: "bad_signature",
        [tampered.id]: "bad_signature",
      });
      assert.is(keyed.verifies, true);
      assert.is(catalog.raw.verifies ?? false, false);
    } finally {
      await catalog.close();
    }
  });
}

test("a signed record replayed after its TTL is ignored (the signature covers signed_at and ttl_ms)", async () => {
  let now = 1_700_000_000_000;
  const inner = createMemoryRegistry({ now: () => now });
  const r = reports();
  const keyed = withRegistryKey(inner, { key: KEY, now: () => now, log: r.log, metrics: r.metrics });
  const genuine = registration({ name: "pay-agent", id: "pay-agent-replayed", type: "agent" });
  await keyed.register(genuine, { ttlMs: 30_000 });
  const captured = asRegistration((await inner.get(genuine.id))!);
  assert.equal(ids(await keyed.byName("pay-agent")), [genuine.id]);

  now += 29_000;
  await inner.register(captured, { ttlMs: 30_000 });
  assert.equal(ids(await keyed.byName("pay-agent")), [genuine.id], "replayed within its TTL it is still the record that was signed");
  now += 2_000;
  await inner.register(captured, { ttlMs: 30_000 });
  assert.equal(ids(await keyed.byName("pay-agent")), [], "replayed after its TTL: ignored");
  assert.equal(
    r.lines.map((line) => line.fields?.["reason"]),
    ["expired"],
  );
  // A longer TTL than the one signed is a tampered record.
  await inner.register(captured, { ttlMs: 3_600_000 });
  assert.equal(ids(await keyed.byName("pay-agent")), []);
  assert.equal(
    r.lines.map((line) => line.fields?.["reason"]),
    ["expired", "bad_signature"],
  );
  // The component's next heartbeat signs afresh.
  await keyed.register(genuine, { ttlMs: 30_000 });
  assert.equal(ids(await keyed.byName("pay-agent")), [genuine.id]);
});

test("the key comes from MANIFOLD_REGISTRY_KEY; a short one is a clear start-up error that does not quote it", async () => {
  const store = createStore({ env: {} });
  try {
    const fromEnv = createRegistry({ store, env: { MANIFOLD_REGISTRY_KEY: KEY } });
    assert.is(fromEnv.verifies, true);
    assert.is(createRegistry({ store, env: {} }).verifies ?? false, false, "no key: the network runs as before");
    for (const short of ["too-short-a-key", "ab".repeat(20), "QUJD".repeat(10)]) {
      try {
        createRegistry({ store, env: { MANIFOLD_REGISTRY_KEY: short } });
        assert.unreachable(`accepted ${short}`);
      } catch (error) {
        assert.instance(error, RangeError);
        assert.match((error as Error).message, /MANIFOLD_REGISTRY_KEY must be at least 32 bytes/);
        assert.not.match((error as Error).message, new RegExp(short));
      }
    }
    assert.ok(createRegistry({ store, env: { MANIFOLD_REGISTRY_KEY: "ab".repeat(32) } }).verifies, "64 hex digits (32 bytes) are enough");
  } finally {
    await store.close();
  }
});

test.run();
