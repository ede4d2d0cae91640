/** serveComponent and the registry: registered while running, unregistered on close, /health tells the truth. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createClient, serveComponent } from "../../runtime/component/index.js";
import type { HealthCheck } from "../../runtime/discovery/index.js";
import { createMemoryRegistry, defaultRegistry, discover } from "../../runtime/discovery/index.js";
import { capabilityWire } from "../../runtime/spec/index.js";
import { json, rawRequest } from "../runtime/support.js";
import { tool, toolSpec } from "../support/specs.js";

const spec = toolSpec(
  tool("echo-tool", {
    description: "echoes",
    version: "2.3.4",
    capabilities: { echo_text: { description: "echoes text", input: { text: "string" }, output: { text: "string", port: "integer" } } },
  }),
);
type Caps = { echoText: { input: { text: string }; output: { text: string; port: number } } };

function serve(options: { registry?: ReturnType<typeof createMemoryRegistry> | false; healthCheck?: HealthCheck; log?: (m: string) => void } = {}) {
  let port = 0;
  const running = serveComponent<Caps>(spec, {
    port: 0,
    handleSignals: false,
    log: options.log ?? (() => undefined),
    handlers: { echoText: ({ text }) => ({ text, port }) },
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(options.healthCheck === undefined ? {} : { healthCheck: options.healthCheck }),
  });
  return running.then((r) => {
    port = r.port;
    return r;
  });
}

test("registered once started, with its wire capabilities, version and address; unregistered on close", async () => {
  const registry = createMemoryRegistry();
  const running = await serve({ registry });
  const entry = await registry.get(running.id);
  assert.ok(entry);
  assert.equal(
    {
      id: entry!.id,
      name: entry!.name,
      type: entry!.type,
      description: entry!.description,
      address: entry!.address,
      port: entry!.port,
      metadata: entry!.metadata,
      health: entry!.health,
    },
    {
      id: running.id,
      name: "echo-tool",
      type: "tool",
      description: "echoes",
      address: "127.0.0.1",
      port: running.port,
      metadata: { version: "2.3.4" },
      health: "healthy",
    },
  );
  assert.equal(entry!.capabilities, spec.capabilities.map(capabilityWire));
  assert.equal([entry!.ttl_ms, entry!.heartbeat_ms], [30_000, 10_000]);
  await running.close();
  assert.is(await registry.get(running.id), undefined);
});

test("a typed client finds the component by name and round-robins over its replicas", async () => {
  const registry = createMemoryRegistry();
  const replicas = await Promise.all([serve({ registry }), serve({ registry })]);
  const client = createClient<Caps>(spec, { baseUrl: discover(registry, "echo-tool") });
  const ports = [];
  for (let i = 0; i < 4; i += 1) ports.push((await client.echoText({ text: "hi" })).port);
  assert.equal(ports.sort(), [replicas[0]!.port, replicas[0]!.port, replicas[1]!.port, replicas[1]!.port].sort());
  await Promise.all(replicas.map((r) => r.close()));
});

test("by default, components of one process share the default registry", async () => {
  const [a, b] = await Promise.all([serve(), serve()]);
  const found = await defaultRegistry().byName("echo-tool");
  assert.equal(found.map((e) => e.id).sort(), [a!.id, b!.id].sort());
  await Promise.all([a!.close(), b!.close()]);
  assert.equal(await defaultRegistry().byName("echo-tool"), []);
});

test("registry: false opts out", async () => {
  const running = await serve({ registry: false });
  assert.equal(await defaultRegistry().listAll(), []);
  await running.close();
});

test("the health hook: /health and the registry report degraded (200) and unhealthy (503)", async () => {
  const registry = createMemoryRegistry();
  let state: "healthy" | "degraded" | "unhealthy" = "degraded";
  const running = await serve({ registry, healthCheck: () => state });
  let response = await rawRequest(`${running.url}/health`);
  assert.is(response.status, 200);
  assert.equal(json(response), { status: "degraded", type: "tool", name: "echo-tool", id: running.id });
  assert.is((await registry.get(running.id))!.health, "degraded");
  assert.equal(await registry.byName("echo-tool"), [], "a degraded replica is not in the default (healthy) lookup");
  state = "unhealthy";
  response = await rawRequest(`${running.url}/health`);
  assert.is(response.status, 503);
  assert.is((json(response) as { status: string }).status, "unhealthy");
  state = "healthy";
  assert.is((await rawRequest(`${running.url}/health`)).status, 200);
  await running.close();
});

test("a health hook that throws or hangs reads as unhealthy, logged once while it keeps failing", async () => {
  const registry = createMemoryRegistry();
  const logs: string[] = [];
  let mode: "throw" | "ok" = "throw";
  const running = await serve({
    registry,
    log: (m) => logs.push(m),
    healthCheck: () => {
      if (mode === "throw") throw new Error("database down");
      return "healthy";
    },
  });
  assert.is((await rawRequest(`${running.url}/health`)).status, 503);
  assert.is((await rawRequest(`${running.url}/health`)).status, 503);
  assert.is((await registry.get(running.id))!.health, "unhealthy");
  assert.equal(
    logs.filter((l) => l.includes("health check")),
    ["echo-tool: health check threw: database down; reporting unhealthy"],
  );
  mode = "ok";
  assert.is((await rawRequest(`${running.url}/health`)).status, 200);
  await running.close();
});

test("an invalid registration TTL fails before the port is taken", async () => {
  try {
    await serveComponent<Caps>(spec, { port: 0, handleSignals: false, handlers: { echoText: ({ text }) => ({ text, port: 0 }) }, registration: { ttlMs: 0 } });
    assert.unreachable("accepted ttlMs 0");
  } catch (error) {
    assert.match((error as Error).message, /ttlMs must be at least 10/);
  }
});

test.run();
