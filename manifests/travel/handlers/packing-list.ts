import type { TravelAgentClients } from "../../../generated/travel-agent/index.js";
import type { PackingListTaskInput, PackingListTaskResult } from "../../../generated/travel-agent/index.js";
import type { TaskContext } from "agent-manifold/runtime/codegen/v1";

const BY_CONDITION: Readonly<Record<string, readonly string[]>> = {
  sunny: ["sunglasses", "sun cream", "hat"],
  cloudy: ["light jacket"],
  rain: ["umbrella", "waterproof shoes"],
  snow: ["warm coat", "gloves", "boots"],
  windy: ["windbreaker"],
};

/**
 * The `packing_list` task: a handler that reports progress at each step (visible on
 * GET /api/v1/tasks/<id>) and passes its signal to every call, so a cancel stops it mid-way.
 */
export function createPackingList(tools: TravelAgentClients) {
  return async ({ destination, days = 3 }: PackingListTaskInput, ctx: TaskContext): Promise<PackingListTaskResult> => {
    await ctx.progress({ current_step: 1, total_steps: 3, step_name: "geocode", percentage: 0, message: `Finding ${destination}` });
    const place = await tools.geocodingService.geocodeLocation({ location: destination }, { signal: ctx.signal });
    await ctx.progress({ current_step: 2, total_steps: 3, step_name: "weather", percentage: 33 });
    const weather = await tools.weatherService.getCurrentWeather({ lat: place.lat, lon: place.lon }, { signal: ctx.signal });
    await ctx.progress({ current_step: 3, total_steps: 3, step_name: "pack", percentage: 66 });
    const cold = weather.temperature < 10 ? ["sweater", "scarf"] : [];
    const items = [`${days} sets of clothes`, "passport", ...(BY_CONDITION[weather.condition] ?? []), ...cold];
    return { destination: place.display_name, items };
  };
}
