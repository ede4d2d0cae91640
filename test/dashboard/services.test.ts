/**
 * The dashboard's registry endpoints over HTTP on a real Redis: `/api/services` (the spec's
 * registration records, output summaries hidden), `/swagger-urls.json` (services with OpenAPI, asked
 * of real components), the documents it proxies, 1,000 components answered in under 100 ms, and the
 * web app's files.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { serveDashboard, type RunningDashboard } from "../../runtime/dashboard/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { tool, toolSpec } from "../support/specs.js";
import { eventually, sleep, within } from "../support/wait.js";
import { capability, get, registration } from "./support.js";

let redis: RedisServer;
let store: Store;
let registry: Registry;
let dashboard: RunningDashboard;
const quiet = (): void => undefined;

test.before(async () => {
  redis = await startRedisServer();
  const env = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "services" };
  store = createStore({ env });
  registry = createRegistry({ store, cache: false });
  // The dashboard's own registry reads through the catalog cache, as in production; tests poll past it.
  dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env });
});

test.after(async () => {
  await dashboard?.close();
  await registry?.close();
  await store?.close();
  await redis?.close();
});

test("/api/services answers the spec's registration records, output summaries left out, filtered by type", async () => {
  const tool = registration({ name: "weather-service", capabilities: [capability("get_weather"), capability("debug_dump", { internal: true })] });
  const agent = registration({ name: "travel-agent", type: "agent", metadata: { version: "2.0.0", region: "eu" } });
  const sick = registration({ name: "sick-service", health: "unhealthy" });
  await Promise.all([tool, agent, sick].map((c) => registry.register(c)));
  let services: any[] = [];
  await eventually("three services", async () => {
    services = (await get(`${dashboard.url}/api/services`)).body;
    return services.length === 3;
  });
  const weather = services.find((s) => s.name === "weather-service");
  assert.equal(Object.keys(weather).sort(), [
    "address",
    "capabilities",
    "description",
    "health",
    "id",
    "last_seen",
    "metadata",
    "name",
    "port",
    "type",
    "verification",
  ]);
  assert.is(weather.id, tool.id);
  assert.is(weather.verification, "unsigned", "no registry key: nothing is signed, and the record says so");
  assert.is(weather.health, "healthy");
  assert.ok(!Number.isNaN(Date.parse(weather.last_seen)), "last seen is a timestamp");
  assert.equal(weather.capabilities[0], {
    name: "get_weather",
    description: "get_weather of a component",
    endpoint: "/api/capabilities/get_weather",
    type: "tool",
    internal: false,
    input_summary: { required_fields: [{ name: "query", type: "string", example: "Paris" }], optional_fields: [] },
  });
  assert.is(weather.capabilities[1].internal, true);
  assert.not.match(JSON.stringify(services), /output_summary|secret_shape/, "no output schema reaches the dashboard");
  assert.is(services.find((s) => s.name === "sick-service").health, "unhealthy", "unhealthy services are shown, not hidden");
  assert.equal(services.find((s) => s.name === "travel-agent").metadata, { version: "2.0.0", region: "eu" });

  const agents = (await get(`${dashboard.url}/api/services?type=agent`)).body;
  assert.equal(
    agents.map((s: { name: string }) => s.name),
    ["travel-agent"],
  );
  const tools = (await get(`${dashboard.url}/api/services?type=tool`)).body;
  assert.equal(tools.map((s: { name: string }) => s.name).sort(), ["sick-service", "weather-service"]);
  const bad = await get(`${dashboard.url}/api/services?type=robot`);
  assert.is(bad.status, 400);
  assert.is(bad.body.error.code, "INVALID_INPUT");
  assert.is(bad.headers.get("access-control-allow-origin"), null, "same-origin by default, like each component's /api/capabilities");
  await Promise.all([tool, agent, sick].map((c) => registry.unregister(c.id)));
});

test("an MCP server an agent registered is type mcp in /api/services, and ?type=mcp lists only those", async () => {
  const notes = registration({ name: "notes", type: "mcp", metadata: { used_by: "notes-agent" }, capabilities: [capability("search_notes")] });
  const weather = registration({ name: "weather-service" });
  await Promise.all([notes, weather].map((c) => registry.register(c)));
  let servers: any[] = [];
  await eventually("the MCP server listed", async () => {
    servers = (await get(`${dashboard.url}/api/services?type=mcp`)).body;
    return servers.length === 1;
  });
  assert.equal(
    servers.map((s) => [s.name, s.type]),
    [["notes", "mcp"]],
  );
  const tools = (await get(`${dashboard.url}/api/services?type=tool`)).body;
  assert.ok(!tools.some((s: { name: string }) => s.name === "notes"), "an MCP server is not listed as a tool");
  await Promise.all([notes, weather].map((c) => registry.unregister(c.id)));
});

test("/swagger-urls.json lists the running services that serve OpenAPI, asked of the services themselves", async () => {
  // A manifest needs a capability (MF1207): each gets a `ping` nothing calls.
  const serve = (name: string, enableOpenApi: boolean) =>
    serveComponent<{ ping: { input: object; output: object } }>(
      toolSpec(tool(name, { description: `${name} for the API browser`, capabilities: { ping: {} } })),
      { handlers: { ping: () => ({}) }, port: 0, enableOpenApi, registry, handleSignals: false, log: quiet },
    );
  const withDocs = await serve("documented-service", true);
  const replica = await serve("documented-service", true);
  const without = await serve("private-service", false);
  const declared = registration({ name: "declared-service", metadata: { version: "1.0.0", openapi: "true" } });
  await registry.register(declared);
  try {
    let urls: any[] = [];
    await eventually("two services with OpenAPI", async () => {
      urls = (await get(`${dashboard.url}/swagger-urls.json`)).body;
      return urls.length === 2;
    });
    assert.equal(urls, [
      { name: "declared-service", url: "/api/openapi/declared-service" },
      { name: "documented-service", url: "/api/openapi/documented-service" },
    ]);

    const document = await get(`${dashboard.url}/api/openapi/documented-service`);
    assert.is(document.status, 200);
    assert.is(document.body.openapi, "3.0.0");
    assert.is(document.body.info.title, "documented-service");
    assert.match(document.body.servers[0].url, /^http:\/\/127\.0\.0\.1:\d+$/, "Try it out calls the service itself");
    const missing = await get(`${dashboard.url}/api/openapi/private-service`);
    assert.is(missing.status, 404);
    assert.is(missing.body.error.code, "NOT_FOUND");
    // Registered as serving OpenAPI but nothing answers on its address: a gateway error, not a crash.
    const unreachable = await get(`${dashboard.url}/api/openapi/declared-service`);
    assert.is(unreachable.status, 502);
    assert.is(unreachable.body.error.code, "NETWORK_ERROR");
    assert.not.match(JSON.stringify(unreachable.body), /at .*\.ts:\d+|ECONNREFUSED/, "no stack trace or socket error text");
  } finally {
    await Promise.all([withDocs.close(), replica.close(), without.close(), registry.unregister(declared.id)]);
  }
});

test("a registry of 1,000 components: /api/services and /swagger-urls.json answer from the snapshot loaded at start, never waiting for a registry read", async () => {
  const env = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "thousand" };
  const bigStore = createStore({ env });
  const big = createRegistry({ store: bigStore, cache: false });
  const components = Array.from({ length: 1000 }, (_, i) =>
    registration({
      id: `svc-${i % 100}-${String(i).padStart(8, "0")}`,
      name: `svc-${i % 100}`,
      type: i % 10 === 0 ? "agent" : "tool",
      port: 10_000 + i,
      metadata: { version: "1.0.0", openapi: i % 3 === 0 ? "true" : "false" },
      capabilities: [capability(`cap_${i % 150}`), capability(`cap_${(i + 7) % 150}`), capability(`cap_${(i + 31) % 150}`)],
    }),
  );
  for (let i = 0; i < components.length; i += 100) await Promise.all(components.slice(i, i + 100).map((c) => big.register(c)));
  // Every read of the whole registry is counted; once the dashboard has started, each is held until
  // released, so an answer that waited for one would never come.
  let reads = 0;
  let release: () => void = () => undefined;
  let held: Promise<void> | undefined;
  const counted: Registry = {
    ...big,
    listAll: async (options) => {
      reads += 1;
      if (held !== undefined) await held;
      return big.listAll(options);
    },
  };
  // Started after the registrations and asked at once: the first snapshot is read while the dashboard starts.
  const viewer = await serveDashboard({ port: 0, handleSignals: false, log: quiet, env, registry: counted });
  try {
    assert.is(reads, 1, "the first snapshot was read while the dashboard started");
    held = new Promise((resolve) => (release = resolve));
    const services = await within("the first /api/services", get(`${viewer.url}/api/services`));
    assert.is(services.body.length, 1000);
    assert.not.match(JSON.stringify(services.body), /output_summary/);
    const urls = await within("the first /swagger-urls.json", get(`${viewer.url}/swagger-urls.json`));
    assert.is(urls.body.length, 100, "one entry per service name, not per replica");
    // Then a user's polling, past the snapshot's 1 s freshness: the reload it starts is held, and
    // every answer still comes, from the snapshot in hand.
    for (let i = 0; i < 25; i += 1) {
      assert.is((await within("a polled /api/services", get(`${viewer.url}/api/services`))).body.length, 1000);
      assert.is((await within("a polled /swagger-urls.json", get(`${viewer.url}/swagger-urls.json`))).body.length, 100);
      await sleep(50);
    }
    assert.is(reads, 2, "one reload behind the requests, however many found the snapshot old");
    release();
  } finally {
    await viewer.close();
    await big.close();
    await bigStore.close();
  }
});

test("the web app, its API browser and Swagger UI's files are served from the dashboard itself, framing refused", async () => {
  const page = await get(`${dashboard.url}/`);
  assert.is(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'self'.*frame-ancestors 'none'/);
  assert.is(page.headers.get("x-frame-options"), "DENY");
  const browser = await get(`${dashboard.url}/api-browser`);
  assert.is(browser.status, 200);
  assert.match(browser.body, /swagger-ui-bundle\.js/);
  assert.not.match(browser.body, /https?:\/\/(?!127)/, "no script or style from a CDN");
  const bundle = await get(`${dashboard.url}/swagger-ui/swagger-ui-bundle.js`);
  assert.is(bundle.status, 200);
  assert.match(bundle.headers.get("content-type") ?? "", /^text\/javascript/);
  for (const path of ["/swagger-ui/package.json", "/swagger-ui/..%2F..%2Fpackage.json", "/app/..%2Fserve-dashboard.ts", "/app/index.html", "/app/nothing.js"]) {
    const refused = await get(`${dashboard.url}${path}`);
    assert.is(refused.status, 404, path);
    assert.is(refused.body.error.code, "NOT_FOUND", path);
  }
});

test.run();
