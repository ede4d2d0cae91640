import type { GetCurrentWeatherOutput, WeatherServiceHandlers } from "../../../generated/weather-service/index.js";
import { round } from "./data.js";

const CONDITIONS = ["sunny", "cloudy", "rain", "snow", "windy"] as const;
const DIRECTIONS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"] as const;

/** A deterministic pseudo-random number in [0, 1) from a coordinate and a day: same input, same weather. */
function noise(lat: number, lon: number, day: number): number {
  const x = Math.sin(lat * 12.9898 + lon * 78.233 + day * 37.719) * 43758.5453;
  return x - Math.floor(x);
}

function celsius(lat: number, lon: number, day: number): number {
  return round(27 - Math.abs(lat) * 0.35 + noise(lat, lon, day) * 8 - 4, 1);
}

function conditionAt(lat: number, lon: number, day: number, temperature: number): GetCurrentWeatherOutput["condition"] {
  const pick = CONDITIONS[Math.floor(noise(lon, lat, day) * CONDITIONS.length)]!;
  return pick === "snow" && temperature > 3 ? "rain" : pick;
}

export const weatherHandlers: WeatherServiceHandlers = {
  getCurrentWeather: ({ lat, lon, units = "metric" }) => {
    const c = celsius(lat, lon, 0);
    return {
      temperature: units === "imperial" ? round((c * 9) / 5 + 32, 1) : c,
      condition: conditionAt(lat, lon, 0, c),
      humidity: Math.round(35 + noise(lat + 1, lon, 0) * 60),
      wind: { speed: round(noise(lat, lon + 1, 0) * 40, 1), direction: DIRECTIONS[Math.floor(noise(lat + 2, lon, 0) * 8)]! },
    };
  },
  getForecast: ({ lat, lon, days = 3 }) => {
    const count = Math.min(7, Math.max(1, days));
    const start = Date.UTC(2026, 5, 1);
    return {
      days: Array.from({ length: count }, (_, i) => {
        const mid = celsius(lat, lon, i + 1);
        return {
          date: new Date(start + i * 86_400_000).toISOString().slice(0, 10),
          high: round(mid + 4, 1),
          low: round(mid - 5, 1),
          condition: conditionAt(lat, lon, i + 1, mid),
        };
      }),
    };
  },
};
