/**
 * A component's capabilities as MCP tools (issue 34), driven by the official SDK's `Client` over
 * `StreamableHTTPClientTransport` against real served components on loopback: the example's generated
 * weather-service with its handlers, and a small tool whose handlers refuse, crash, report their
 * request scope and wait for their signal. What an MCP host gets must be what an HTTP caller gets:
 * the same schemas, the same validation with the same pointers, the same envelopes.
 */
import { readFileSync } from "node:fs";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import { serveComponent, type ComponentExtension, type HandlerContext, type RunningComponent } from "../../runtime/component/index.js";
import { callerIdentity } from "../../runtime/context/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { eventually, within } from "../support/wait.js";
import { connect, disconnect, QUIET, type Connected } from "./server-support.js";

const desk = toolSpec(
  tool("mcp-desk", {
    more: { mcp: true },
    capabilities: {
      refuse: { description: "refuses on Sundays", input: { day: "string" }, output: { ok: "boolean" } },
      crash: { description: "fails unexpectedly" },
      whoami: { description: "reports its request scope", output: { request_id: "string", subject: "string" } },
      wait: { description: "waits for its signal", output: { reason: "string" } },
      listing: { description: "answers a list, which has no structured form" },
      hidden: { description: "for other components only", internal: true },
    },
  }),
);

const seen: { logs: string[]; signal?: AbortSignal } = { logs: [] };
const deskHandlers = {
  refuse: (): never => {
    throw new ManifoldError("HANDLER_ERROR", "no trips on Sundays", { details: [{ pointer: "/day", message: "is Sunday" }] });
  },
  crash: (): never => {
    throw new TypeError("secret internals");
  },
  whoami: (_input: unknown, ctx: HandlerContext) => ({ request_id: ctx.requestId, subject: callerIdentity().subject }),
  wait: (_input: unknown, ctx: HandlerContext) =>
    new Promise<{ reason: string }>((resolve) => {
      seen.signal = ctx.signal;
      ctx.signal.addEventListener("abort", () => resolve({ reason: "aborted" }), { once: true });
    }),
  listing: () => [1, 2, 3],
  hidden: () => ({}),
};

/** An extension's tools: listed and called beside the capabilities, validated against their own schema. */
const shouting: ComponentExtension = {
  name: "shouting",
  mcpTools: [
    {
      name: "shout",
      description: "Says it louder",
      inputSchema: { type: "object", properties: { text: { type: "string", maxLength: 10 } }, required: ["text"], additionalProperties: false },
      outputSchema: { type: "object", properties: { loud: { type: "string" } }, required: ["loud"] },
      call: async ({ text }) => ({ structured: { loud: String(text).toUpperCase() } }),
    },
    {
      name: "whisper",
      description: "Refuses to",
      inputSchema: { type: "object" },
      call: async () => {
        throw new ManifoldError("FORBIDDEN", "no whispering here");
      },
    },
  ],
};

interface Context {
  weather: RunningComponent;
  desk: RunningComponent;
  weatherClient: Connected;
  deskClient: Connected;
}

const test = suite<Context>("a component's capabilities as MCP tools", {} as Context);

test.before(async (context) => {
  context.weather = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers });
  const log = Object.assign((message: string) => void seen.logs.push(message), { error: (message: string) => void seen.logs.push(message) });
  context.desk = await serveComponent(desk, {
    ...QUIET,
    log,
    handlers: deskHandlers,
    extensions: [shouting],
    auth: { required: true, verify: (token) => (token === "desk-token" ? "alice" : false) },
  });
  context.weatherClient = await connect(context.weather.url);
  context.deskClient = await connect(context.desk.url, { Authorization: "Bearer desk-token", "X-Manifold-Request-ID": "mcp-request-1" });
});

test.after(async ({ weather, desk, weatherClient, deskClient }) => {
  await Promise.all([weatherClient, deskClient].filter(Boolean).map(disconnect));
  await Promise.all([weather?.close(), desk?.close()]);
});

async function httpCall(url: string, capability: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const answer = await fetch(`${url}/api/capabilities/${capability}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: answer.status, json: await answer.json() };
}

const textOf = (result: CallToolResult): unknown => JSON.parse((result.content[0] as { text: string }).text);

test("the weather tool's capabilities are listed with their names, descriptions and the HTTP routes' schemas", async ({ weather, weatherClient }) => {
  assert.equal(weatherClient.client.getServerVersion(), { name: "weather-service", version: "1.0.0" });
  const { tools } = await weatherClient.client.listTools();
  assert.equal(
    tools.map((t) => t.name),
    ["get_current_weather", "get_forecast"],
  );
  for (const listed of tools) {
    const capability = WeatherService.spec.capabilities.find((c) => c.name === listed.name)!;
    assert.is(listed.description, capability.description);
    const httpSchema = await (await fetch(`${weather.url}/api/capabilities/${listed.name}/schema`)).json();
    assert.equal(listed.inputSchema, httpSchema, `${listed.name}: inputSchema is /api/capabilities/${listed.name}/schema`);
    const emitted = JSON.parse(readFileSync(`generated/weather-service/schemas/${listed.name}Output.json`, "utf8"));
    assert.equal(listed.outputSchema, emitted, `${listed.name}: outputSchema is the emitted output schema`);
  }
});

test("a call answers what the HTTP route answers, and its structuredContent validates against the listed outputSchema", async ({ weather, weatherClient }) => {
  const { tools } = await weatherClient.client.listTools();
  const ajv = new Ajv({ allErrors: true });
  for (const [name, args] of [
    ["get_current_weather", { lat: 48.85, lon: 2.35, units: "imperial" }],
    ["get_forecast", { lat: -33.9, lon: 151.2, days: 2 }],
  ] as const) {
    const result = (await weatherClient.client.callTool({ name, arguments: args })) as CallToolResult;
    const http = await httpCall(weather.url, name, args);
    assert.is(http.status, 200);
    assert.is(result.isError, undefined);
    assert.equal(result.structuredContent, http.json);
    assert.equal(textOf(result), http.json, "the text is the same JSON");
    const validate = ajv.compile(tools.find((t) => t.name === name)!.outputSchema!);
    assert.ok(validate(result.structuredContent), `${name}: ${ajv.errorsText(validate.errors)}`);
  }
});

test("an invalid argument is refused by the same schema as the HTTP route: INVALID_INPUT, the same envelope and pointers", async ({
  weather,
  weatherClient,
}) => {
  const args = { lat: "north", lon: 2.35, altitude: 30 };
  const result = (await weatherClient.client.callTool({ name: "get_current_weather", arguments: args })) as CallToolResult;
  const http = await httpCall(weather.url, "get_current_weather", args);
  assert.is(http.status, 400);
  assert.is(result.isError, true);
  assert.equal(textOf(result), http.json);
  const { error } = http.json as { error: { code: string; details: { pointer: string }[] } };
  assert.is(error.code, "INVALID_INPUT");
  assert.equal(error.details.map((d) => d.pointer).sort(), ["/altitude", "/lat"]);
});

test("a handler's ManifoldError is a tool error with its code, never a protocol error; an unexpected one is INTERNAL, logged", async ({ deskClient }) => {
  const refused = (await deskClient.client.callTool({ name: "refuse", arguments: { day: "sunday" } })) as CallToolResult;
  assert.is(refused.isError, true);
  assert.equal(textOf(refused), {
    success: false,
    error: {
      code: "HANDLER_ERROR",
      message: "no trips on Sundays",
      category: "input_error",
      retryable: false,
      details: [{ pointer: "/day", message: "is Sunday" }],
    },
  });
  seen.logs.length = 0;
  const crashed = (await deskClient.client.callTool({ name: "crash", arguments: {} })) as CallToolResult;
  assert.is(crashed.isError, true);
  const { error } = textOf(crashed) as { error: { code: string; message: string } };
  assert.equal([error.code, error.message], ["INTERNAL", "internal error"]);
  assert.not.match(JSON.stringify(crashed), "secret internals");
  assert.is(seen.logs.filter((line) => line.includes("secret internals")).length, 1, seen.logs.join("\n"));
});

test("internal capabilities are not tools; an unknown tool is a protocol error (-32602)", async ({ deskClient }) => {
  const { tools } = await deskClient.client.listTools();
  assert.equal(
    tools.map((t) => t.name),
    ["refuse", "crash", "whoami", "wait", "listing", "shout", "whisper"],
  );
  const thrown = await deskClient.client.callTool({ name: "hidden", arguments: {} }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.instance(thrown, McpError);
  assert.is((thrown as McpError).code, -32602);
});

test("an output that is not an object is answered as text only", async ({ deskClient }) => {
  const result = (await deskClient.client.callTool({ name: "listing", arguments: {} })) as CallToolResult;
  assert.is(result.structuredContent, undefined);
  assert.equal(textOf(result), [1, 2, 3]);
});

test("the handler runs in the MCP request's scope: its request id, the caller's identity, a signal the client's cancel aborts", async ({ deskClient }) => {
  const who = (await deskClient.client.callTool({ name: "whoami", arguments: {} })) as CallToolResult;
  assert.equal(who.structuredContent, { request_id: "mcp-request-1", subject: "alice" });
  const controller = new AbortController();
  const call = deskClient.client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
  const signal = await eventually("the wait handler to start", () => seen.signal);
  controller.abort();
  await within(
    "the cancelled call to settle",
    call.catch(() => undefined),
  );
  await eventually("the handler's signal to abort", () => signal.aborted);
});

test("an extension's tools are listed and called the same way: arguments validated against their schema, errors as tool errors", async ({ deskClient }) => {
  const { tools } = await deskClient.client.listTools();
  assert.equal(tools.find((t) => t.name === "shout")?.inputSchema, shouting.mcpTools![0]!.inputSchema);
  const loud = (await deskClient.client.callTool({ name: "shout", arguments: { text: "hello" } })) as CallToolResult;
  assert.equal(loud.structuredContent, { loud: "HELLO" });
  assert.equal(textOf(loud), { loud: "HELLO" }, "the text defaults to the JSON of the structured answer");
  const long = (await deskClient.client.callTool({ name: "shout", arguments: { text: "far too long a text" } })) as CallToolResult;
  assert.is(long.isError, true);
  const invalid = textOf(long) as { error: { code: string; details: { pointer: string }[] } };
  assert.equal([invalid.error.code, invalid.error.details[0]?.pointer], ["INVALID_INPUT", "/text"]);
  const whisper = (await deskClient.client.callTool({ name: "whisper", arguments: {} })) as CallToolResult;
  assert.equal([whisper.isError, (textOf(whisper) as { error: { code: string } }).error.code], [true, "FORBIDDEN"]);
});

test("two tools of one name are refused when the component starts", async () => {
  const clash: ComponentExtension = { name: "clash", mcpTools: [{ ...shouting.mcpTools![0]!, name: "refuse" }] };
  const thrown = await serveComponent(desk, { ...QUIET, handlers: deskHandlers, extensions: [clash] }).then(
    async (running) => void (await running.close()),
    (error: unknown) => error,
  );
  assert.instance(thrown, TypeError);
  assert.match(String(thrown), "two MCP tools are named refuse");
});

test.run();
