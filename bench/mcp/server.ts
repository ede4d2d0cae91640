/** bench:mcp's server: the example's weather-service, generated code and its handlers, serving `/mcp` too; prints `{"url"}`. */
import "../http/probe.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";

const running = await WeatherService.serve({ port: 0, handlers: weatherHandlers, mcp: true, registry: false, log: () => undefined });
process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
