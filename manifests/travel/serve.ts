/**
 * One component of the travel network per process, the way a deployment runs it:
 * `node dist-example/manifests/travel/serve.js weather-service` (the Dockerfiles gen writes from deploy.yaml run exactly this).
 * The port is the manifest's unless PORT says otherwise; REDIS_URL makes discovery, tasks and schedules shared.
 * `npm start` runs the whole network in one process instead (start.ts).
 */
// Each entry imports only its own generated module and handlers when it is the one served: a tool's
// process loads no other component, and only the travel agent loads the agent runtime.
const SERVE: Readonly<Record<string, () => Promise<unknown>>> = {
  "geocoding-service": async () => {
    const [{ GeocodingService }, { geocodingHandlers }] = await Promise.all([
      import("../../generated/geocoding-service/index.js"),
      import("./handlers/geocoding.js"),
    ]);
    return GeocodingService.serve({ handlers: geocodingHandlers });
  },
  "weather-service": async () => {
    const [{ WeatherService }, { weatherHandlers }] = await Promise.all([import("../../generated/weather-service/index.js"), import("./handlers/weather.js")]);
    return WeatherService.serve({ handlers: weatherHandlers });
  },
  "currency-service": async () => {
    const [{ CurrencyService }, { currencyHandlers }] = await Promise.all([
      import("../../generated/currency-service/index.js"),
      import("./handlers/currency.js"),
    ]);
    return CurrencyService.serve({ handlers: currencyHandlers });
  },
  "country-info-service": async () => {
    const [{ CountryInfoService }, { countryInfoHandlers }] = await Promise.all([
      import("../../generated/country-info-service/index.js"),
      import("./handlers/country-info.js"),
    ]);
    return CountryInfoService.serve({ handlers: countryInfoHandlers });
  },
  "travel-agent": async () => {
    const [{ TravelAgent }, { chatHandler }, { createPackingList }, { createScheduledHandler }, { createTravelAgentHandlers }] = await Promise.all([
      import("../../generated/travel-agent/index.js"),
      import("./handlers/chat.js"),
      import("./handlers/packing-list.js"),
      import("./handlers/scheduled.js"),
      import("./handlers/travel-agent.js"),
    ]);
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
