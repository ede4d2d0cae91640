/**
 * `manifold mcp <name|url>` (issue 34): the CLI, run from source as a host launches it, bridging stdio
 * to a real served component's `/mcp` on loopback. The official SDK's `Client` over
 * `StdioClientTransport` lists and calls the example's weather tool through it, with the bearer token
 * from the variable `--token-env` names; without the token the host gets the component's refusal and
 * the bridge exits 1.
 * By name it finds the component in the registry of a real Redis (and says why not with the embedded
 * store). A session the component dropped is opened again on the next call. A component that goes away,
 * or a URL serving no MCP, ends the bridge with exit 1 and one line on stderr; stdin closing ends it
 * with 0; usage errors (no target, an unset token variable) exit 2 with a clear line.
 */
import { randomBytes } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SignJWT } from "jose";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { main } from "../../generator/cli.js";
import { runMcpBridge } from "../../generator/mcp-bridge.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createStore } from "../../runtime/store/index.js";
import { startRedisServer } from "../support/redis.js";
import { connect, disconnect, QUIET } from "./server-support.js";
import { INITIALIZE, INITIALIZED, launchBridge, spawnBridge, type HostSide, type RawBridge } from "./bridge-support.js";

for (const name of ["REDIS_URL", "MANIFOLD_MCP_TOKEN", "MANIFOLD_MCP_ENABLED", "MANIFOLD_AUTH_JWKS_URL", "MANIFOLD_AUTH_JWT_SECRET"]) delete process.env[name];

const SECRET = randomBytes(32).toString("hex");
const PARIS = { lat: 48.85, lon: 2.35 };

const token = (sub: string): Promise<string> =>
  new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuedAt().setExpirationTime("5m").sign(new TextEncoder().encode(SECRET));

/** What the CLI's main wrote, for the in-process runs of usage errors. */
function capture() {
  const seen = { out: "", err: "" };
  return { seen, io: { out: (t: string) => void (seen.out += t), err: (t: string) => void (seen.err += t), color: false } };
}

interface Context {
  /** weather-service with mcp: true, a bearer token required. */
  guarded: RunningComponent;
  /** weather-service with mcp: true, at most one MCP session (a second host evicts the first's). */
  single: RunningComponent;
  hosts: HostSide[];
  raws: RawBridge[];
}

const test = suite<Context>("manifold mcp: the stdio bridge", { hosts: [], raws: [] } as unknown as Context);

test.before(async (context) => {
  context.guarded = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers, mcp: true, auth: { jwt: { secret: SECRET } } });
  context.single = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers, mcp: { enabled: true, maxSessions: 1 } });
});

test.after(async ({ guarded, single, hosts, raws }) => {
  await Promise.all(hosts.map((host) => host.close()));
  for (const raw of raws) raw.kill();
  await Promise.all([guarded.close(), single.close()]);
});

const host = async (context: Context, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<HostSide> => {
  const side = await launchBridge(args, env);
  context.hosts.push(side);
  return side;
};

const raw = (context: Context, args: readonly string[], env: Readonly<Record<string, string>> = {}): RawBridge => {
  const bridge = spawnBridge(args, env);
  context.raws.push(bridge);
  return bridge;
};

test("a host lists and calls the weather tool through manifold mcp <url>, the token from --token-env never printed", async (context) => {
  const secret = await token("desktop-user");
  const side = await host(context, [context.guarded.url, "--token-env", "WEATHER_TOKEN"], { WEATHER_TOKEN: secret });
  const { tools } = await side.client.listTools();
  assert.equal(tools.map((t) => t.name).sort(), ["get_current_weather", "get_forecast"]);
  assert.equal(tools.find((t) => t.name === "get_current_weather")?.inputSchema.required, ["lat", "lon"]);

  const result = (await side.client.callTool({ name: "get_current_weather", arguments: PARIS })) as CallToolResult;
  assert.not.ok(result.isError);
  assert.equal(result.structuredContent, await weatherHandlers.getCurrentWeather(PARIS as never, {} as never));

  // A tool error passes through as it is: the same isError result an HTTP MCP client gets.
  const refused = (await side.client.callTool({ name: "get_current_weather", arguments: { lat: "north" } })) as CallToolResult;
  assert.ok(refused.isError);
  assert.match(JSON.stringify(refused.content), /INVALID_INPUT.*\/lat/);

  assert.match(side.stderr(), /bridging stdio to http:\/\/127\.0\.0\.1:\d+\/mcp with a bearer token/);
  assert.not.ok(side.stderr().includes(secret), "the token is never printed");
});

test("without the token the host is told the component refused it (401) and which variable to set, and the bridge exits 1", async (context) => {
  const bridge = raw(context, [context.guarded.url]);
  bridge.send(INITIALIZE);
  const answer = await bridge.answer(1);
  const message = String((answer["error"] as { message: string }).message);
  assert.match(message, /refused the message with HTTP 401 \(set MANIFOLD_MCP_TOKEN, or name the variable holding the token with --token-env\)/);
  assert.is(await bridge.exit(), 1);
  assert.match(bridge.stderr().trim().split("\n").at(-1)!, /^manifold mcp: the component refused the message with HTTP 401/);
});

test("by name, the bridge finds the component in the registry of the network's Redis", async () => {
  const redis = await startRedisServer();
  const env = { REDIS_URL: redis.url };
  const store = createStore({ env, log: () => undefined });
  const registry = createRegistry({ store, env });
  const served = await WeatherService.serve({ ...QUIET, registry, handlers: weatherHandlers, mcp: true });
  let side: HostSide | undefined;
  try {
    side = await launchBridge(["weather-service"], env);
    const result = (await side.client.callTool({ name: "get_forecast", arguments: { ...PARIS, days: 2 } })) as CallToolResult;
    assert.equal((result.structuredContent as { days: unknown[] }).days.length, 2);
    assert.match(side.stderr(), new RegExp(`bridging stdio to ${served.url}/mcp`));

    const { seen, io } = capture();
    assert.is(await runMcpBridge({ target: "no-such-service", io, env }), 2);
    assert.match(seen.err, /^manifold mcp: no running component named no-such-service is registered in the network's store/);
  } finally {
    await side?.close();
    await served.close();
    await store.close();
    await redis.close();
  }
});

test("usage errors exit 2 with one clear line: no target, a name with the embedded store, an unset --token-env", async () => {
  const cases: [string[], RegExp][] = [
    [["mcp"], /^manifold mcp: mcp needs a target: a component name or its URL/],
    [["mcp", "weather-service"], /needs the network's Redis \(REDIS_URL or MANIFOLD_REDIS_\*\).*Give its URL instead/],
    [["mcp", "http://127.0.0.1:9", "--token-env", "NOT_SET_ANYWHERE"], /^manifold mcp: --token-env NOT_SET_ANYWHERE: the variable is not set/],
    [["mcp", "ftp://127.0.0.1:9"], /the URL must be http or https/],
    [["gen", "--token-env", "X"], /--token-env goes with mcp/],
    [["mcp", "a", "b"], /unexpected argument "b"/],
  ];
  for (const [argv, line] of cases) {
    const { seen, io } = capture();
    assert.is(await main(argv, io), 2, argv.join(" "));
    assert.match(seen.err, line, argv.join(" "));
    assert.is(seen.err.trim().split("\n")[0]!.startsWith("manifold"), true);
    assert.is(seen.out, "", "stdout stays empty: it belongs to the JSON-RPC stream");
  }
});

test("a session the component dropped is opened again on the next call", async (context) => {
  const side = await host(context, [context.single.url]);
  const first = (await side.client.callTool({ name: "get_current_weather", arguments: PARIS })) as CallToolResult;
  assert.not.ok(first.isError);
  // Another client takes the component's one session: the bridge's is closed.
  const other = await connect(context.single.url);
  await disconnect(other);
  const again = (await side.client.callTool({ name: "get_current_weather", arguments: PARIS })) as CallToolResult;
  assert.equal(again.structuredContent, first.structuredContent);
  assert.match(side.stderr(), /the component had forgotten the session: opened a new one/);
});

test("stdin closing ends the bridge with exit 0", async (context) => {
  const bridge = raw(context, [`${context.single.url}/mcp`]);
  bridge.send(INITIALIZE);
  const answer = await bridge.answer(1);
  assert.equal((answer["result"] as { serverInfo: unknown }).serverInfo, { name: "weather-service", version: "1.0.0" });
  bridge.send(INITIALIZED);
  bridge.endInput();
  assert.is(await bridge.exit(), 0);
  assert.not.match(bridge.stderr(), /went away|error/i);
});

test("a component that goes away ends the bridge with exit 1 and one line on stderr", async (context) => {
  const served = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers, mcp: true });
  const bridge = raw(context, [served.url]);
  bridge.send(INITIALIZE);
  await bridge.answer(1);
  bridge.send(INITIALIZED);
  await served.close();
  // The bridge notices on this request, or already on its server-to-client stream.
  bridge.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  assert.is(await bridge.exit(), 1);
  const last = bridge.stderr().trim().split("\n").at(-1)!;
  assert.match(last, new RegExp(`^manifold mcp: ${served.url}/mcp went away: `));
  // A waiting request is answered before the bridge exits, never left hanging.
  const answered = bridge.stdout().includes('"id":2');
  if (answered) assert.match(bridge.stdout(), /"id":2,"error":\{"code":-32603,"message":"[^"]*went away/);
});

test("a URL serving no MCP ends the bridge with exit 1, after answering initialize with the reason", async (context) => {
  const plain = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers, mcp: false });
  try {
    const bridge = raw(context, [plain.url]);
    bridge.send(INITIALIZE);
    const answer = await bridge.answer(1);
    assert.match(String((answer["error"] as { message: string }).message), /serves no MCP endpoint \(404\): is the component started with mcp: true/);
    assert.is(await bridge.exit(), 1);
  } finally {
    await plain.close();
  }
});

test.run();
