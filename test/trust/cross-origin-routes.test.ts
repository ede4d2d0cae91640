/**
 * Same-origin by default (issue 32, H1 and L4), route by route on real loopback servers: no response
 * carries `Access-Control-Allow-Origin` unless its Origin is allowlisted (`MANIFOLD_CORS_ORIGINS` or
 * `corsOrigins`), a preflight is answered only for such an origin, a state-changing request from
 * another origin is refused 403 before any handler runs (on the node:http fast path and through Koa),
 * and a loopback-bound component or dashboard serves only loopback Host names, IP literals and the
 * names in `MANIFOLD_ALLOWED_HOSTS` / `allowedHosts` (DNS rebinding).
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { openRouteStream, sendJson, type ComponentExtension } from "../../runtime/component/index.js";
import { serveComponentWith } from "../../runtime/component/serve.js";
import type { ComponentOptions, RunningComponent } from "../../runtime/component/types.js";
import { serveDashboard } from "../../runtime/dashboard/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { comparable, rawRequest, type RawResponse } from "../runtime/support.js";

const spec = toolSpec(tool("trust-tool", { capabilities: { charge: { input: { amount: "number" } } } }));
type Caps = { charge: { input: { amount: number }; output: unknown } };

/** Every handler that ran, in order: a refused request must leave nothing here. */
const ran: string[] = [];
const handlers = {
  charge: ({ amount }: { amount: number }) => {
    ran.push(`charge ${amount}`);
    return { amount };
  },
};

const extension: ComponentExtension = {
  name: "trust",
  routes(add, { post }) {
    add("GET", "/ext/list", (ctx) => sendJson(ctx, 200, '{"items":[]}'));
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      add(method, "/ext/item", (ctx) => {
        ran.push(`${method} item`);
        sendJson(ctx, 200, "{}");
      });
    }
    add("GET", "/ext/stream", (ctx) => {
      const { stream, end } = openRouteStream(ctx, { heartbeatMs: 60_000, requestId: "stream-1" });
      stream.send("hello", { a: 1 });
      end();
    });
    post("/ext/post", () => {
      ran.push("post");
      return {};
    });
  },
};

const EVIL = "http://evil.example";
const APP = "http://localhost:5173";
const JSON_TYPE = { "content-type": "application/json" };

const base: ComponentOptions<Caps> = { port: 0, handleSignals: false, log: () => undefined, handlers, extensions: [extension], registry: false };
const serve = (options: Partial<ComponentOptions<Caps>> = {}, fastPath = true): Promise<RunningComponent> =>
  serveComponentWith<Caps>(spec, { ...base, ...options }, { fastPath });

const running: RunningComponent[] = [];
async function both(options: Partial<ComponentOptions<Caps>> = {}): Promise<RunningComponent[]> {
  const pair = [await serve(options, true), await serve(options, false)];
  running.push(...pair);
  return pair;
}

const charge = (url: string, headers: Record<string, string> = {}, amount = 1): Promise<RawResponse> =>
  rawRequest(`${url}/api/capabilities/charge`, { method: "POST", headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify({ amount }) });

function assertForbidden(response: RawResponse, message: RegExp, what: string): void {
  assert.is(response.status, 403, `${what}: ${response.text}`);
  const body = JSON.parse(response.text);
  assert.is(body.success, false, what);
  assert.is(body.error.code, "FORBIDDEN", what);
  assert.match(body.error.message, message, what);
  assert.is(response.headers["access-control-allow-origin"], undefined, what);
}

const test = suite("trust: CORS allowlist, Origin and Host checks");

test.after(async () => {
  await Promise.all(running.map((r) => r.close()));
  delete process.env["MANIFOLD_CORS_ORIGINS"];
  delete process.env["MANIFOLD_ALLOWED_HOSTS"];
});

test("by default no answer carries Access-Control-Allow-Origin: JSON, error envelope, SSE, preflight", async () => {
  for (const component of await both()) {
    const own = { origin: component.url };
    const answers: [string, RawResponse][] = [
      ["capability POST", await charge(component.url, own)],
      ["capabilities GET", await rawRequest(`${component.url}/api/capabilities`, { headers: { origin: EVIL } })],
      ["extension GET", await rawRequest(`${component.url}/ext/list`, { headers: { origin: EVIL } })],
      ["404 envelope", await rawRequest(`${component.url}/nowhere`, { headers: { origin: EVIL } })],
      ["400 envelope", await rawRequest(`${component.url}/api/capabilities/charge`, { method: "POST", headers: { ...JSON_TYPE, ...own }, body: "{nope" })],
      ["SSE stream", await rawRequest(`${component.url}/ext/stream`, { headers: { origin: EVIL } })],
    ];
    for (const [what, response] of answers) {
      assert.ok(response.status < 500, `${what}: ${response.status}`);
      assert.is(response.headers["access-control-allow-origin"], undefined, what);
    }
    assert.match(answers[5]![1].text, /event: hello/);

    const preflight = await rawRequest(`${component.url}/api/capabilities/charge`, {
      method: "OPTIONS",
      headers: { origin: EVIL, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    assertForbidden(preflight, /origin .* not allowed/i, "preflight");
    assert.is(preflight.headers["access-control-allow-methods"], undefined);
    assert.is(preflight.headers["access-control-allow-headers"], undefined);
    // An OPTIONS that is not a browser's preflight (no Origin) still answers Allow.
    const plain = await rawRequest(`${component.url}/api/capabilities/charge`, { method: "OPTIONS" });
    assert.is(plain.status, 204);
    assert.is(plain.headers["allow"], "POST, OPTIONS");
  }
});

test("a state-changing request from another origin is refused 403 FORBIDDEN before any handler runs", async () => {
  for (const component of await both()) {
    ran.length = 0;
    const writes: [string, RawResponse][] = [
      ["capability POST", await charge(component.url, { origin: EVIL }, 99_999_999)],
      ["extension fast POST", await rawRequest(`${component.url}/ext/post`, { method: "POST", headers: { ...JSON_TYPE, origin: EVIL }, body: "{}" })],
      ["opaque origin", await charge(component.url, { origin: "null" }, 99_999_999)],
      ...(await Promise.all(
        ["PUT", "PATCH", "DELETE"].map(
          async (method): Promise<[string, RawResponse]> => [method, await rawRequest(`${component.url}/ext/item`, { method, headers: { origin: EVIL } })],
        ),
      )),
    ];
    for (const [what, response] of writes) assertForbidden(response, /other origins? .*not accepted/i, what);
    assert.equal(ran, [], "no handler ran");

    // Without an Origin (curl, a server) or from the component's own origin, writes go through.
    assert.is((await charge(component.url)).status, 200);
    assert.is((await charge(component.url, { origin: component.url })).status, 200);
    assert.is((await rawRequest(`${component.url}/ext/item`, { method: "PUT", headers: { origin: component.url } })).status, 200);
    assert.equal(ran, ["charge 1", "charge 1", "PUT item"]);
  }
});

test("an allowlisted origin (option, else MANIFOLD_CORS_ORIGINS) is echoed with Vary: Origin, preflighted and may write; others may not", async () => {
  process.env["MANIFOLD_CORS_ORIGINS"] = " https://env.example.com , http://127.0.0.1:9 ";
  const fromEnv = await both();
  const fromOption = await both({ corsOrigins: [APP] });
  delete process.env["MANIFOLD_CORS_ORIGINS"];
  const cases: [RunningComponent, string][] = [
    ...fromEnv.map((c): [RunningComponent, string] => [c, "https://env.example.com"]),
    ...fromOption.map((c): [RunningComponent, string] => [c, APP]),
  ];
  for (const [component, origin] of cases) {
    ran.length = 0;
    const written = await charge(component.url, { origin });
    assert.is(written.status, 200, written.text);
    assert.is(written.headers["access-control-allow-origin"], origin);
    assert.match(String(written.headers["vary"]), /Origin/);
    const read = await rawRequest(`${component.url}/ext/list`, { headers: { origin } });
    assert.is(read.headers["access-control-allow-origin"], origin);
    const stream = await rawRequest(`${component.url}/ext/stream`, { headers: { origin } });
    assert.is(stream.headers["access-control-allow-origin"], origin, "the SSE stream too");
    const missing = await rawRequest(`${component.url}/nowhere`, { headers: { origin } });
    assert.is(missing.status, 404);
    assert.is(missing.headers["access-control-allow-origin"], origin, "an error envelope too, so the page can read why");

    const preflight = await rawRequest(`${component.url}/ext/item`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": "content-type, authorization" },
    });
    assert.is(preflight.status, 204);
    assert.is(preflight.headers["access-control-allow-origin"], origin);
    assert.match(String(preflight.headers["access-control-allow-methods"]), /PUT/);
    assert.match(String(preflight.headers["access-control-allow-headers"]), /Authorization/);

    const other = await charge(component.url, { origin: EVIL });
    assertForbidden(other, /not accepted/, "an origin not on the list");
    const otherRead = await rawRequest(`${component.url}/ext/list`, { headers: { origin: EVIL } });
    assert.is(otherRead.headers["access-control-allow-origin"], undefined);
    assert.equal(ran, ["charge 1"]);
  }
  // With a list, the fast path and the Koa path still answer byte for byte the same (CORS headers first).
  const [fast, koa] = fromOption;
  for (const origin of [APP, EVIL, undefined]) {
    for (const body of ['{"amount":2}', "{nope"]) {
      const sent = { method: "POST", headers: { ...JSON_TYPE, "x-manifold-request-id": "same", ...(origin === undefined ? {} : { origin }) }, body };
      const [a, b] = await Promise.all([rawRequest(`${fast!.url}/api/capabilities/charge`, sent), rawRequest(`${koa!.url}/api/capabilities/charge`, sent)]);
      assert.equal(comparable(a), comparable(b), `${origin} ${body}`);
    }
  }
  // The option replaces the environment's list rather than adding to it.
  process.env["MANIFOLD_CORS_ORIGINS"] = "https://env.example.com";
  const overridden = await serve({ corsOrigins: [APP] });
  running.push(overridden);
  delete process.env["MANIFOLD_CORS_ORIGINS"];
  assert.is(
    (await rawRequest(`${overridden.url}/ext/list`, { headers: { origin: "https://env.example.com" } })).headers["access-control-allow-origin"],
    undefined,
  );
});

/** Imported where used, so the suites above run (and fail for their own reasons) where trust.ts does not exist yet. */
const trust = () => import("../../runtime/component/trust.js");

test("a malformed allowlist fails at start-up naming its source; * is refused", async () => {
  const { resolveAllowedHosts, resolveCorsOrigins } = await trust();
  assert.equal(resolveCorsOrigins(undefined, {}), []);
  assert.equal(resolveCorsOrigins(undefined, { MANIFOLD_CORS_ORIGINS: "http://localhost:5173,https://app.example.com" }), [
    "http://localhost:5173",
    "https://app.example.com",
  ]);
  assert.throws(() => resolveCorsOrigins(undefined, { MANIFOLD_CORS_ORIGINS: "*" }), /MANIFOLD_CORS_ORIGINS.*"\*" is not accepted/);
  assert.throws(
    () => resolveCorsOrigins(undefined, { MANIFOLD_CORS_ORIGINS: "http://a.example/" }),
    /MANIFOLD_CORS_ORIGINS.*"http:\/\/a\.example\/" is not an origin/,
  );
  assert.throws(() => resolveCorsOrigins(undefined, { MANIFOLD_CORS_ORIGINS: "localhost:5173" }), /is not an origin/);
  assert.throws(() => resolveCorsOrigins(["ftp://files.example"], {}), /corsOrigins.*is not an origin/);
  assert.throws(() => resolveAllowedHosts(undefined, { MANIFOLD_ALLOWED_HOSTS: "*" }), /MANIFOLD_ALLOWED_HOSTS.*"\*" is not accepted/);
  assert.throws(() => resolveAllowedHosts(["http://app.example.com"], {}), /allowedHosts.*is not a host name/);
  assert.equal(resolveAllowedHosts(undefined, { MANIFOLD_ALLOWED_HOSTS: "App.Example.com, api.example.com" }), ["app.example.com", "api.example.com"]);
  let error: unknown;
  try {
    running.push(await serve({ corsOrigins: ["*"] }));
  } catch (caught) {
    error = caught;
  }
  assert.instance(error, RangeError);
});

test("a loopback-bound component serves loopback Host names, IP literals and the allowed hosts only", async () => {
  for (const component of await both({ allowedHosts: ["app.example.com"] })) {
    const { port } = component;
    ran.length = 0;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      "localhost",
      `[::1]:${port}`,
      "LOCALHOST",
      "10.1.2.3:80",
      "app.example.com",
      "APP.example.com:443",
    ]) {
      const response = await rawRequest(`${component.url}/ext/list`, { headers: { host } });
      assert.is(response.status, 200, `${host}: ${response.text}`);
    }
    for (const host of ["evil.example", `evil.example:${port}`, "localhost.evil.example", "app.example.com.evil.example"]) {
      assertForbidden(await rawRequest(`${component.url}/ext/list`, { headers: { host } }), /^Host ".*" is not served here/, host);
      assertForbidden(await charge(component.url, { host }), /is not served here/, `${host} POST`);
    }
    assert.equal(ran, [], "no handler ran for a refused Host");
  }
  process.env["MANIFOLD_ALLOWED_HOSTS"] = "env.example.com";
  const fromEnv = await serve();
  running.push(fromEnv);
  delete process.env["MANIFOLD_ALLOWED_HOSTS"];
  assert.is((await rawRequest(`${fromEnv.url}/ext/list`, { headers: { host: "env.example.com" } })).status, 200);
  assert.is((await rawRequest(`${fromEnv.url}/ext/list`, { headers: { host: "evil.example" } })).status, 403);
});

test("bound to every interface: any Host without a list (public names are unknown), only the list's and loopback's with one", async () => {
  const { createTrustCheck } = await trust();
  const request = (host: string, method = "GET", origin?: string) =>
    ({ method, headers: { host, ...(origin === undefined ? {} : { origin }) } }) as unknown as import("node:http").IncomingMessage;
  const open = createTrustCheck({ corsOrigins: [], allowedHosts: [], boundHost: "0.0.0.0" });
  assert.is(open(request("anything.example")), undefined);
  assert.is(open(request("anything.example", "POST", "http://anything.example")), undefined, "its own origin");
  assert.is(open(request("anything.example", "POST", EVIL))?.code, "FORBIDDEN");
  const listed = createTrustCheck({ corsOrigins: [], allowedHosts: ["app.example.com"], boundHost: "::" });
  assert.is(listed(request("app.example.com")), undefined);
  assert.is(listed(request("10.0.0.7:8080")), undefined, "a probe addressing the pod IP");
  assert.is(listed(request("localhost:8080")), undefined);
  assert.is(listed(request("anything.example"))?.code, "FORBIDDEN");
  // A name listed fully qualified (trailing dot) is the same host as the one clients send, either way round.
  const { resolveAllowedHosts } = await trust();
  const qualified = createTrustCheck({ corsOrigins: [], allowedHosts: resolveAllowedHosts(["app.example.com."], {}), boundHost: "::" });
  assert.is(qualified(request("app.example.com:443")), undefined);
  assert.is(qualified(request("app.example.com.")), undefined);
  assert.is(listed(request("app.example.com.:443")), undefined);
  assert.is(qualified(request("app.example.com.evil.example"))?.code, "FORBIDDEN");
  const loopback = createTrustCheck({ corsOrigins: [], allowedHosts: [], boundHost: "localhost" });
  assert.is(loopback(request("evil.example"))?.code, "FORBIDDEN");
  assert.is(loopback(request("127.0.0.1:1"))?.code, undefined);
});

test("the dashboard: same Host rule, no CORS by default, commands from another origin refused 403", async () => {
  const dashboard = await serveDashboard({ port: 0, handleSignals: false, log: () => undefined, env: {} });
  const listed = await serveDashboard({ port: 0, handleSignals: false, log: () => undefined, env: { MANIFOLD_ALLOWED_HOSTS: "dash.example.com" } });
  try {
    const config = await rawRequest(`${dashboard.url}/api/config`, { headers: { origin: EVIL } });
    assert.is(config.status, 200);
    assert.is(config.headers["access-control-allow-origin"], undefined);
    const services = await rawRequest(`${dashboard.url}/api/services`, { headers: { origin: EVIL } });
    assert.is(services.headers["access-control-allow-origin"], undefined);
    assertForbidden(await rawRequest(`${dashboard.url}/api/config`, { headers: { host: "evil.example" } }), /is not served here/, "rebound Host");
    assertForbidden(await rawRequest(`${dashboard.url}/`, { headers: { host: `evil.example:${dashboard.port}` } }), /is not served here/, "the page itself");
    assert.is((await rawRequest(`${dashboard.url}/api/config`, { headers: { host: `localhost:${dashboard.port}` } })).status, 200);
    const command = await rawRequest(`${dashboard.url}/api/hitl/command`, {
      method: "POST",
      headers: { ...JSON_TYPE, origin: EVIL },
      body: JSON.stringify({ checkpoint_id: "cp-0123456789abcdef0123456789abcdef", action: "approve" }),
    });
    assertForbidden(command, /not accepted/, "cross-origin command");
    assert.is((await rawRequest(`${listed.url}/api/config`, { headers: { host: "dash.example.com" } })).status, 200);
    assert.is((await rawRequest(`${listed.url}/api/config`, { headers: { host: "evil.example" } })).status, 403);
  } finally {
    await Promise.all([dashboard.close(), listed.close()]);
  }
});

test.run();
