/**
 * The example network as a user first meets it: `npm start`'s entry point runs as a real process
 * (on free ports), prints each URL and a sample curl, and every travel tool answers its typed client
 * with the offline data.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { CountryInfoService } from "../../generated/country-info-service/index.js";
import { CurrencyService } from "../../generated/currency-service/index.js";
import { GeocodingService } from "../../generated/geocoding-service/index.js";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { startProcess, stopAll, type Started } from "../support/processes.js";
import { eventually } from "../support/wait.js";

let network: Started;
// The network key npm start would otherwise draw itself: given here, so this process's travel-agent clients can prove their name too.
process.env["MANIFOLD_REGISTRY_KEY"] = randomBytes(32).toString("hex");

test.before(async () => {
  network = await startProcess({
    name: "npm start",
    entry: "manifests/travel/start.ts",
    // As on a fresh machine: no language model configured.
    cleanEnv: true,
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(MANIFOLD_LLM_|OPENAI_)/.test(k))), MANIFOLD_EPHEMERAL_PORTS: "true" },
    ready: { line: /Ctrl-C/ },
  });
});

function urlOf(name: string): string {
  const match = new RegExp(`^  ${name} +(http://\\S+)$`, "m").exec(network.stdout());
  assert.ok(match, `${name} URL printed:\n${network.stdout()}`);
  return match![1]!;
}

test.after(() => stopAll({ signal: "SIGKILL" }));

test("prints each tool's URL and a sample curl", async () => {
  for (const name of ["geocoding-service", "weather-service", "currency-service", "country-info-service", "travel-agent"]) urlOf(name);
  assert.match(
    network.stdout(),
    /curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/api\/capabilities\/geocode_location -H 'Content-Type: application\/json' -d '\{"location":"Paris"\}'/,
  );
});

test("npm start serves each component's OpenAPI document, so the dashboard's API browser is full on first run", async () => {
  for (const name of ["weather-service", "travel-agent"]) {
    const response = await fetch(`${urlOf(name)}/openapi.json`);
    assert.is(response.status, 200, name);
    const document = (await response.json()) as { info: { title: string } };
    assert.is(document.info.title, name);
  }
});

test("npm start prints travel-agent's A2A card URL; the card names its skills and the SDK's client runs one", async () => {
  const match = /^Agent card: (http:\/\/\S+)\/\.well-known\/agent-card\.json /m.exec(network.stdout());
  assert.ok(match, `agent card URL printed:\n${network.stdout()}`);
  assert.is(match![1], urlOf("travel-agent"));
  const { ClientFactory } = await import("@a2a-js/sdk/client");
  const client = await new ClientFactory().createFromUrl(match![1]!);
  const card = await client.getAgentCard();
  assert.ok(
    card.skills.some((s) => s.id === "travel-research"),
    card.skills.map((s) => s.id).join(", "),
  );
});

test("npm start prints the chat page's URL; the page is served and the agent answers a chat from its origin in the AI SDK protocol", async () => {
  const match = /^Chat page: (http:\/\/\S+)\/ /m.exec(network.stdout());
  assert.ok(match, `chat page URL printed:\n${network.stdout()}`);
  const page = match![1]!;
  assert.match(await (await fetch(`${page}/`)).text(), /<script type="module" src="chat.js">/);
  const { agent_url } = (await (await fetch(`${page}/config.json`)).json()) as { agent_url: string };
  assert.is(agent_url, urlOf("travel-agent"));
  // As the page's fetch: cross-origin, useChat's body; the agent's chat handler answers.
  const response = await fetch(`${agent_url}/chat/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: page },
    body: JSON.stringify({ id: "example-chat", messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "What is it like in Kyoto?" }] }] }),
  });
  assert.is(response.headers.get("access-control-allow-origin"), page);
  assert.is(response.headers.get("x-vercel-ai-ui-message-stream"), "v1");
  const text = await response.text();
  assert.match(text, /"type":"text-delta"/);
  assert.match(text, /data: \[DONE\]\n\n$/);
});

test("npm start serves the dashboard and prints its URL; it sees the network and the agent's runs", async () => {
  const match = /^Dashboard: (http:\/\/\S+)\/ /m.exec(network.stdout());
  assert.ok(match, `dashboard URL printed:\n${network.stdout()}`);
  const dashboard = match![1]!;
  const services = (await (await fetch(`${dashboard}/api/services`)).json()) as { name: string }[];
  for (const name of ["geocoding-service", "weather-service", "currency-service", "country-info-service", "travel-agent", "scheduler"])
    assert.ok(
      services.some((s) => s.name === name),
      `${name} listed`,
    );
  const page = await fetch(`${dashboard}/`);
  assert.is(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
});

test("the scheduler runs in npm start: a schedule made as the README shows fires at the travel agent, which prints its brief", async () => {
  const printed = /-H 'X-Manifold-Agent-Token: ([\w.-]+)' -d '(\{"delay":"10s",[^']*)'.*# runs in 10 s/.exec(network.stdout());
  assert.ok(printed, `the curl names the agent with a token:\n${network.stdout()}`);
  // What the curl does: the printed token proves travel-agent to the scheduler; the bare name header would not.
  const curl = await fetch(`${urlOf("scheduler")}/api/capabilities/schedule_task`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-manifold-agent-token": printed![1]! },
    body: printed![2]!,
  });
  const made = (await curl.json()) as { target_agent: string; schedule_id: string };
  assert.is(made.target_agent, "travel-agent");
  const forged = await fetch(`${urlOf("scheduler")}/api/capabilities/cancel_schedule`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-manifold-agent-name": "travel-agent" },
    body: JSON.stringify({ schedule_id: made.schedule_id }),
  });
  assert.is(forged.status, 401, "X-Manifold-Agent-Name alone proves nothing");
  assert.match(network.stdout(), /"cron_expr":"\*\/1 \* \* \* \*"/);
  const { scheduler } = TravelAgent.clients({ baseUrls: { scheduler: urlOf("scheduler") } });
  const created = await scheduler.scheduleTask({ delay: "1s", instruction: "Morning brief", input: { destination: "Kyoto" } });
  assert.is(created.target_agent, "travel-agent");
  await eventually("the scheduled run's brief", () => network.stdout().includes(`[scheduled ${created.schedule_id}] Morning brief: `));
  assert.match(network.stdout(), new RegExp(`\\[scheduled ${created.schedule_id}\\] Morning brief: \\w+, -?[\\d.]+ °C in Kyoto, JP`));
  const gone = await scheduler.getSchedule({ schedule_id: created.schedule_id }).then(
    () => undefined,
    (error: ManifoldError) => error.code,
  );
  assert.is(gone, "NOT_FOUND", "a one-shot schedule is gone once fired");
});

test("a trip's worth of calls through the typed clients", async () => {
  const geo = GeocodingService.client({ baseUrl: urlOf("geocoding-service") });
  const weather = WeatherService.client({ baseUrl: urlOf("weather-service") });
  const currency = CurrencyService.client({ baseUrl: urlOf("currency-service") });
  const country = CountryInfoService.client({ baseUrl: urlOf("country-info-service") });

  const place = await geo.geocodeLocation({ location: "Kyoto" });
  assert.equal({ lat: place.lat, lon: place.lon, country_code: place.country_code }, { lat: 35.0116, lon: 135.7681, country_code: "JP" });
  assert.ok(place.bbox !== undefined && place.bbox.south < place.lat && place.lat < place.bbox.north);

  const now = await weather.getCurrentWeather({ lat: place.lat, lon: place.lon, units: "metric" });
  assert.equal(await weather.getCurrentWeather({ lat: place.lat, lon: place.lon, units: "metric" }), now, "deterministic");
  assert.ok(["sunny", "cloudy", "rain", "snow", "windy"].includes(now.condition));
  assert.ok(now.humidity >= 0 && now.humidity <= 100 && Number.isInteger(now.humidity));
  const forecast = await weather.getForecast({ lat: place.lat, lon: place.lon, days: 5 });
  assert.is(forecast.days.length, 5);
  assert.ok(forecast.days.every((d) => d.low < d.high));

  const info = await country.getCountryInfo({ country_code: place.country_code });
  assert.equal({ name: info.name, currency: info.currency, languages: info.languages }, { name: "Japan", currency: "JPY", languages: ["Japanese"] });

  const converted = await currency.convertCurrency({ amount: 100, from: "EUR", to: info.currency });
  assert.is(converted.to, "JPY");
  assert.ok(Math.abs(converted.converted - 100 * (151.2 / 0.92)) < 1);
  assert.ok((await currency.listCurrencies({})).currencies.includes("JPY"));
});

test("the travel agent briefs a trip by calling four tools over HTTP", async () => {
  const agent = TravelAgent.client({ baseUrl: urlOf("travel-agent") });
  const brief = await agent.tripBrief({ destination: "Kyoto", home_currency: "EUR", budget: 1000 });
  const weather = await WeatherService.client({ baseUrl: urlOf("weather-service") }).getCurrentWeather({ lat: 35.0116, lon: 135.7681 });
  assert.equal(brief, {
    destination: "Kyoto, JP",
    country: { name: "Japan", capital: "Tokyo", currency: "JPY", languages: ["Japanese"] },
    weather: { temperature: weather.temperature, condition: weather.condition },
    money: { rate: 164.347826, converted: 164347.83 },
  });
  const bare = await agent.tripBrief({ destination: "Lisbon" });
  assert.is(bare.money, undefined);
  assert.is(bare.country.currency, "EUR");
});

test("a handler's deliberate NOT_FOUND reaches the client as a ManifoldError with that code", async () => {
  const geo = GeocodingService.client({ baseUrl: urlOf("geocoding-service") });
  try {
    await geo.geocodeLocation({ location: "Atlantis" });
    assert.unreachable("should have thrown");
  } catch (error) {
    assert.instance(error, ManifoldError);
    assert.is((error as ManifoldError).code, "NOT_FOUND");
    assert.is((error as ManifoldError).status, 404);
  }
});

test("POST /orchestrate/travel-research returns the workflow's typed outputs; weather and rates run side by side", async () => {
  const run = await TravelAgent.workflows({ baseUrl: urlOf("travel-agent") }).travelResearch({ destination: "Kyoto", home_currency: "EUR" });
  const weather = await WeatherService.client({ baseUrl: urlOf("weather-service") }).getCurrentWeather({ lat: 35.0116, lon: 135.7681, units: "metric" });
  const rates = await CurrencyService.client({ baseUrl: urlOf("currency-service") }).getExchangeRates({ base: "EUR" });
  assert.equal(run.outputs, {
    place: "Kyoto, JP",
    temperature: weather.temperature,
    condition: weather.condition,
    currency: "JPY",
    rates: rates.rates,
    capital: "Tokyo",
    headline: `It is ${weather.condition} and ${weather.temperature} °C in Kyoto, JP`,
  });
  // Typed: a number stays a number through a whole-value reference.
  const temperature: number = run.outputs.temperature;
  assert.type(temperature, "number");
  assert.equal(
    run.steps.map((s) => [s.step_id, s.status]),
    [
      ["geocode", "completed"],
      ["weather", "completed"],
      ["rates", "completed"],
      ["country", "completed"],
    ],
  );
  const started = Object.fromEntries(run.steps.map((s) => [s.step_id, Date.parse(s.started_at!)]));
  const ended = (id: string) => started[id]! + run.steps.find((s) => s.step_id === id)!.duration_ms;
  assert.ok(started["weather"]! < ended("rates") && started["rates"]! < ended("weather"), "weather and rates overlap");
  assert.ok(started["country"]! >= Math.max(ended("weather"), ended("rates")) - 1, "country waits for both");
  assert.match(run.plan_id, /^workflow-\d+$/);
});

test("the four-wide city-compare workflow and a failing workflow's 502 WORKFLOW_FAILED", async () => {
  const workflows = TravelAgent.workflows({ baseUrl: urlOf("travel-agent") });
  const run = await workflows.cityCompare({ first: "Paris", second: "Tokyo", third: "Cairo", fourth: "Sydney" });
  assert.equal(
    [run.outputs.first.place, run.outputs.second.place, run.outputs.third.place, run.outputs.fourth.place],
    ["Paris, FR", "Tokyo, JP", "Cairo, EG", "Sydney, AU"],
  );
  assert.is(run.steps.length, 8);
  try {
    await workflows.travelResearch({ destination: "Atlantis" });
    assert.unreachable("should have thrown");
  } catch (error) {
    assert.instance(error, ManifoldError);
    assert.is((error as ManifoldError).code, "WORKFLOW_FAILED");
    assert.is((error as ManifoldError).status, 502);
  }
});

test("custom mode runs the steps in order and reports a failed middle step in its place", async () => {
  const response = await fetch(`${urlOf("travel-agent")}/orchestrate/custom`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      steps: [
        { tool: "geocoding-service", capability: "geocode_location", params: { location: "Lisbon" } },
        { tool: "geocoding-service", capability: "geocode_location", params: { location: "Atlantis" } },
        { tool: "currency-service", capability: "list_currencies" },
      ],
    }),
  });
  assert.is(response.status, 200);
  const body = (await response.json()) as {
    success: boolean;
    plan_id: string;
    steps: { step_id: string; success: boolean; error: { code: string } | null; output?: Record<string, unknown> }[];
  };
  assert.is(body.success, false);
  assert.match(body.plan_id, /^custom-\d{19,}$/);
  assert.equal(
    body.steps.map((s) => [s.step_id, s.success, s.error?.code ?? null]),
    [
      ["step-1", true, null],
      ["step-2", false, "NOT_FOUND"],
      ["step-3", true, null],
    ],
  );
  assert.is(body.steps[0]!.output!["display_name"], "Lisbon, PT");
  assert.ok((body.steps[2]!.output!["currencies"] as string[]).includes("EUR"));
});

test("tasks: a handler task reports progress and completes; a workflow task needs no handler code", async () => {
  const tasks = TravelAgent.tasks({ baseUrl: urlOf("travel-agent") });
  const submitted = await tasks.packingList.submit({ destination: "Lisbon", days: 4 });
  assert.is(submitted.status, "queued");
  const list = await tasks.packingList.wait(submitted.task_id, { intervalMs: 20 });
  assert.is(list.destination, "Lisbon, PT");
  assert.ok(list.items.includes("4 sets of clothes") && list.items.includes("passport"));
  const view = await tasks.packingList.get(submitted.task_id);
  assert.is(view.status, "completed");
  assert.equal(view.progress, { current_step: 3, total_steps: 3, step_name: "pack", percentage: 66 });

  const research = await tasks.research.submit({ destination: "Kyoto", home_currency: "EUR" });
  const outputs = await tasks.research.wait(research.task_id, { intervalMs: 20 });
  const direct = await TravelAgent.workflows({ baseUrl: urlOf("travel-agent") }).travelResearch({ destination: "Kyoto", home_currency: "EUR" });
  assert.equal(outputs, direct.outputs);

  // The manifest's max_length (200) refuses a destination the handler could not use, at submit.
  const long = await fetch(`${urlOf("travel-agent")}/api/v1/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "packing_list", input: { destination: "x".repeat(1_000) } }),
  });
  const refused = (await long.json()) as { error: { code: string; details: { pointer: string }[] } };
  assert.equal([long.status, refused.error.code, refused.error.details[0]!.pointer], [400, "INVALID_INPUT", "/input/destination"]);
});

test("without a language model, natural mode answers 503 LLM_UNAVAILABLE naming the variables; the rest runs", async () => {
  const response = await fetch(`${urlOf("travel-agent")}/orchestrate/natural`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ request: "weather in Kyoto?" }),
  });
  assert.is(response.status, 503);
  const body = (await response.json()) as { error: { code: string; message: string } };
  assert.is(body.error.code, "LLM_UNAVAILABLE");
  assert.match(body.error.message, /MANIFOLD_LLM_BASE_URL.*OPENAI_API_KEY/);
});

test("SIGTERM stops the four tools and the agent and the process exits 0", async () => {
  assert.equal(await network.stop({ signal: "SIGTERM" }), { code: 0, signal: null }, "it exits 0 by itself, not killed");
});

test.run();
