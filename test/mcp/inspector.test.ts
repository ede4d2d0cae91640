/**
 * The MCP Inspector's CLI mode (`@modelcontextprotocol/inspector --cli`, issue 34's conformance check)
 * against the example's weather-service served with `mcp: true` and a bearer token required: over
 * Streamable HTTP (`<url>/mcp`, the token as an Authorization header) and as a stdio host launching
 * `manifold mcp <url>` (the token in MANIFOLD_MCP_TOKEN, passed with `-e`), it lists the tools with their schemas and
 * calls one, its `key=value` arguments typed by the tool's input schema. Each run is bounded; the
 * Inspector's own files (catalog, storage) go to a temporary home, not the user's.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SignJWT } from "jose";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { within } from "../support/wait.js";
import { bridgeArgs, ROOT } from "./bridge-support.js";
import { QUIET } from "./server-support.js";

const SECRET = randomBytes(32).toString("hex");
const PARIS = { lat: 48.85, lon: 2.35 };

/** The Inspector's launcher, as `npx @modelcontextprotocol/inspector` runs it. */
const INSPECTOR = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")), "clients/launcher/build/index.js");

interface Context {
  weather: RunningComponent;
  home: string;
  token: string;
}

const test = suite<Context>("the MCP Inspector's CLI against a served component", {} as Context);

test.before(async (context) => {
  context.weather = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers, mcp: true, auth: { jwt: { secret: SECRET } } });
  context.home = await mkdtemp(join(tmpdir(), "manifold-inspector-"));
  context.token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("inspector")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(SECRET));
});

test.after(async ({ weather, home }) => {
  await weather.close();
  await rm(home, { recursive: true, force: true });
});

/** `inspector --cli …args`: its exit code and output; killed if it has not exited within the wait limit. */
async function inspector({ home }: Context, args: readonly string[]) {
  const { PATH = "" } = process.env;
  const child = spawn(process.execPath, [INSPECTOR, "--cli", ...args], {
    cwd: ROOT,
    env: { PATH, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json"), NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    const code = await within(`inspector --cli ${args.join(" ")}`, exited);
    return { code, stdout, stderr };
  } finally {
    child.kill("SIGKILL");
  }
}

function parsed(run: { code: number | null; stdout: string; stderr: string }): Record<string, unknown> {
  assert.is(run.code, 0, `the Inspector failed: ${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

interface ListedTool {
  name: string;
  inputSchema: { required?: string[] };
  outputSchema?: unknown;
}

test("over Streamable HTTP it lists the tools with their schemas and calls get_current_weather", async (context) => {
  const target = `${context.weather.url}/mcp`;
  const auth = `Authorization: Bearer ${context.token}`;
  const listed = parsed(await inspector(context, [target, "--header", auth, "--method", "tools/list"]));
  const tools = listed["tools"] as ListedTool[];
  assert.equal(tools.map((t) => t.name).sort(), ["get_current_weather", "get_forecast"]);
  const current = tools.find((t) => t.name === "get_current_weather")!;
  assert.equal(current.inputSchema.required, ["lat", "lon"]);
  assert.ok(current.outputSchema, "the output schema is listed");

  const args = ["--method", "tools/call", "--tool-name", "get_current_weather", "--tool-arg", "lat=48.85", "--tool-arg", "lon=2.35"];
  const called = parsed(await inspector(context, [target, "--header", auth, ...args]));
  assert.is(called["isError"], undefined);
  assert.equal(called["structuredContent"], await weatherHandlers.getCurrentWeather(PARIS as never, {} as never));

  const refused = await inspector(context, [target, "--method", "tools/list"]);
  assert.is.not(refused.code, 0, "without the token the component refuses the Inspector");
});

test("as a stdio host launching manifold mcp <url>, it lists and calls the same tools", async (context) => {
  const bridge = ["--", process.execPath, ...bridgeArgs([context.weather.url])];
  // The Inspector gives the server it launches only the variables -e names (beside PATH, HOME, …).
  const env = ["-e", `MANIFOLD_MCP_TOKEN=${context.token}`];
  const listed = parsed(await inspector(context, [...env, "--method", "tools/list", ...bridge]));
  assert.equal((listed["tools"] as ListedTool[]).map((t) => t.name).sort(), ["get_current_weather", "get_forecast"]);

  const args = ["--method", "tools/call", "--tool-name", "get_forecast", "--tool-arg", "lat=48.85", "--tool-arg", "lon=2.35", "--tool-arg", "days=2"];
  const called = parsed(await inspector(context, [...env, ...args, ...bridge]));
  assert.equal(called["structuredContent"], await weatherHandlers.getForecast({ ...PARIS, days: 2 } as never, {} as never));
});

test.run();
