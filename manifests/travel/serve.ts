/**
 * One component of the travel network per process, the way a deployment runs it:
 * `node dist-example/manifests/travel/serve.js weather-service` (the Dockerfiles gen writes from deploy.yaml run exactly this).
 * The port is the manifest's unless PORT says otherwise; REDIS_URL makes discovery, tasks and schedules shared.
 * `npm start` runs the whole network in one process instead (start.ts).
 */
import { CountryInfoService } from "../../generated/country-info-service/index.js";
import { CurrencyService } from "../../generated/currency-service/index.js";
import { GeocodingService } from "../../generated/geocoding-service/index.js";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { chatHandler } from "./handlers/chat.js";
import { countryInfoHandlers } from "./handlers/country-info.js";
import { currencyHandlers } from "./handlers/currency.js";
import { geocodingHandlers } from "./handlers/geocoding.js";
import { createPackingList } from "./handlers/packing-list.js";
import { createScheduledHandler } from "./handlers/scheduled.js";
import { createTravelAgentHandlers } from "./handlers/travel-agent.js";
import { weatherHandlers } from "./handlers/weather.js";

const SERVE: Readonly<Record<string, () => Promise<unknown>>> = {
  "geocoding-service": () => GeocodingService.serve({ handlers: geocodingHandlers }),
  "weather-service": () => WeatherService.serve({ handlers: weatherHandlers }),
  "currency-service": () => CurrencyService.serve({ handlers: currencyHandlers }),
  "country-info-service": () => CountryInfoService.serve({ handlers: countryInfoHandlers }),
  "travel-agent": () => {
    const clients = TravelAgent.clients();
    return TravelAgent.serve({
      handlers: createTravelAgentHandlers(clients),
      tasks: { packingList: createPackingList(clients) },
      scheduled: createScheduledHandler(clients),
      chat: chatHandler,
    });
  },
};

const name = process.argv[2] ?? "";
const serve = SERVE[name];
if (serve === undefined) {
  console.error(`usage: serve.js <component>, one of ${Object.keys(SERVE).join(", ")}`);
  process.exit(2);
}
// SIGTERM drains and exits on its own (serve handles signals); a failure to start exits 1 without a stack.
await serve().catch((error: unknown) => {
  console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
