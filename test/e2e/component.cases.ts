/**
 * The component runtime end to end: the fixture tool runs as a real child process on a free loopback
 * port, and every behaviour is checked over real HTTP, raw and through the typed client. One case
 * suite, run twice (component-generated.test.ts, component-manifest.test.ts): once from generated
 * code, once serving the manifest directly, since both paths must behave the same.
 */
import { request } from "node:http";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { buildOpenApi, capabilitySchema, capabilityWire } from "../../runtime/spec/index.js";
import { json, rawRequest, withTimeout, type RawResponse } from "../runtime/support.js";
import { spec, TripTool } from "./fixtures/trip-tool.js";
import { killAll, startFixture as startAny, type Fixture } from "./helpers.js";

const JSON_TYPE = "application/json; charset=utf-8";
const MiB = 1024 * 1024;
const TRIP = { destination: "Paris", nights: 3, mode: "train", stops: ["Lyon", "Dijon"], budget: { amount: 900, currency: "EUR" } };

export type FixtureSource = "generated" | "manifest";

export function componentCases(source: FixtureSource): void {
  const startFixture = (file: string, env: Record<string, string> = {}) => startAny(file, { FIXTURE_SOURCE: source, ...env });

  const test = suite<{ tool?: Fixture; withOpenApi?: Fixture }>(`component e2e (${source})`, {});

  test.before(async (context) => {
    [context.tool, context.withOpenApi] = await Promise.all([
      startFixture("trip-tool.ts"),
      startFixture("trip-tool.ts", { MANIFOLD_ENABLE_OPENAPI: "true", MANIFOLD_CORS_ORIGINS: "http://example.com" }),
    ]);
  });
  test.after(() => killAll());

  const post = (url: string, body: string | undefined, headers: Record<string, string> = { "content-type": "application/json" }) =>
    rawRequest(url, { method: "POST", headers, ...(body === undefined ? {} : { body }) });

  /** Status, JSON content type and the envelope's code, in one assertion per error response. */
  function assertEnvelope(response: RawResponse, status: number, code: string): { message: string; details?: { pointer: string; message: string }[] } {
    assert.is(response.status, status, response.text);
    assert.is(response.headers["content-type"], JSON_TYPE);
    const body = json(response) as {
      success: boolean;
      error: { code: string; message: string; category: string; retryable: boolean; details?: { pointer: string; message: string }[] };
    };
    assert.is(body.success, false);
    assert.is(body.error.code, code);
    assert.type(body.error.category, "string");
    assert.type(body.error.retryable, "boolean");
    assert.not.match(response.text, /\bat .+:\d+:\d+/, "no stack frames");
    return body.error;
  }

  test("the fixture resolves agent-manifold by its own package name (exports `source` condition)", async ({ tool }) => {
    assert.match(tool!.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    await tool!.waitForLog(/trip-tool listening on http:\/\/127\.0\.0\.1:\d+/);
  });

  test("GET /health", async ({ tool }) => {
    const response = await rawRequest(`${tool!.url}/health`);
    assert.is(response.status, 200);
    assert.is(response.headers["content-type"], JSON_TYPE);
    const body = json(response) as Record<string, unknown>;
    assert.equal({ ...body, id: "" }, { status: "healthy", type: "tool", name: "trip-tool", id: "" });
    assert.match(String(body["id"]), /^trip-tool-[0-9a-f]{8}$/);
  });

  test("GET /api/capabilities lists every capability's wire object", async ({ tool }) => {
    const response = await rawRequest(`${tool!.url}/api/capabilities`);
    assert.is(response.status, 200);
    assert.is(response.headers["content-type"], JSON_TYPE);
    assert.equal(json(response), JSON.parse(JSON.stringify(spec.capabilities.map(capabilityWire))));
  });

  test("a valid call answers 200 with the handler's JSON and echoes or creates the request id", async ({ tool }) => {
    const response = await post(`${tool!.url}/api/capabilities/plan_trip`, JSON.stringify(TRIP), {
      "content-type": "application/json; charset=utf-8",
      "x-manifold-request-id": "trip-1",
    });
    assert.is(response.status, 200);
    assert.is(response.headers["content-type"], JSON_TYPE);
    assert.is(response.headers["x-manifold-request-id"], "trip-1");
    assert.equal(json(response), { summary: "3 nights in Paris by train", legs: 3 });

    const viaFetch = await withTimeout(fetch(`${tool!.url}/api/capabilities/ping`, { method: "POST" }), 10_000, "fetch ping");
    const id = viaFetch.headers.get("x-manifold-request-id") ?? "";
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(await viaFetch.json(), { pong: true, requestId: id }, "the handler saw the same id");
  });

  test("an empty body counts as {}", async ({ tool }) => {
    assert.is((await post(`${tool!.url}/api/capabilities/ping`, undefined, {})).status, 200);
    const error = assertEnvelope(await post(`${tool!.url}/api/capabilities/plan_trip`, ""), 400, "INVALID_INPUT");
    assert.equal(
      error.details?.map((d) => d.pointer),
      ["/destination", "/nights", "/mode"],
    );
  });

  test("400 INVALID_INPUT with one JSON pointer per violation", async ({ tool }) => {
    const url = `${tool!.url}/api/capabilities/plan_trip`;
    const wrongType = assertEnvelope(await post(url, JSON.stringify({ ...TRIP, nights: "three" })), 400, "INVALID_INPUT");
    assert.equal(wrongType.details, [{ pointer: "/nights", message: "must be integer" }]);
    const { mode: _mode, ...noMode } = TRIP;
    const missing = assertEnvelope(await post(url, JSON.stringify(noMode)), 400, "INVALID_INPUT");
    assert.equal(missing.details, [{ pointer: "/mode", message: "is required" }]);
    const unknown = assertEnvelope(await post(url, JSON.stringify({ ...TRIP, pets: 2 })), 400, "INVALID_INPUT");
    assert.equal(unknown.details, [{ pointer: "/pets", message: "is not an allowed property" }]);
    const deep = assertEnvelope(await post(url, JSON.stringify({ ...TRIP, mode: "boat", stops: ["ok", 3], budget: {} })), 400, "INVALID_INPUT");
    assert.equal(deep.details?.map((d) => d.pointer).sort(), ["/budget/amount", "/mode", "/stops/1"]);
  });

  test("400 INVALID_JSON for malformed JSON and non-objects", async ({ tool }) => {
    for (const body of ["{", '{"a":', "[]", '"a string"', "null", "7"]) {
      assertEnvelope(await post(`${tool!.url}/api/capabilities/ping`, body), 400, "INVALID_JSON");
    }
  });

  test("a body nested 2,500 levels deep is 400 INVALID_INPUT before any work, and nothing is logged", async ({ tool }) => {
    const before = tool!.stderr().length;
    const deep = `{"destination":"Paris","nights":1,"mode":"train","budget":${"[".repeat(2500)}${"]".repeat(2500)}}`;
    for (let i = 0; i < 20; i++) {
      const envelope = assertEnvelope(await post(`${tool!.url}/api/capabilities/plan_trip`, deep), 400, "INVALID_INPUT");
      assert.match(envelope.message, /deeper than 64 levels/);
    }
    assert.is(tool!.stderr().slice(before), "", "no stack trace, no log line per request");
  });

  test("415 for a body that is not application/json", async ({ tool }) => {
    for (const type of ["text/plain", "application/xml", "application/json; charset=latin1"]) {
      assertEnvelope(await post(`${tool!.url}/api/capabilities/ping`, "{}", { "content-type": type }), 415, "UNSUPPORTED_MEDIA_TYPE");
    }
    assertEnvelope(await post(`${tool!.url}/api/capabilities/ping`, "{}", {}), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("413 by Content-Length, and the server stays healthy", async ({ tool }) => {
    const body = `{"destination":"${"x".repeat(MiB)}"}`;
    assertEnvelope(await post(`${tool!.url}/api/capabilities/plan_trip`, body), 413, "PAYLOAD_TOO_LARGE");
    assert.is((await rawRequest(`${tool!.url}/health`)).status, 200);
  });

  test("413 for a chunked body once the bytes pass the limit", async ({ tool }) => {
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 0x20));
    assertEnvelope(
      await rawRequest(`${tool!.url}/api/capabilities/ping`, { method: "POST", headers: { "content-type": "application/json" }, chunks }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    assert.is((await rawRequest(`${tool!.url}/health`)).status, 200);
  });

  test("413 reaches a client whose chunked upload never ends; the connection does not hang", async ({ tool }) => {
    const response = await withTimeout(
      new Promise<number>((resolve, reject) => {
        const req = request(`${tool!.url}/api/capabilities/ping`, { method: "POST", headers: { "content-type": "application/json" }, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        });
        req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = (): void => {
          while (!req.destroyed && req.write(chunk));
          if (!req.destroyed) req.once("drain", pump);
        };
        pump();
      }),
      15_000,
      "413 during an endless upload",
    );
    assert.is(response, 413);
    assert.is((await rawRequest(`${tool!.url}/health`)).status, 200);
  });

  test("404 for an unknown route, 405 with Allow for a wrong method, CORS preflight for allowlisted origins only", async ({ tool, withOpenApi }) => {
    assertEnvelope(await rawRequest(`${tool!.url}/nowhere`), 404, "NOT_FOUND");
    assertEnvelope(await post(`${tool!.url}/api/capabilities/nope`, "{}"), 404, "NOT_FOUND");
    // Answered before the large body is read, to a client that asked for Connection: close.
    assertEnvelope(await post(`${tool!.url}/nowhere`, " ".repeat(4 * MiB)), 404, "NOT_FOUND");
    const wrong = await rawRequest(`${tool!.url}/api/capabilities/plan_trip`);
    assertEnvelope(wrong, 405, "METHOD_NOT_ALLOWED");
    assert.is(wrong.headers["allow"], "POST, OPTIONS");
    const postHealth = await post(`${tool!.url}/health`, "{}");
    assertEnvelope(postHealth, 405, "METHOD_NOT_ALLOWED");
    assert.is(postHealth.headers["allow"], "GET, HEAD, OPTIONS");

    // Same-origin by default: another origin's preflight is refused and no answer names an origin.
    const preflightFrom = (at: Fixture) =>
      rawRequest(`${at.url}/api/capabilities/plan_trip`, {
        method: "OPTIONS",
        headers: { origin: "http://example.com", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
    const refused = await preflightFrom(tool!);
    assertEnvelope(refused, 403, "FORBIDDEN");
    assert.is(refused.headers["access-control-allow-origin"], undefined);
    assert.is((await post(`${tool!.url}/api/capabilities/ping`, "{}")).headers["access-control-allow-origin"], undefined);
    // MANIFOLD_CORS_ORIGINS lists it on the other process: echoed, with the methods and headers a browser asks for.
    const preflight = await preflightFrom(withOpenApi!);
    assert.is(preflight.status, 204);
    assert.is(preflight.headers["access-control-allow-origin"], "http://example.com");
    assert.is(preflight.headers["vary"], "Origin");
    assert.is(preflight.headers["access-control-allow-methods"], "GET, POST, PUT, DELETE, OPTIONS");
    assert.is(
      preflight.headers["access-control-allow-headers"],
      "Content-Type, Accept, X-Requested-With, X-User-ID, Authorization, X-Manifold-Request-ID, X-Manifold-Conversation-ID, traceparent, tracestate, baggage",
    );
    const allowed = await post(`${withOpenApi!.url}/api/capabilities/ping`, "{}", { "content-type": "application/json", origin: "http://example.com" });
    assert.is(allowed.headers["access-control-allow-origin"], "http://example.com");
  });

  test("GET /api/capabilities/{name}/schema: the draft-07 input schema, 404 without an input summary", async ({ tool }) => {
    const present = await rawRequest(`${tool!.url}/api/capabilities/plan_trip/schema`);
    assert.is(present.status, 200);
    assert.is(present.headers["content-type"], JSON_TYPE);
    assert.equal(json(present), capabilitySchema(spec.capabilities[0]!, "input", "PlanTripInput"));
    assertEnvelope(await rawRequest(`${tool!.url}/api/capabilities/ping/schema`), 404, "NOT_FOUND");
    assertEnvelope(await rawRequest(`${tool!.url}/api/capabilities/unknown/schema`), 404, "NOT_FOUND");
  });

  test("/openapi.json is off by default", async ({ tool }) => {
    assertEnvelope(await rawRequest(`${tool!.url}/openapi.json`), 404, "NOT_FOUND");
  });

  test("/openapi.json with MANIFOLD_ENABLE_OPENAPI=true reflects forwarded headers, and ignores hostile ones", async ({ withOpenApi }) => {
    const url = `${withOpenApi!.url}/openapi.json`;
    const proxied = await rawRequest(url, {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "tools.example.com", "x-forwarded-prefix": "trips/v1/" },
    });
    assert.is(proxied.status, 200);
    assert.is(proxied.headers["content-type"], JSON_TYPE);
    assert.equal(json(proxied), buildOpenApi(spec, { servers: ["https://tools.example.com/trips/v1"], auth: "none" }));

    const direct = json(await rawRequest(url)) as { servers: { url: string }[] };
    assert.is(direct.servers[0]?.url, withOpenApi!.url);
    const hostile = json(await rawRequest(url, { headers: { "x-forwarded-host": 'evil.com"/><script>', "x-forwarded-prefix": "/../../x y" } })) as {
      servers: { url: string }[];
    };
    assert.is(hostile.servers[0]?.url, withOpenApi!.url, "falls back to Host");
  });

  test("a throwing handler: 500 INTERNAL without internals, logged once, and the next call succeeds", async ({ tool }) => {
    const response = await post(`${tool!.url}/api/capabilities/explode`, JSON.stringify({ secret: "s3cr3t-value" }));
    const error = assertEnvelope(response, 500, "INTERNAL");
    assert.is(error.message, "internal error");
    for (const leak of ["kaboom", "s3cr3t", "Error", "stack", ".ts"]) assert.not.ok(response.text.includes(leak), leak);
    await tool!.waitForLog(/kaboom: s3cr3t-value/);
    assert.is(tool!.stderr().split("kaboom").length - 1, 1, "logged exactly once");
    assert.is((await post(`${tool!.url}/api/capabilities/plan_trip`, JSON.stringify(TRIP))).status, 200);
  });

  test("the typed client: results, and envelopes as ManifoldErrors", async ({ tool }) => {
    const client = TripTool.client({ baseUrl: tool!.url });
    assert.equal(await client.planTrip({ destination: "Rome", nights: 2, mode: "plane" }), { summary: "2 nights in Rome by plane", legs: 1 });
    const pong = await client.ping({}, { headers: { "X-Manifold-Request-ID": "client-1" } });
    assert.equal(pong, { pong: true, requestId: "client-1" });
    try {
      await client.planTrip({ destination: "Rome", nights: 1.5, mode: "plane", extra: 1 } as never);
      assert.unreachable("should have thrown");
    } catch (error) {
      assert.instance(error, ManifoldError);
      const e = error as ManifoldError;
      assert.is(e.code, "INVALID_INPUT");
      assert.is(e.status, 400);
      assert.equal(e.details?.map((d) => d.pointer).sort(), ["/extra", "/nights"]);
    }
    try {
      await client.explode({ secret: "x" });
      assert.unreachable("should have thrown");
    } catch (error) {
      assert.instance(error, ManifoldError);
      assert.is((error as ManifoldError).code, "INTERNAL");
      assert.is((error as ManifoldError).message, "internal error");
    }
    const slow = await client.slowEcho({ ms: 10, text: "hi" });
    assert.equal(slow, { text: "hi", aborted: false });
  });

  test("SIGTERM during a slow request: it completes with 200, new connections are refused, exit code 0", async () => {
    const tool = await startFixture("trip-tool.ts");
    const client = TripTool.client({ baseUrl: tool.url, timeoutMs: 15_000 });
    const slow = client.slowEcho({ ms: 800, text: "still here" });
    await tool.waitFor((e) => e["event"] === "slow-started");
    tool.child.kill("SIGTERM");
    await tool.waitForLog(/trip-tool shutting down/);
    const refused = await fetch(`${tool.url}/health`).then(
      () => "answered",
      () => "refused",
    );
    assert.is(refused, "refused");
    assert.equal(await withTimeout(slow, 10_000, "slow call"), { text: "still here", aborted: false });
    assert.is(await withTimeout(tool.exited, 10_000, "exit"), 0);
    assert.match(tool.stderr(), /trip-tool stopped/);
  });

  test("SIGTERM with two components in one process: both drain before the process exits", async () => {
    const tools = await startFixture("two-trip-tools.ts");
    const urls = (await tools.waitFor((e) => e["event"] === "listening"))["urls"] as string[];
    const calls = urls.map((baseUrl, i) => TripTool.client({ baseUrl, timeoutMs: 15_000 }).slowEcho({ ms: 600 + 300 * i, text: `tool ${i}` }));
    await tools.waitFor((e) => e["event"] === "slow-started" && e["text"] === "tool 0");
    await tools.waitFor((e) => e["event"] === "slow-started" && e["text"] === "tool 1");
    tools.child.kill("SIGTERM");
    assert.equal(await withTimeout(Promise.all(calls), 10_000, "both slow calls"), [
      { text: "tool 0", aborted: false },
      { text: "tool 1", aborted: false },
    ]);
    assert.is(await withTimeout(tools.exited, 10_000, "exit"), 0);
    assert.is(tools.stderr().split("trip-tool stopped").length - 1, 2);
  });

  test("the fixture runs from the expected source", async ({ tool }) => {
    const listening = await tool!.waitFor((e) => e["event"] === "listening");
    assert.is(listening["source"], source);
  });

  test.run();
}
