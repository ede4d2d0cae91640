import type { TravelAgentClients, TravelAgentScheduledHandler } from "../../../generated/travel-agent/index.js";

/**
 * What the travel agent does when one of its schedules fires (the scheduler's executor POSTs it to
 * `/api/v1/scheduled`): a one-line weather brief for `input.destination`, else the instruction echoed.
 * Schedule one: `TravelAgent.clients().scheduler.scheduleTask({ delay: "10s", instruction: "brief", input: { destination: "Kyoto" } })`.
 */
export function createScheduledHandler(tools: TravelAgentClients): TravelAgentScheduledHandler {
  return async ({ schedule_id, instruction, input }, { signal }) => {
    const { destination } = input;
    let brief = `${schedule_id}: ${instruction}`;
    if (destination !== undefined) {
      const place = await tools.geocodingService.geocodeLocation({ location: destination }, { signal });
      const now = await tools.weatherService.getCurrentWeather({ lat: place.lat, lon: place.lon }, { signal });
      brief = `${instruction}: ${now.condition}, ${now.temperature} °C in ${place.display_name}`;
    }
    // The example prints each run so `npm start` shows the schedule firing.
    console.log(`[scheduled ${schedule_id}] ${brief}`);
    return brief;
  };
}
