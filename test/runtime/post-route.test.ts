/**
 * An extension's fast POST route (`ExtensionContext.post`, what `/api/v1/scheduled` uses): served on
 * the node:http fast path like a capability call, it must answer exactly what the same route answers
 * through Koa, keep the bearer check, the request scope (forwarded token), 405/CORS of the route
 * table, and abort its work's signal when the client hangs up.
 */
import { request } from "node:http";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { jsonReply, type ComponentExtension, type PostContext } from "../../runtime/component/index.js";
import { serveComponentWith } from "../../runtime/component/serve.js";
import type { RunningComponent } from "../../runtime/component/types.js";
import { currentScope } from "../../runtime/context/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { comparable, rawRequest, withTimeout } from "./support.js";

// A manifest needs a capability (MF1207); `ping` is one no test calls, beside the extension's routes.
const spec = toolSpec(tool("post-tool", { description: "fast routes", capabilities: { ping: {} } }));
const handlers = { ping: () => ({}) };

const seen: { context?: PostContext; started?: () => void } = {};

const extension: ComponentExtension = {
  name: "fast",
  routes(_add, { post }) {
    post("/ext/echo", (body, { requestId }) => ({ body, requestId }));
    post("/ext/accepted", async (body) => jsonReply(202, { queued: body }));
    post("/ext/refuse", () => {
      throw new ManifoldError("CONFLICT", "taken", { details: [{ pointer: "/x", message: "in use" }] });
    });
    post("/ext/fail", () => {
      throw new TypeError("secret internals");
    });
    post(
      "/ext/token",
      () => {
        const forwarded = currentScope()?.forwarded;
        const tenant = [...(forwarded?.headers() ?? [])].find(([name]) => name.toLowerCase() === "x-tenant");
        return { token: forwarded?.token ?? null, header: tenant?.[1] ?? null };
      },
      { forward: { headers: ["x-tenant"] } },
    );
    post(
      "/ext/wait",
      (_body, context) =>
        new Promise((resolve) => {
          seen.context = context;
          seen.started?.();
          context.signal.addEventListener("abort", () => resolve({ reason: (context.signal.reason as ManifoldError).code }), { once: true });
        }),
    );
  },
};

const test = suite<{ fast?: RunningComponent; koa?: RunningComponent }>("fast POST routes", {});
const logs: string[] = [];

test.before(async (context) => {
  const options = { port: 0, handleSignals: false, log: (m: string) => logs.push(m), handlers, extensions: [extension] };
  context.fast = await serveComponentWith(spec, options, { fastPath: true });
  context.koa = await serveComponentWith(spec, options, { fastPath: false });
});
test.after(async ({ fast, koa }) => {
  await Promise.all([fast?.close(), koa?.close()]);
});

const JSON_TYPE = { "content-type": "application/json" };
const CASES: readonly [string, Record<string, string>, string | undefined][] = [
  ["valid", JSON_TYPE, '{"a":1}'],
  ["invalid-json", JSON_TYPE, "{nope"],
  ["array", JSON_TYPE, "[]"],
  ["media-type", { "content-type": "text/plain" }, "{}"],
  ["too-large", JSON_TYPE, `{"a":"${"x".repeat(1024 * 1024)}"}`],
  ["too-deep", JSON_TYPE, `${'{"a":'.repeat(100)}1${"}".repeat(100)}`],
  ["proto-key", JSON_TYPE, '{"__proto__":{"polluted":true}}'],
  ["no-body", {}, undefined],
];

test("the fast path and the Koa path answer byte for byte the same", async ({ fast, koa }) => {
  for (const [name, headers, body] of CASES) {
    for (const path of ["/ext/echo", "/ext/accepted", "/ext/refuse", "/ext/fail"]) {
      const sent = { method: "POST", headers: { ...headers, "x-manifold-request-id": `case-${name}` }, ...(body === undefined ? {} : { body }) };
      const [a, b] = await Promise.all([rawRequest(fast!.url + path, sent), rawRequest(koa!.url + path, sent)]);
      assert.equal(comparable(a), comparable(b), `${name} ${path}`);
      assert.is(a.headers["x-manifold-request-id"], `case-${name}`);
    }
  }
});

test("answers: the work's JSON, a jsonReply's status, a ManifoldError's envelope, a bare INTERNAL for anything else", async ({ fast }) => {
  const post = (path: string) => rawRequest(fast!.url + path, { method: "POST", headers: JSON_TYPE, body: '{"a":1}' });
  const echo = await post("/ext/echo");
  assert.is(echo.status, 200);
  assert.equal(JSON.parse(echo.text), { body: { a: 1 }, requestId: echo.headers["x-manifold-request-id"] });
  const accepted = await post("/ext/accepted");
  assert.is(accepted.status, 202);
  assert.equal(JSON.parse(accepted.text), { queued: { a: 1 } });
  const refused = await post("/ext/refuse");
  assert.is(refused.status, 409);
  assert.equal(JSON.parse(refused.text), new ManifoldError("CONFLICT", "taken", { details: [{ pointer: "/x", message: "in use" }] }).toEnvelope());
  logs.length = 0;
  const failed = await post("/ext/fail");
  assert.is(failed.status, 500);
  assert.not.match(failed.text, "secret");
  assert.is(logs.filter((line) => line.includes("secret internals")).length, 1, "logged once, server side");
  const deep = await rawRequest(`${fast!.url}/ext/echo`, { method: "POST", headers: JSON_TYPE, body: CASES.find(([n]) => n === "too-deep")![2]! });
  assert.is(deep.status, 400);
  // A `__proto__` key is an own data property of the parsed body (the work validates what it takes), never a prototype.
  const proto = await rawRequest(`${fast!.url}/ext/echo`, { method: "POST", headers: JSON_TYPE, body: '{"__proto__":{"polluted":true}}' });
  assert.equal(JSON.parse(proto.text).body, JSON.parse('{"__proto__":{"polluted":true}}'));
  assert.is(({} as Record<string, unknown>)["polluted"], undefined);
});

test("a Content-Length written with leading zeros reads the body to that length, on both paths", async ({ fast, koa }) => {
  for (const running of [fast!, koa!]) {
    const body = '{"n":1}';
    const response = await rawRequest(`${running.url}/ext/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": `000${body.length}` },
      body,
    });
    assert.is(response.status, 200, response.text);
    assert.equal(JSON.parse(response.text).body, { n: 1 });
  }
});

test("the route table still owns other methods: GET is 405 with Allow, OPTIONS is the CORS preflight", async ({ fast }) => {
  const get = await rawRequest(`${fast!.url}/ext/echo`);
  assert.is(get.status, 405);
  assert.is(get.headers["allow"], "POST, OPTIONS");
  assert.is(JSON.parse(get.text).error.code, "METHOD_NOT_ALLOWED");
  const preflight = await rawRequest(`${fast!.url}/ext/echo`, { method: "OPTIONS" });
  assert.is(preflight.status, 204);
});

test("forward: the incoming token and named headers reach the work's request scope", async ({ fast, koa }) => {
  for (const running of [fast!, koa!]) {
    const answer = await rawRequest(`${running.url}/ext/token`, {
      method: "POST",
      headers: { ...JSON_TYPE, authorization: "Bearer tok-1", "x-tenant": "acme" },
      body: "{}",
    });
    assert.equal(JSON.parse(answer.text), { token: "tok-1", header: "acme" });
  }
});

test("with auth, a fast route needs the bearer token like a capability call (401 and its challenge)", async () => {
  const options = { port: 0, handleSignals: false, log: () => undefined, handlers, extensions: [extension], auth: { verify: (t: string) => t === "good" } };
  const guarded = [await serveComponentWith(spec, options, { fastPath: true }), await serveComponentWith(spec, options, { fastPath: false })];
  try {
    for (const running of guarded) {
      const missing = await rawRequest(`${running.url}/ext/echo`, { method: "POST", headers: JSON_TYPE, body: "{}" });
      assert.is(missing.status, 401);
      assert.ok(missing.headers["www-authenticate"], "challenge");
      const bad = await rawRequest(`${running.url}/ext/echo`, { method: "POST", headers: { ...JSON_TYPE, authorization: "Bearer bad" }, body: "{}" });
      assert.is(bad.status, 401);
      const good = await rawRequest(`${running.url}/ext/echo`, { method: "POST", headers: { ...JSON_TYPE, authorization: "Bearer good" }, body: "{}" });
      assert.is(good.status, 200);
    }
  } finally {
    await Promise.all(guarded.map((running) => running.close()));
  }
});

test("a client that hangs up aborts the work's signal with ABORTED", async ({ fast, koa }) => {
  for (const running of [fast!, koa!]) {
    const started = new Promise<void>((resolve) => (seen.started = resolve));
    const req = request(`${running.url}/ext/wait`, { method: "POST", agent: false, headers: JSON_TYPE });
    req.on("error", () => undefined);
    req.end("{}");
    await withTimeout(started, 5_000, "work start");
    const signal = seen.context!.signal;
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    req.destroy();
    await withTimeout(aborted, 5_000, "abort after hang-up");
    assert.is((signal.reason as ManifoldError).code, "ABORTED");
  }
});

test.run();
