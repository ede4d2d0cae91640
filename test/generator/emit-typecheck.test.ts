/**
 * Type-level guarantees of generated code, checked by the TypeScript compiler against the committed
 * generated/weather-service module under the project's strict tsconfig: a missing handler and a wrong
 * output type are compile errors; a correct implementation and typed client calls compile cleanly.
 */
import { join } from "node:path";
import { Project, ts, type Diagnostic } from "ts-morph";
import { test } from "uvu";
import * as assert from "uvu/assert";

const root = new URL("../..", import.meta.url).pathname;
const project = new Project({ tsConfigFilePath: join(root, "tsconfig.json"), skipAddingFilesFromTsConfig: true });
let n = 0;

function check(body: string): Diagnostic[] {
  const file = project.createSourceFile(join(root, `test/generator/__typecheck_${n++}.ts`), `
import { WeatherService, type WeatherServiceHandlers } from "../../generated/weather-service/index.js";
${body}
export {};
`);
  return file.getPreEmitDiagnostics();
}

/** Whole message chains: "Property 'lon' is missing" sits below "Argument of type … is not assignable". */
const messages = (d: Diagnostic[]) => d.map((x) => ts.flattenDiagnosticMessageText(x.compilerObject.messageText, "\n"));

const GOOD_FORECAST = `getForecast: () => ({ days: [{ date: "2026-06-01", high: 20, low: 10, condition: "sunny" }] }),`;

test("a complete, correctly typed implementation compiles", () => {
  const diagnostics = check(`
const handlers: WeatherServiceHandlers = {
  getCurrentWeather: async ({ lat, lon, units }) => ({ temperature: lat + lon, condition: units === "imperial" ? "sunny" : "rain", humidity: 50, wind: { speed: 3, direction: "NE" } }),
  ${GOOD_FORECAST}
};
const running = await WeatherService.serve({ port: 0, handlers });
const out = await WeatherService.client({ baseUrl: running.url }).getCurrentWeather({ lat: 1, lon: 2 });
const t: number = out.temperature;
const d: "N" | "NE" | "E" | "SE" | "S" | "SW" | "W" | "NW" = out.wind.direction;
void t; void d;
`);
  assert.equal(messages(diagnostics), []);
});

test("a missing handler is a compile error that names it", () => {
  const diagnostics = check(`
await WeatherService.serve({ handlers: { ${GOOD_FORECAST} } });
`);
  assert.ok(diagnostics.length > 0);
  assert.match(messages(diagnostics).join("\n"), /getCurrentWeather/);
});

test("a wrong output type is a compile error", () => {
  const diagnostics = check(`
const handlers: WeatherServiceHandlers = {
  getCurrentWeather: () => ({ temperature: "warm", condition: "sunny", humidity: 50, wind: { speed: 3, direction: "NE" } }),
  ${GOOD_FORECAST}
};
void handlers;
`);
  assert.ok(diagnostics.length > 0);
  assert.match(messages(diagnostics).join("\n"), /string.*number|temperature/s);
});

test("an output value outside its enum is a compile error", () => {
  const diagnostics = check(`
const handlers: WeatherServiceHandlers = {
  getCurrentWeather: () => ({ temperature: 1, condition: "hail", humidity: 50, wind: { speed: 3, direction: "NE" } }),
  ${GOOD_FORECAST}
};
void handlers;
`);
  assert.ok(diagnostics.length > 0);
});

test("a client call with a missing required input or a wrong input type is a compile error", () => {
  const missing = check(`await WeatherService.client({ baseUrl: "http://127.0.0.1:1" }).getCurrentWeather({ lat: 1 });`);
  assert.match(messages(missing).join("\n"), /lon/);
  const wrong = check(`await WeatherService.client({ baseUrl: "http://127.0.0.1:1" }).getForecast({ lat: 1, lon: 2, days: "3" });`);
  assert.ok(wrong.length > 0);
});

test.run();
