/**
 * The registry contract: one suite, run against every adapter (registry-memory.test.ts,
 * registry-redis.test.ts, registry-cluster.test.ts). Each test gets a fresh, empty registry (a new
 * namespace on Redis). Times are short TTLs on the real clock, so expiry is what the adapter really
 * does, not a simulation; no case is skipped for any adapter.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import type { ComponentRegistration, Registry, RegistryEntry } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { CapabilityWire } from "../../runtime/spec/wire.js";
import { eventually, sleep } from "../support/wait.js";

export interface RegistryUnderTest {
  readonly registry: Registry;
  /** The ids an index set holds right now (`all`, `name:x`, `capability:y`), to see stale members go. */
  indexMembers(index: string): Promise<string[]>;
  close(): Promise<void>;
}

export type RegistryFactory = () => Promise<RegistryUnderTest>;

function capability(name: string): CapabilityWire {
  return {
    name,
    description: `does ${name}`,
    endpoint: `/api/capabilities/${name}`,
    type: "tool",
    internal: false,
    input_summary: { required_fields: [{ name: "q", type: "string", example: "x" }], optional_fields: [] },
  };
}

let seq = 0;
export function registration(overrides: Partial<ComponentRegistration> & { caps?: readonly string[] } = {}): ComponentRegistration {
  const { caps = ["lookup"], ...rest } = overrides;
  const name = rest.name ?? "weather-service";
  seq += 1;
  return {
    id: `${name}-${String(seq).padStart(8, "0")}`,
    name,
    type: "tool",
    description: "Current weather",
    address: "127.0.0.1",
    port: 8000 + seq,
    metadata: { version: "1.0.0" },
    capabilities: caps.map(capability),
    health: "healthy",
    ...rest,
  };
}

const ids = (entries: readonly RegistryEntry[]) => entries.map((e) => e.id);
const sorted = (list: readonly string[]) => [...list].sort();

/** `teardown` runs once after the last case (stopping the suite's Redis, say). */
export function registryCases(adapter: string, create: RegistryFactory, teardown: () => Promise<void> = async () => undefined): void {
  const test = suite<{ under?: RegistryUnderTest }>(`registry contract (${adapter})`, {});
  test.after(teardown);
  test.before.each(async (context) => {
    context.under = await create();
  });
  test.after.each(async ({ under }) => {
    await under?.close();
  });

  test("register then get: the record comes back as written, with health, last_seen and timing", async ({ under }) => {
    const r = under!.registry;
    const c = registration({ caps: ["get_weather", "get_forecast"], metadata: { version: "2.1.0", zone: "eu" } });
    const before = Date.now();
    await r.register(c);
    const entry = await r.get(c.id);
    assert.ok(entry, "registered");
    const { health, reported_health, last_seen, ttl_ms, heartbeat_ms, ...rest } = entry!;
    const { health: _reported, ...written } = c;
    assert.equal(rest, written);
    assert.equal([health, reported_health, ttl_ms, heartbeat_ms], ["healthy", "healthy", 30_000, 10_000]);
    const after = Date.now();
    assert.ok(before <= Date.parse(last_seen) && Date.parse(last_seen) <= after, `last_seen ${last_seen} is when it registered`);
    assert.is(await r.get("nobody-00000000"), undefined);
  });

  test("byName returns every healthy replica, each with its own id, sorted by id", async ({ under }) => {
    const r = under!.registry;
    const replicas = [registration(), registration(), registration()];
    const other = registration({ name: "geocoding-service" });
    await Promise.all([...replicas, other].map((c) => r.register(c)));
    assert.equal(ids(await r.byName("weather-service")), sorted(replicas.map((c) => c.id)));
    assert.equal(ids(await r.byName("geocoding-service")), [other.id]);
    assert.equal(await r.byName("nobody"), []);
  });

  test("a worker-role registration (metadata.role=worker) is listed by listAll, never returned by a lookup that routes calls", async ({ under }) => {
    const r = under!.registry;
    const api = registration({ name: "crunch-agent", type: "agent", caps: ["ping"] });
    const worker = registration({ name: "crunch-agent", type: "agent", caps: ["ping"], metadata: { version: "1.0.0", role: "worker" } });
    await Promise.all([api, worker].map((c) => r.register(c)));
    assert.equal(ids(await r.byName("crunch-agent")), [api.id]);
    assert.equal(ids(await r.byName("crunch-agent", { health: ["healthy", "degraded", "unhealthy", "unknown"] })), [api.id], "whatever the health asked");
    assert.equal(ids(await r.byType("agent")), [api.id]);
    assert.equal(ids(await r.byCapability("ping")), [api.id]);
    assert.equal(sorted(ids((await r.listAll()).filter((e) => e.name === "crunch-agent"))), sorted([api.id, worker.id]));
  });

  test("byType separates tools from agents", async ({ under }) => {
    const r = under!.registry;
    const tool = registration();
    const agent = registration({ name: "travel-agent", type: "agent" });
    await Promise.all([r.register(tool), r.register(agent)]);
    assert.equal(ids(await r.byType("tool")), [tool.id]);
    assert.equal(ids(await r.byType("agent")), [agent.id]);
  });

  test("byCapability: one name, and several names meaning AND", async ({ under }) => {
    const r = under!.registry;
    const both = registration({ caps: ["geocode", "reverse_geocode"] });
    const one = registration({ caps: ["geocode"] });
    const none = registration({ caps: ["convert"] });
    await Promise.all([both, one, none].map((c) => r.register(c)));
    assert.equal(ids(await r.byCapability("geocode")), sorted([both.id, one.id]));
    assert.equal(ids(await r.byCapability(["geocode", "reverse_geocode"])), [both.id]);
    assert.equal(ids(await r.byCapability(["reverse_geocode", "geocode"])), [both.id]);
    assert.equal(ids(await r.byCapability(["geocode", "convert"])), []);
    assert.equal(await r.byCapability("nothing_here"), []);
  });

  test("listAll returns every registration in every health state", async ({ under }) => {
    const r = under!.registry;
    const list = [registration(), registration({ health: "degraded" }), registration({ name: "a", health: "unhealthy" })];
    await Promise.all(list.map((c) => r.register(c)));
    const all = await r.listAll();
    assert.equal(ids(all), sorted(list.map((c) => c.id)));
    assert.equal(sorted(all.map((e) => e.health)), ["degraded", "healthy", "unhealthy"]);
    assert.equal(ids(await r.listAll({ health: ["unhealthy"] })), [list[2]!.id]);
  });

  test("lookups return healthy only by default; degraded and unhealthy on request", async ({ under }) => {
    const r = under!.registry;
    const healthy = registration();
    const degraded = registration({ health: "degraded" });
    const unhealthy = registration({ health: "unhealthy" });
    await Promise.all([healthy, degraded, unhealthy].map((c) => r.register(c)));
    assert.equal(ids(await r.byName("weather-service")), [healthy.id]);
    assert.equal(ids(await r.byCapability("lookup")), [healthy.id]);
    assert.equal(ids(await r.byType("tool")), [healthy.id]);
    assert.equal(ids(await r.byName("weather-service", { health: ["healthy", "degraded"] })), sorted([healthy.id, degraded.id]));
    assert.is((await r.get(degraded.id))!.health, "degraded");
  });

  test("re-registering rewrites the record and moves it between indexes", async ({ under }) => {
    const r = under!.registry;
    const first = registration({ caps: ["old_cap", "kept_cap"] });
    await r.register(first);
    const second: ComponentRegistration = {
      ...first,
      description: "changed",
      health: "degraded",
      capabilities: [capability("kept_cap"), capability("new_cap")],
    };
    await r.register(second);
    assert.is((await r.get(first.id))!.description, "changed");
    assert.equal(await r.byCapability("old_cap", { health: ["degraded"] }), []);
    assert.equal(ids(await r.byCapability("new_cap", { health: ["degraded"] })), [first.id]);
    assert.equal(ids(await r.byCapability("kept_cap", { health: ["degraded"] })), [first.id]);
    assert.equal(await under!.indexMembers("capability:old_cap"), []);
    assert.equal(ids(await r.listAll()), [first.id], "still one registration");
  });

  test("unregister removes the record from every lookup and index", async ({ under }) => {
    const r = under!.registry;
    const gone = registration({ caps: ["a_cap", "b_cap"] });
    const stays = registration({ caps: ["a_cap"] });
    await Promise.all([r.register(gone), r.register(stays)]);
    assert.is(await r.unregister(gone.id), true);
    assert.is(await r.unregister(gone.id), false, "a second time: nothing there");
    assert.is(await r.get(gone.id), undefined);
    assert.equal(ids(await r.byName("weather-service")), [stays.id]);
    assert.equal(ids(await r.byCapability("a_cap")), [stays.id]);
    assert.equal(await r.byCapability("b_cap"), []);
    assert.equal(ids(await r.listAll()), [stays.id]);
    for (const index of ["all", "name:weather-service", "type:tool", "capability:a_cap", "capability:b_cap"]) {
      assert.not.ok((await under!.indexMembers(index)).includes(gone.id), `${index} no longer holds it`);
    }
  });

  test("a registration that is not refreshed expires after its TTL; its index entries are dropped, never returned", async ({ under }) => {
    const r = under!.registry;
    const short = registration({ caps: ["expiring"] });
    const long = registration({ caps: ["expiring"] });
    await r.register(short, { ttlMs: 400 });
    await r.register(long, { ttlMs: 30_000 });
    assert.equal(ids(await r.byCapability("expiring")), sorted([short.id, long.id]));
    await sleep(600);
    assert.is(await r.get(short.id), undefined);
    assert.equal(ids(await r.byCapability("expiring")), [long.id]);
    assert.equal(ids(await r.byName("weather-service")), [long.id]);
    assert.equal(ids(await r.byType("tool")), [long.id]);
    assert.equal(ids(await r.listAll()), [long.id]);
    for (const index of ["all", "name:weather-service", "type:tool", "capability:expiring"]) {
      assert.equal(await under!.indexMembers(index), [long.id], `${index} cleaned by the reads`);
    }
  });

  test("re-registering within the TTL keeps a registration alive past its first TTL", async ({ under }) => {
    const r = under!.registry;
    const c = registration();
    // Six beats 300 ms apart carry it past its 1.5 s TTL; the TTL is five beats long so that a loaded
    // machine's stall of a few hundred ms between two beats cannot expire it.
    for (let i = 0; i < 6; i += 1) {
      await r.register(c, { ttlMs: 1_500, heartbeatMs: 300 });
      await sleep(300);
    }
    assert.equal(ids(await r.byName("weather-service")), [c.id], "alive after 1.8 s of 1.5 s TTLs");
  });

  test("an overdue heartbeat reads as unknown until the registration expires", async ({ under }) => {
    const r = under!.registry;
    const c = registration();
    // A TTL far beyond the overdue point (1.5 × 150 ms), so the reads below find it overdue, not gone,
    // however slow the machine.
    await r.register(c, { ttlMs: 3_000, heartbeatMs: 150 });
    assert.is((await r.get(c.id))!.health, "healthy");
    await sleep(350); // past 1.5 × 150 ms
    const entry = await r.get(c.id);
    assert.equal([entry!.health, entry!.reported_health], ["unknown", "healthy"]);
    assert.equal(await r.byName("weather-service"), [], "unknown is not healthy");
    assert.equal(ids(await r.byName("weather-service", { health: ["unknown"] })), [c.id]);
    assert.is((await r.listAll())[0]!.health, "unknown");
    await r.register(c, { ttlMs: 3_000, heartbeatMs: 150 });
    assert.is((await r.get(c.id))!.health, "healthy", "a beat makes it healthy again");
    await eventually("the registration to expire", async () => (await r.get(c.id)) === undefined);
  });

  test("many concurrent registrations are all listed", async ({ under }) => {
    const r = under!.registry;
    const list = Array.from({ length: 60 }, (_, i) => registration({ name: `svc-${i % 6}`, caps: [`cap_${i % 4}`, "shared_cap"] }));
    await Promise.all(list.map((c) => r.register(c)));
    assert.is((await r.listAll()).length, 60);
    assert.is((await r.byCapability("shared_cap")).length, 60);
    assert.is((await r.byCapability(["cap_1", "shared_cap"])).length, 15);
    assert.is((await r.byName("svc-3")).length, 10);
  });

  test("invalid input is INVALID_INPUT, not stored", async ({ under }) => {
    const r = under!.registry;
    const bad: ComponentRegistration[] = [
      registration({ id: "has space" }),
      registration({ name: "br{ace}" }),
      registration({ type: "robot" as "tool" }),
      registration({ port: 0 }),
      registration({ health: "unknown" as "healthy" }),
      { ...registration(), capabilities: [capability("ok"), { ...capability("x"), name: "a:b" }] },
    ];
    for (const c of bad) {
      try {
        await r.register(c);
        assert.unreachable(`accepted ${JSON.stringify(c).slice(0, 80)}`);
      } catch (error) {
        assert.instance(error, ManifoldError);
        assert.is((error as ManifoldError).code, "INVALID_INPUT");
      }
    }
    for (const lookup of [() => r.byCapability([]), () => r.byName("a:b"), () => r.get("{x}")]) {
      try {
        await lookup();
        assert.unreachable("accepted");
      } catch (error) {
        assert.is((error as ManifoldError).code, "INVALID_INPUT");
      }
    }
    assert.equal(await r.listAll(), []);
  });

  test("entries returned are frozen: mutating one throws and changes nothing stored", async ({ under }) => {
    const r = under!.registry;
    const c = registration();
    await r.register(c);
    const entry = (await r.get(c.id))!;
    assert.throws(() => ((entry.metadata as Record<string, string>)["version"] = "mutated"), TypeError);
    assert.throws(() => ((entry.capabilities as CapabilityWire[]).length = 0), TypeError);
    assert.throws(() => ((entry.capabilities[0] as { description: string }).description = "changed"), TypeError);
    const again = (await r.get(c.id))!;
    assert.is(again.metadata["version"], "1.0.0");
    assert.is(again.capabilities.length, 1);
  });

  test("a lookup with nothing changed hands out the same objects (identity-keyed caches downstream stay warm)", async ({ under }) => {
    const r = under!.registry;
    const a = registration({ caps: ["one", "two"] });
    const b = registration({ name: "geo-service" });
    await r.register(a);
    await r.register(b);
    const first = await r.listAll();
    const second = await r.listAll();
    assert.equal(ids(second), ids(first));
    for (let i = 0; i < first.length; i += 1) assert.ok(second[i] === first[i], `${first[i]!.id}: the same entry object`);
    assert.ok((await r.get(a.id))!.capabilities === first.find((e) => e.id === a.id)!.capabilities, "get shares the parsed record");
    await r.register(a); // a heartbeat: the same record, a new beat
    const beat = (await r.listAll()).find((e) => e.id === a.id)!;
    assert.ok(beat.capabilities === first.find((e) => e.id === a.id)!.capabilities, "a heartbeat storing the same record keeps its parse");
  });

  test("a changed record comes back as a new object at the next lookup; the others stay the same", async ({ under }) => {
    const r = under!.registry;
    const a = registration({ caps: ["one"] });
    const b = registration({ name: "geo-service" });
    await r.register(a);
    await r.register(b);
    const before = await r.listAll();
    await r.register({ ...a, description: "Changed", capabilities: [...a.capabilities, { ...a.capabilities[0]!, name: "two" }] });
    const after = await r.listAll();
    const changed = after.find((e) => e.id === a.id)!;
    assert.is(changed.description, "Changed");
    assert.equal(
      changed.capabilities.map((c) => c.name),
      ["one", "two"],
    );
    assert.ok(changed.capabilities !== before.find((e) => e.id === a.id)!.capabilities, "a new parse");
    assert.ok(after.find((e) => e.id === b.id) === before.find((e) => e.id === b.id), "the unchanged record is the same object");
    assert.is((await r.byCapability("two")).length, 1);
    assert.ok(await r.unregister(b.id));
    assert.equal(ids(await r.listAll()), [a.id], "a removed record is gone at the next lookup");
  });

  test.run();
}
