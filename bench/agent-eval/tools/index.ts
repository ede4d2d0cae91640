/** Every tool a scenario may name in its `tools` list, by component name. */
import { calendar, email, thermostat, users } from "./people.js";
import { orders, shipping, stock, tickets } from "./commerce.js";
import type { BenchTool } from "./define.js";
import { currency, flights, geo, places, weather } from "./travel.js";

export type { BenchTool } from "./define.js";
export { TODAY } from "./define.js";

export const TOOLS: Readonly<Record<string, BenchTool>> = Object.fromEntries(
  [geo, places, weather, flights, currency, orders, shipping, stock, tickets, users, email, calendar, thermostat].map((tool) => [tool.spec.name, tool]),
);
