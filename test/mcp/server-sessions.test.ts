/**
 * `/mcp` on the HTTP level (issue 34): the same inbound path as every route (bearer check, body limit,
 * Origin check), served only when asked for (`mcp: true`, `MANIFOLD_MCP_ENABLED`), documented in
 * OpenAPI, and its sessions: ended by DELETE, bound to the caller that opened them, closed when idle
 * on a clock the test moves, bounded in number, and not holding up a graceful shutdown.
 */
import { readFileSync } from "node:fs";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { WeatherService } from "../../generated/weather-service/index.js";
import { weatherHandlers } from "../../manifests/travel/handlers/weather.js";
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { createManualClock } from "../support/clock.js";
import { within } from "../support/wait.js";
import { connect, disconnect, INITIALIZE, listIn, openSession, post, QUIET } from "./server-support.js";

const test = suite("/mcp on the HTTP level");

const { mcp: _mcp, ...withoutMcp } = WeatherService.spec;
const serveWeather = (options: Record<string, unknown> = {}, spec: ComponentSpec = WeatherService.spec): Promise<RunningComponent> =>
  serveComponent(spec, { ...QUIET, handlers: weatherHandlers, ...options });

/** Runs `fn` with MANIFOLD_MCP_ENABLED set (it is read when the component starts). */
async function withEnv<T>(value: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env["MANIFOLD_MCP_ENABLED"];
  process.env["MANIFOLD_MCP_ENABLED"] = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env["MANIFOLD_MCP_ENABLED"];
    else process.env["MANIFOLD_MCP_ENABLED"] = before;
  }
}

test("bearer auth applies as on every route: 401 with the challenge without the token, the SDK client refused; served with it", async () => {
  const running = await serveWeather({ auth: { required: true, verify: (token: string) => token === "s3cret" } });
  try {
    const refused = await post(running.url, INITIALIZE);
    assert.is(refused.status, 401);
    assert.is(refused.headers.get("www-authenticate"), "Bearer");
    assert.is(((await refused.json()) as { error: { code: string } }).error.code, "UNAUTHORIZED");
    const wrong = await post(running.url, INITIALIZE, { Authorization: "Bearer guess" });
    assert.is(wrong.status, 401);
    await connect(running.url).then(
      () => assert.unreachable("the client connected without a token"),
      (error: unknown) => {
        assert.is((error as { code?: unknown }).code, 401);
        assert.match(String(error), "UNAUTHORIZED");
      },
    );
    const connected = await connect(running.url, { Authorization: "Bearer s3cret" });
    assert.is((await connected.client.listTools()).tools.length, 2);
    await disconnect(connected);
  } finally {
    await running.close();
  }
});

test("/openapi.json lists /mcp (POST, GET, DELETE), and so does the emitted file of a manifest with mcp: true", async () => {
  const running = await serveWeather({ enableOpenApi: true });
  try {
    const live = (await (await fetch(`${running.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags: string[] }>> };
    assert.equal(Object.keys(live.paths["/mcp"] ?? {}), ["post", "get", "delete"]);
    assert.equal(live.paths["/mcp"]!["post"]!.tags, ["mcp"]);
  } finally {
    await running.close();
  }
  const emitted = JSON.parse(readFileSync("generated/weather-service/openapi.json", "utf8")) as { paths: Record<string, unknown> };
  assert.ok(emitted.paths["/mcp"] !== undefined);
  const geocoding = JSON.parse(readFileSync("generated/geocoding-service/openapi.json", "utf8")) as { paths: Record<string, unknown> };
  assert.is(geocoding.paths["/mcp"], undefined, "a manifest without mcp: true documents no /mcp");
});

test("off unless asked for: 404 without mcp: true; MANIFOLD_MCP_ENABLED=true turns it on, =false off", async () => {
  const off = await serveWeather({ enableOpenApi: true }, withoutMcp);
  try {
    const answer = await post(off.url, INITIALIZE);
    assert.is(answer.status, 404);
    assert.is(((await answer.json()) as { error: { code: string } }).error.code, "NOT_FOUND");
    const doc = (await (await fetch(`${off.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.is(doc.paths["/mcp"], undefined);
  } finally {
    await off.close();
  }
  const on = await withEnv("true", () => serveWeather({}, withoutMcp));
  try {
    await openSession(on.url);
  } finally {
    await on.close();
  }
  const disabled = await withEnv("false", () => serveWeather());
  try {
    assert.is((await post(disabled.url, INITIALIZE)).status, 404);
  } finally {
    await disabled.close();
  }
  await withEnv("sometimes", () => serveWeather()).then(
    (running) => running.close().then(() => assert.unreachable("a malformed flag was accepted")),
    (error: unknown) => assert.match(String(error), "MANIFOLD_MCP_ENABLED must be true or false"),
  );
});

test("DELETE ends a session: a later request naming it is refused 404 as the SDK refuses an unknown session", async () => {
  const running = await serveWeather();
  try {
    const id = await openSession(running.url);
    assert.is((await listIn(running.url, id)).status, 200);
    const ended = await fetch(`${running.url}/mcp`, { method: "DELETE", headers: { "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" } });
    assert.is(ended.status, 200);
    const after = await listIn(running.url, id);
    assert.is(after.status, 404);
    assert.match(after.text, "Session not found");
    // The SDK client's own termination is a DELETE too.
    const connected = await connect(running.url);
    const sessionId = connected.transport.sessionId!;
    await connected.transport.terminateSession();
    assert.is((await listIn(running.url, sessionId)).status, 404);
    await disconnect(connected);
  } finally {
    await running.close();
  }
});

test("a session belongs to the caller that opened it: another token naming its id is told it does not exist", async () => {
  const running = await serveWeather({ auth: { required: true, verify: (token: string) => (token === "a" ? "ann" : token === "b" ? "bob" : false) } });
  try {
    const id = await openSession(running.url, { Authorization: "Bearer a" });
    assert.is((await listIn(running.url, id, { Authorization: "Bearer b" })).status, 404);
    assert.is((await listIn(running.url, id, { Authorization: "Bearer a" })).status, 200);
  } finally {
    await running.close();
  }
});

test("an idle session is closed after the TTL on the component's clock; a used one is kept", async () => {
  const clock = createManualClock();
  const running = await serveWeather({ mcp: { clock, sessionTtlMs: 60_000 } });
  try {
    const idle = await openSession(running.url);
    const used = await openSession(running.url);
    await clock.advance(40_000);
    assert.is((await listIn(running.url, used)).status, 200);
    await clock.advance(30_000);
    assert.is((await listIn(running.url, idle)).status, 404, "idle for 70 s");
    assert.is((await listIn(running.url, used)).status, 200, "used 30 s ago");
    await clock.advance(60_000);
    assert.is((await listIn(running.url, used)).status, 404);
  } finally {
    await running.close();
  }
});

test("sessions are bounded: past maxSessions the least recently used one is closed", async () => {
  const running = await serveWeather({ mcp: { maxSessions: 2 } });
  try {
    const first = await openSession(running.url);
    const second = await openSession(running.url);
    assert.is((await listIn(running.url, first)).status, 200, "first is now the most recently used");
    const third = await openSession(running.url);
    assert.is((await listIn(running.url, second)).status, 404);
    assert.is((await listIn(running.url, first)).status, 200);
    assert.is((await listIn(running.url, third)).status, 200);
  } finally {
    await running.close();
  }
});

test("the component's body limit and Origin check apply: 413 in the envelope, 403 for a foreign page's POST", async () => {
  const running = await serveWeather({ bodyLimit: 256 });
  try {
    const big = await post(running.url, { ...INITIALIZE, params: { ...INITIALIZE.params, padding: "x".repeat(1024) } });
    assert.is(big.status, 413);
    assert.is(((await big.json()) as { error: { code: string } }).error.code, "PAYLOAD_TOO_LARGE");
    const foreign = await post(running.url, INITIALIZE, { Origin: "https://evil.example" });
    assert.is(foreign.status, 403);
    assert.is(foreign.headers.get("access-control-allow-origin"), null);
  } finally {
    await running.close();
  }
});

test("a graceful shutdown does not wait on a session's open event stream", async () => {
  const running = await serveWeather({ drainTimeoutMs: 600_000 });
  const id = await openSession(running.url);
  const stream = await fetch(`${running.url}/mcp`, { headers: { Accept: "text/event-stream", "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" } });
  assert.is(stream.status, 200);
  assert.match(stream.headers.get("content-type") ?? "", "text/event-stream");
  // Without the stream ended on draining, close() would wait out the 10-minute drain.
  await within("close() with an open MCP event stream", running.close());
  await stream.body?.cancel().catch(() => undefined);
});

test.run();
