/**
 * `npm start`: the travel tools and the travel agent in one process on the embedded defaults. Each listens on its manifest
 * port unless PORT_OFFSET shifts them (or MANIFOLD_EPHEMERAL_PORTS=true picks free ones).
 */
import { randomBytes } from "node:crypto";
import { agentIdentityKey, mintAgentToken } from "agent-manifold/runtime/context";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { CountryInfoService } from "../../generated/country-info-service/index.js";
import { CurrencyService } from "../../generated/currency-service/index.js";
import { GeocodingService } from "../../generated/geocoding-service/index.js";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { chatHandler } from "./handlers/chat.js";
import { countryInfoHandlers } from "./handlers/country-info.js";
import { currencyHandlers } from "./handlers/currency.js";
import { geocodingHandlers } from "./handlers/geocoding.js";
import { serveScheduler } from "agent-manifold/runtime/scheduling";
import { DEFAULT_DASHBOARD_PORT, serveDashboard } from "agent-manifold/runtime/dashboard";
import { createPackingList } from "./handlers/packing-list.js";
import { createScheduledHandler } from "./handlers/scheduled.js";
import { serveChatPage } from "./serve-chat-page.js";
import { createTravelAgentHandlers } from "./handlers/travel-agent.js";
import { weatherHandlers } from "./handlers/weather.js";

const ephemeral = process.env["MANIFOLD_EPHEMERAL_PORTS"] === "true";
// One network key per run unless one is given: registry records are signed with it, and each agent
// proves its name to the scheduler with a token derived from it (X-Manifold-Agent-Name proves nothing).
process.env["MANIFOLD_REGISTRY_KEY"] ||= randomBytes(32).toString("hex");
// A person is reading this terminal: readable log lines unless asked for JSON.
process.env["DEV_MODE"] ??= "true";
// The example records its runs and model calls (bounded, in memory) so the dashboard has something to show.
process.env["MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED"] ??= "true";
process.env["MANIFOLD_LLM_DEBUG_ENABLED"] ??= "true";
// An explicit port also keeps a PORT variable, meant for one service, from moving all four onto it.
const port = (manifestPort: number | undefined) => (ephemeral ? 0 : (manifestPort ?? 0));

/** A free loopback port, taken now so the components can name the dashboard's origin before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
// The API browser's "Try it out" calls each component from the dashboard's page: a cross-origin call
// that a component answers only for the origins in MANIFOLD_CORS_ORIGINS, so the network's list names it.
const dashboardPort = ephemeral ? await freePort() : DEFAULT_DASHBOARD_PORT;
// The example chat page (serve-chat-page.ts) calls the agent's /chat/stream and /hitl/command from its own origin: named too.
const chatPagePort = ephemeral ? await freePort() : 8096;
process.env["MANIFOLD_CORS_ORIGINS"] = [
  process.env["MANIFOLD_CORS_ORIGINS"],
  ...[dashboardPort, chatPagePort].flatMap((p) => [`http://127.0.0.1:${p}`, `http://localhost:${p}`]),
]
  .filter((origin) => origin !== undefined && origin !== "")
  .join(",");

const tools = await Promise.all([
  GeocodingService.serve({ handlers: geocodingHandlers, port: port(GeocodingService.spec.port) }),
  WeatherService.serve({ handlers: weatherHandlers, port: port(WeatherService.spec.port) }),
  CurrencyService.serve({ handlers: currencyHandlers, port: port(CurrencyService.spec.port) }),
  CountryInfoService.serve({ handlers: countryInfoHandlers, port: port(CountryInfoService.spec.port) }),
]);
// No URLs: the tools registered themselves in the process's registry (the embedded in-memory one,
// or Redis when REDIS_URL is set), and the agent's clients find each by name before every call.
const clients = TravelAgent.clients();
const agent = await TravelAgent.serve({
  handlers: createTravelAgentHandlers(clients),
  tasks: { packingList: createPackingList(clients) },
  scheduled: createScheduledHandler(clients),
  chat: chatHandler,
  port: port(TravelAgent.spec.port),
});
// The scheduler tool, its firing loop and the executor, which delivers due runs to the agent.
const scheduler = await serveScheduler({ port: ephemeral ? 0 : 8099 });
// The dashboard reads the same (process-wide) embedded store the network writes.
const dashboard = await serveDashboard({ port: dashboardPort });
const chatPage = await serveChatPage({ agentUrl: () => agent.url, port: chatPagePort });
const running = [...tools, agent, scheduler];

const [geo] = running;
// The curl below schedules as the travel agent: a person has no agent key, so the example carries a token minted for it (1 h).
const agentToken = await mintAgentToken(agentIdentityKey()!, "travel-agent", "scheduler", Date.now(), 3600);
console.log("\nThe travel network is up:");
for (const r of running) console.log(`  ${r.spec.name.padEnd(22)} ${r.url}`);
console.log(`\nDashboard: ${dashboard.url}/  (registry, LLM debug, approvals, executions, skills, memory; API browser at ${dashboard.url}/api-browser)`);
console.log(`Chat page: ${chatPage.url}/  (useChat's protocol on ${agent.url}/chat/stream: tool parts, approvals)`);
console.log(`Agent card: ${agent.url}/.well-known/agent-card.json  (A2A: any A2A client talks to travel-agent at ${agent.url}/a2a)`);
console.log(`\nTry:\n  curl -s -X POST ${geo!.url}/api/capabilities/geocode_location -H 'Content-Type: application/json' -d '{"location":"Paris"}'`);
console.log(
  `  curl -s -X POST ${agent.url}/api/capabilities/trip_brief -H 'Content-Type: application/json' -d '{"destination":"Kyoto","home_currency":"EUR","budget":1000}'`,
);
console.log(`  curl -s ${geo!.url}/api/capabilities`);
console.log(
  `  curl -s -X POST ${agent.url}/orchestrate/travel-research -H 'Content-Type: application/json' -d '{"destination":"Kyoto","home_currency":"EUR"}'`,
);
console.log(
  `  curl -s -X POST ${agent.url}/orchestrate/custom -H 'Content-Type: application/json' -d '{"steps":[{"tool":"geocoding-service","capability":"geocode_location","params":{"location":"Lisbon"}},{"tool":"currency-service","capability":"list_currencies"}]}'`,
);
console.log(
  `  curl -s -X POST ${agent.url}/api/v1/tasks -H 'Content-Type: application/json' -d '{"type":"packing_list","input":{"destination":"Lisbon","days":4}}'   # then GET the status_url`,
);
console.log(
  `  curl -s -X POST ${scheduler.url}/api/capabilities/schedule_task -H 'Content-Type: application/json' -H 'X-Manifold-Agent-Token: ${agentToken}' -d '{"delay":"10s","instruction":"Morning brief","input":{"destination":"Kyoto"}}'   # runs in 10 s`,
);
console.log(
  `  curl -s -X POST ${scheduler.url}/api/capabilities/schedule_task -H 'Content-Type: application/json' -H 'X-Manifold-Agent-Token: ${agentToken}' -d '{"cron_expr":"*/1 * * * *","instruction":"Minute brief","input":{"destination":"Lisbon"}}'   # every minute\n\nCtrl-C stops everything.`,
);
