/**
 * `/mcp` for browsers and dropped connections (issue 34): the CORS preflight allows the MCP headers
 * for an allowlisted origin only and the session id is readable there; a call answered at once is
 * one JSON body, a long one becomes an event stream a client can resume with `Last-Event-ID` on GET
 * after its connection dropped, within its own session only. Raw requests, a clock the test moves.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import { serveComponent } from "../../runtime/component/index.js";
import { createManualClock } from "../support/clock.js";
import { eventually, within } from "../support/wait.js";
import { INITIALIZE, post, QUIET } from "./server-support.js";

const test = suite("/mcp: CORS and resumability");

const APP = "http://app.example";
const LATEST = "2025-11-25";
const CALL = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "get_current_weather", arguments: { lat: 48.85, lon: 2.35 } } };

/** A session opened at protocol `version`; the headers its later requests carry. */
async function open(url: string, version: string, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const answer = await post(url, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } }, headers);
  await answer.text();
  const session = { ...headers, "Mcp-Session-Id": answer.headers.get("mcp-session-id") ?? "", "Mcp-Protocol-Version": version };
  await (await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  return session;
}

function preflight(url: string, origin: string): Promise<Response> {
  const headers = {
    Origin: origin,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "mcp-session-id, mcp-protocol-version, last-event-id",
  };
  return within("a preflight", fetch(`${url}/mcp`, { method: "OPTIONS", headers }));
}

test("CORS: an allowlisted origin's preflight allows the MCP headers (no token needed) and reads Mcp-Session-Id; any other origin is refused", async () => {
  const running = await serveComponent(WeatherService.spec, {
    ...QUIET,
    handlers: weatherHandlers,
    mcp: true,
    corsOrigins: [APP],
    auth: { required: true, verify: (token: string) => token === "s3cret" },
  });
  try {
    const allowed = await preflight(running.url, APP);
    assert.is(allowed.status, 204);
    assert.is(allowed.headers.get("access-control-allow-origin"), APP);
    const headers = (allowed.headers.get("access-control-allow-headers") ?? "").split(", ");
    for (const name of ["Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID", "Authorization", "Content-Type"]) assert.ok(headers.includes(name), name);
    assert.match(allowed.headers.get("access-control-allow-methods") ?? "", "DELETE");

    const other = await preflight(running.url, "http://evil.example");
    assert.is(other.status, 403);
    assert.is(other.headers.get("access-control-allow-origin"), null);
    assert.is(other.headers.get("access-control-allow-headers"), null);

    const opened = await post(running.url, INITIALIZE, { Origin: APP, Authorization: "Bearer s3cret" });
    assert.is(opened.status, 200);
    assert.is(opened.headers.get("access-control-allow-origin"), APP);
    assert.match(opened.headers.get("access-control-expose-headers") ?? "", "Mcp-Session-Id");
    assert.ok(opened.headers.get("mcp-session-id"));
    await opened.text();
    const refused = await post(running.url, INITIALIZE, { Origin: "http://evil.example", Authorization: "Bearer s3cret" });
    assert.is(refused.status, 403);
    assert.is(refused.headers.get("access-control-allow-origin"), null);
  } finally {
    await running.close();
  }
});

test("a component without a CORS allowlist answers no browser preflight for /mcp", async () => {
  const running = await serveComponent(WeatherService.spec, { ...QUIET, handlers: weatherHandlers, mcp: true });
  try {
    const answer = await preflight(running.url, APP);
    assert.is(answer.status, 403);
    assert.is(answer.headers.get("access-control-allow-headers"), null);
  } finally {
    await running.close();
  }
});

test("a call answered at once is one JSON body; a long one streams, and after its connection dropped a GET with Last-Event-ID gets the result it missed", async () => {
  const clock = createManualClock();
  let release: () => void = () => {};
  let started = 0;
  const handlers = {
    ...weatherHandlers,
    getCurrentWeather: async (...args: Parameters<typeof weatherHandlers.getCurrentWeather>) => {
      started += 1;
      if (started > 1) await new Promise<void>((resolve) => (release = resolve));
      return weatherHandlers.getCurrentWeather(...args);
    },
  };
  const running = await WeatherService.serve({ ...QUIET, handlers, mcp: { enabled: true, clock, streamAfterMs: 1000 } });
  try {
    const session = await open(running.url, LATEST);
    const quick = await post(running.url, CALL, session);
    assert.match(quick.headers.get("content-type") ?? "", "application/json");
    const expected = ((await quick.json()) as { result: { structuredContent: unknown } }).result.structuredContent;

    const dropped = new AbortController();
    const pending = fetch(`${running.url}/mcp`, {
      method: "POST",
      headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json", ...session },
      body: JSON.stringify({ ...CALL, id: 8 }),
      signal: dropped.signal,
    });
    await eventually("the long call to start", () => started === 2);
    await clock.advance(1000);
    const stream = await within("the stream to open", pending);
    assert.match(stream.headers.get("content-type") ?? "", "text/event-stream");
    const first = new TextDecoder().decode((await within("the priming event", stream.body!.getReader().read())).value);
    const lastEventId = /^id: (.+)$/m.exec(first)?.[1];
    assert.ok(lastEventId, first);
    dropped.abort();
    release();

    const elsewhere = await open(running.url, LATEST);
    const stranger = await within(
      "a GET",
      fetch(`${running.url}/mcp`, { headers: { Accept: "text/event-stream", ...elsewhere, "Last-Event-ID": lastEventId } }),
    );
    assert.is(stranger.status, 400, "another session cannot replay this one's stream");
    await stranger.text();

    const resumed = await within(
      "the resumed stream",
      fetch(`${running.url}/mcp`, { headers: { Accept: "text/event-stream", ...session, "Last-Event-ID": lastEventId } }),
    );
    assert.is(resumed.status, 200);
    const text = await within("the replay to end", resumed.text());
    const data = text.split("\n").find((line) => line.startsWith("data: {"));
    const message = JSON.parse(data!.slice(6)) as { id: number; result: { structuredContent: unknown } };
    assert.is(message.id, 8);
    assert.equal(message.result.structuredContent, expected);
  } finally {
    release();
    await running.close();
  }
});

test.run();
