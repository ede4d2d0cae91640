/**
 * The example's travel agent (generated, `mcp: true` in its manifest) over MCP with the SDK's `Client`
 * over `StreamableHTTPClientTransport`: its tools listed (its capability, its workflows, `ask`, the
 * task pair), the travel-research workflow called with its typed inputs against the example's tools
 * on loopback, a bad argument refused, and `ask` answered through natural mode by a scripted model.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { CountryInfoService } from "../../generated/country-info-service/index.js";
import { CurrencyService } from "../../generated/currency-service/index.js";
import { GeocodingService } from "../../generated/geocoding-service/index.js";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { countryInfoHandlers } from "../../manifests/travel/handlers/country-info.js";
import { currencyHandlers } from "../../manifests/travel/handlers/currency.js";
import { geocodingHandlers } from "../../manifests/travel/handlers/geocoding.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createMemoryTaskBackend } from "../../runtime/tasks/index.js";
import { planStep, planText } from "../orchestration/support.js";
import { silentLogger } from "../tasks/support.js";
import { scriptByKind, startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";

interface Context {
  llm: ScriptedLlm;
  tools: RunningComponent[];
  agent: RunningComponent;
  client: Client;
}

const test = suite<Context>("the travel agent over MCP", {} as Context);
const QUIET = { port: 0, registry: false, handleSignals: false, log: () => undefined } as const;

test.before(async (context) => {
  // Answered by kind, not in order: memory's background calls (episode summaries) may come at any time.
  context.llm = await startScriptedLlm(
    scriptByKind(() => ({
      routing_plan: () => ({ text: planText([planStep("weather", "weather-service", "get_current_weather", { lat: 35.01, lon: 135.77 })]) }),
      text: () => ({ text: "Kyoto is mild today." }),
    })),
  );
  context.tools = await Promise.all([
    GeocodingService.serve({ ...QUIET, handlers: geocodingHandlers }),
    WeatherService.serve({ ...QUIET, handlers: weatherHandlers }),
    CurrencyService.serve({ ...QUIET, handlers: currencyHandlers }),
    CountryInfoService.serve({ ...QUIET, handlers: countryInfoHandlers }),
  ]);
  context.agent = await TravelAgent.serve({
    ...QUIET,
    handlers: {
      tripBrief: () => {
        throw new Error("not called");
      },
    },
    tasks: { packingList: (input) => ({ destination: input.destination, items: [] }) },
    taskOptions: { backend: createMemoryTaskBackend(), log: silentLogger() },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
    llm: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 },
    orchestration: { baseUrls: Object.fromEntries(context.tools.map((t) => [t.spec.name, t.url])), executionStore: false },
  });
  context.client = new Client({ name: "travel-mcp-test", version: "1.0.0" });
  await context.client.connect(new StreamableHTTPClientTransport(new URL(`${context.agent.url}/mcp`)));
});

test.after(async ({ client, agent, tools, llm }) => {
  await client.close();
  await agent.close();
  await Promise.all(tools.map((t) => t.close()));
  await llm.close();
});

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

test("lists its capability, its workflows, ask and the task pair", async ({ client }) => {
  const names = (await client.listTools()).tools.map((t) => t.name).sort();
  assert.equal(names, ["ask", "city-compare", "start_task", "task_status", "travel-research", "trip_brief"]);
  const research = (await client.listTools()).tools.find((t) => t.name === "travel-research")!;
  assert.is(research.description, "Weather, exchange rates and country facts for a destination");
  assert.equal(research.inputSchema.required, ["destination"]);
});

test("travel-research runs against the example's tools and answers its typed outputs; a bad argument is refused", async ({ client }) => {
  const result = await call(client, "travel-research", { destination: "Kyoto", home_currency: "EUR" });
  assert.is(result.isError, undefined, textOf(result));
  const { outputs, workflow } = result.structuredContent as any;
  assert.is(workflow, "travel-research");
  assert.match(outputs.place, /Kyoto/);
  assert.is(typeof outputs.temperature, "number");
  assert.match(outputs.headline, /^It is /);

  const bad = await call(client, "travel-research", { destination: 42 });
  assert.is(bad.isError, true);
  const { error } = JSON.parse(textOf(bad));
  assert.equal([error.code, error.details[0].pointer], ["INVALID_INPUT", "/destination"]);
});

test("ask plans over the example's tools with the scripted model and answers in prose", async ({ client }) => {
  const result = await call(client, "ask", { request: "What is the weather in Kyoto?" });
  assert.is(result.isError, undefined, textOf(result));
  assert.is(textOf(result), "Kyoto is mild today.");
  const body = result.structuredContent as any;
  assert.equal([body.status, body.tools_used], ["completed", ["weather-service"]]);
  assert.is(typeof body.steps[0].output.temperature, "number");
});

test.run();
