/**
 * bench:mcp's harness, small, in CI (answers only, never time): against the example's weather-service
 * served with `mcp: true`, each caller the bench compares (a plain HTTP POST, `tools/call` over
 * node:http in one session, the SDK's Client) gets the same structured answer on every call, one after
 * another and with several in flight, so the bench's figures are for calls that worked.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { concurrent, httpCaller, mcpCaller, sdkCaller, sequential, type Caller } from "../../bench/mcp/harness.js";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import { QUIET } from "../mcp/server-support.js";

const weather = await WeatherService.serve({ ...QUIET, handlers: weatherHandlers, mcp: true });
const callers: Caller[] = [];

test.after(async () => {
  await Promise.all(callers.map((caller) => caller.close()));
  await weather.close();
});

test("every caller of the bench gets the HTTP answer on every call, sequential and concurrent", async () => {
  callers.push(httpCaller(weather.url), await mcpCaller(weather.url), await sdkCaller(weather.url));
  const expected = await weatherHandlers.getCurrentWeather({ lat: 48.85, lon: 2.35 } as never, {} as never);
  for (const caller of callers) {
    const answers: unknown[] = [];
    const check = (answer: unknown): void => void answers.push(answer);
    const times = await sequential(caller, 20, check);
    await concurrent(caller, 40, 8, check);
    assert.is(times.length, 20, caller.name);
    assert.is(answers.length, 60, caller.name);
    for (const answer of answers) assert.equal(answer, expected, caller.name);
  }
});

test.run();
