/**
 * The recovery suites' fixtures: a `weather` tool on loopback whose handlers refuse inputs a model
 * typically gets wrong (a date that is not YYYY-MM-DD, a city name where a location code is wanted),
 * and a scripted model whose requests are told apart by their json_schema name (DESIGN §5.3). The
 * tool is reached through a counting relay (recovery-relay.ts): `calls` are the HTTP requests that
 * reached its capability endpoints, including those the component refuses before its handler runs.
 */
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import type { ScriptedRequest } from "../support/scripted-llm.js";
import { startRelay, type Dispatch } from "../support/relay.js";
import { capability } from "./support.js";

const STR = (name: string) => ({ name, type: "string" as const });

export interface WeatherCall {
  readonly capability: string;
  readonly input: Record<string, unknown>;
}

export interface Weather {
  readonly spec: ComponentSpec;
  /** Every request that reached a capability endpoint (on the wire, before the component's own input check). */
  readonly calls: readonly WeatherCall[];
  /** The relay's URL: what the orchestrator calls. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `weather`:
 * - `locate {query}` → `{name: <the query>, code: "FR-PAR"}`;
 * - `expand {query, times}` → `{name: <the query repeated `times` times>}` (a lookup result far larger than a plan);
 * - `forecast {city, date}` → `{city, date, temp_c}`; 400 INVALID_INPUT unless date is YYYY-MM-DD and
 *   city a location code (`FR-PAR`);
 * - `book {city, date}` → `{booking}`, same checks (the HITL suites make it sensitive);
 * - `subscribe {city}` (effects: lasting) → always 400;
 * - `explode {}` → 500; `stall {}` → answers after 5 s (a short step timeout makes it TIMEOUT).
 */
export async function startWeather(): Promise<Weather> {
  const cityDate = { required: [STR("city"), STR("date")], optional: [] };
  const spec: ComponentSpec = {
    kind: "tool",
    name: "weather",
    description: "forecasts and bookings",
    version: "1.0.0",
    capabilities: [
      capability("locate", { required: [STR("query")], optional: [] }, { required: [STR("name"), STR("code")], optional: [] }),
      capability("expand", { required: [STR("query"), { name: "times", type: "number" }], optional: [] }, { required: [STR("name")], optional: [] }),
      capability("forecast", cityDate, { required: [STR("city"), STR("date"), { name: "temp_c", type: "number" }], optional: [] }),
      capability("book", cityDate, { required: [STR("booking")], optional: [] }),
      { ...capability("subscribe", { required: [STR("city")], optional: [] }), effects: "lasting" },
      capability("explode", { required: [], optional: [] }),
      capability("stall", { required: [], optional: [] }),
    ],
  };
  const check = (input: Record<string, unknown>): void => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(String(input["date"])))
      throw new ManifoldError("INVALID_INPUT", "date must be YYYY-MM-DD", { details: [{ pointer: "/date", message: `not a date: ${String(input["date"])}` }] });
    if (!/^[A-Z]{2}-[A-Z]{3}$/.test(String(input["city"])))
      throw new ManifoldError("INVALID_INPUT", "city must be a location code such as FR-PAR", {
        details: [{ pointer: "/city", message: "not a location code" }],
      });
  };
  type In = Record<string, unknown>;
  const handle =
    <T>(work: (input: In, signal: AbortSignal) => T | Promise<T>) =>
    (input: In, ctx: { signal: AbortSignal }) =>
      work(input, ctx.signal);
  const handlers = {
    locate: handle((input) => ({ name: input["query"], code: "FR-PAR" })),
    expand: handle((input) => ({ name: String(input["query"]).repeat(Number(input["times"])) })),
    forecast: handle((input) => {
      check(input);
      return { city: input["city"], date: input["date"], temp_c: 11 };
    }),
    book: handle((input) => {
      check(input);
      return { booking: "b-1" };
    }),
    subscribe: handle(() => {
      throw new ManifoldError("INVALID_INPUT", "unknown city");
    }),
    explode: handle(() => {
      throw new Error("a bug in the tool");
    }),
    stall: handle(
      (_input, signal) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve({}), 5000);
          signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
        }),
    ),
  };
  const running: RunningComponent = await serveComponent(spec, {
    port: 0,
    handlers: handlers as never,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    drainTimeoutMs: 200,
  });
  const dispatches: Dispatch[] = [];
  const relay = await startRelay(spec, running.url, dispatches);
  return {
    spec,
    get calls() {
      return dispatches.map((d) => ({ capability: d.capability, input: d.body as Record<string, unknown> }));
    },
    url: relay.url,
    close: async () => {
      await relay.close();
      await running.close();
    },
  };
}

export const step = (step_id: string, cap: string, parameters: Record<string, unknown>, depends_on: string[] = []) => ({
  step_id,
  agent_name: "weather",
  depends_on,
  metadata: { capability: cap, parameters },
});
export const planText = (...steps: unknown[]): string => JSON.stringify({ steps });
export const analysisText = (recoverable: boolean, reason: string, parameters?: Record<string, unknown>): string =>
  JSON.stringify({ recoverable, reason, ...(parameters === undefined ? {} : { parameters }) });

/** What a model request was: its json_schema name (`routing_plan`, `error_analysis`, …), else `text`. */
export const kindOf = (request: ScriptedRequest): string => request.body.response_format?.json_schema?.name ?? "text";
