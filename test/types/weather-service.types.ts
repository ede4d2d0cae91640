/**
 * Type-level guarantees of generated code, compiled by `tsc --noEmit` (the first step of `npm test`)
 * against the committed generated/weather-service module under the project's strict tsconfig. Each
 * line that must not compile carries `@ts-expect-error`: if it ever compiled, the directive itself
 * would be the error. Nothing here runs; the functions only exist to be type-checked.
 */
import { WeatherService, type WeatherServiceHandlers } from "../../generated/weather-service/index.js";

const GOOD_FORECAST = () => ({ days: [{ date: "2026-06-01", high: 20, low: 10, condition: "sunny" as const }] });

export async function aCompleteTypedImplementationCompiles(): Promise<void> {
  const handlers: WeatherServiceHandlers = {
    getCurrentWeather: async ({ lat, lon, units }) => ({
      temperature: lat + lon,
      condition: units === "imperial" ? "sunny" : "rain",
      humidity: 50,
      wind: { speed: 3, direction: "NE" },
    }),
    getForecast: GOOD_FORECAST,
  };
  const running = await WeatherService.serve({ port: 0, handlers });
  const out = await WeatherService.client({ baseUrl: running.url }).getCurrentWeather({ lat: 1, lon: 2 });
  const t: number = out.temperature;
  const d: "N" | "NE" | "E" | "SE" | "S" | "SW" | "W" | "NW" = out.wind.direction;
  void t;
  void d;
}

export async function aMissingHandlerDoesNotCompile(): Promise<void> {
  // @ts-expect-error getCurrentWeather is missing
  await WeatherService.serve({ handlers: { getForecast: GOOD_FORECAST } });
}

export function aWrongOutputTypeDoesNotCompile(): WeatherServiceHandlers {
  return {
    // @ts-expect-error temperature must be a number
    getCurrentWeather: () => ({ temperature: "warm", condition: "sunny", humidity: 50, wind: { speed: 3, direction: "NE" } }),
    getForecast: GOOD_FORECAST,
  };
}

export function anOutputOutsideItsEnumDoesNotCompile(): WeatherServiceHandlers {
  return {
    // @ts-expect-error "hail" is not a condition
    getCurrentWeather: () => ({ temperature: 1, condition: "hail", humidity: 50, wind: { speed: 3, direction: "NE" } }),
    getForecast: GOOD_FORECAST,
  };
}

export async function aWrongClientInputDoesNotCompile(): Promise<void> {
  const client = WeatherService.client({ baseUrl: "http://127.0.0.1:1" });
  // @ts-expect-error lon is required
  await client.getCurrentWeather({ lat: 1 });
  // @ts-expect-error days is a number
  await client.getForecast({ lat: 1, lon: 2, days: "3" });
}
