/**
 * The one place TypeScript names are derived from manifest names. Component names are DNS labels
 * (`weather-service`), capability names are snake_case (`get_current_weather`); both split on `-` and `_`.
 */

function words(name: string): string[] {
  return name.split(/[-_]+/).filter((w) => w.length > 0);
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `weather-service` → `WeatherService`, `get_current_weather` → `GetCurrentWeather`. */
export function toPascalCase(name: string): string {
  return words(name).map(capitalise).join("");
}

/** `get_current_weather` → `getCurrentWeather`. */
export function toCamelCase(name: string): string {
  const pascal = toPascalCase(name);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/** Component and workflow names: DNS labels (they become Kubernetes names and URL segments). */
export const DNS_LABEL = /^[a-z][a-z0-9-]{0,62}$/;

export function isDnsLabel(value: unknown): value is string {
  return typeof value === "string" && DNS_LABEL.test(value);
}
