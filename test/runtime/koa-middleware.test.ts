/**
 * A user's own Koa middleware (`ComponentOptions.middleware`) over real HTTP: it runs, in order, before
 * every route (capability POSTs, extension GETs, /health, 404s); its headers reach the answer; it can
 * answer itself so the route never runs; what it throws is the standard envelope; CORS, the Host check
 * and the body limit still hold; after `await next()` it sees the finished response.
 */
import type Koa from "koa";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import type { ComponentExtension, RunningComponent } from "../../runtime/component/index.js";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createMemoryRegistry } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createMemoryTaskBackend } from "../../runtime/tasks/index.js";
import { agent, agentSpec } from "../support/specs.js";
import { json, rawRequest } from "./support.js";

const spec = agentSpec(
  agent("koa-agent", {
    description: "component with Koa middleware",
    capabilities: { add: { description: "adds", input: { a: "number", b: "number" }, output: { sum: "number" } } },
  }),
);
type Caps = { add: { input: { a: number; b: number }; output: { sum: number } } };

const ORIGIN = "https://app.example.com";
const calls: string[] = [];
const finished: { path: string; status: number; headersSent: boolean }[] = [];
const logs: string[] = [];

const echo: ComponentExtension = {
  name: "echo",
  routes: (add) =>
    add("GET", "/api/v1/echo/:id", (ctx) => {
      calls.push(`route ${ctx.params["id"]}`);
      ctx.body = { id: ctx.params["id"] };
    }),
};

const middleware: Koa.Middleware[] = [
  async (ctx, next) => {
    calls.push(`first ${ctx.method} ${ctx.path}`);
    ctx.set("X-First", "1");
    await next();
    finished.push({ path: ctx.path, status: ctx.res.statusCode, headersSent: ctx.res.headersSent });
  },
  async (ctx, next) => {
    calls.push(`second ${ctx.path}`);
    ctx.set("X-Second", "2");
    const key = ctx.get("x-api-key");
    if (key === "bad") {
      ctx.status = 401;
      ctx.body = { refused: "by middleware" };
      return;
    }
    if (key === "manifold") throw new ManifoldError("FORBIDDEN", "key not allowed");
    if (key === "plain") throw new Error("secret middleware internals");
    if (key === "koa") ctx.throw(401, "token expired");
    if (key === "teapot") ctx.throw(418, "short and stout");
    await next();
  },
];

const test = suite<{ running?: RunningComponent }>("koa middleware", {});
test.before(async (context) => {
  context.running = await serveComponent<Caps>(spec, {
    port: 0,
    handleSignals: false,
    registry: false,
    log: (m: string) => logs.push(m),
    handlers: {
      add: ({ a, b }) => {
        calls.push("handler add");
        return { sum: a + b };
      },
    },
    extensions: [echo],
    middleware,
    corsOrigins: [ORIGIN],
    bodyLimit: 64,
  });
});
test.after(async ({ running }) => {
  await running?.close();
});
test.before.each(() => {
  calls.length = 0;
  finished.length = 0;
  logs.length = 0;
});

const post = (body: string, headers: Record<string, string> = {}) => ({ method: "POST", body, headers: { "Content-Type": "application/json", ...headers } });

test("runs in order before a capability POST, an extension GET, /health and a 404; its headers reach each answer", async ({ running }) => {
  const url = running!.url;
  const add = await rawRequest(`${url}/api/capabilities/add`, post('{"a":2,"b":3}'));
  assert.is(add.status, 200);
  assert.equal(json(add), { sum: 5 });
  const echoed = await rawRequest(`${url}/api/v1/echo/e-1`);
  assert.equal(json(echoed), { id: "e-1" });
  const health = await rawRequest(`${url}/health`);
  assert.is(health.status, 200);
  const missing = await rawRequest(`${url}/nowhere`);
  assert.is(missing.status, 404);
  assert.is((json(missing) as { error: { code: string } }).error.code, "NOT_FOUND");
  for (const answer of [add, echoed, health, missing]) {
    assert.is(answer.headers["x-first"], "1");
    assert.is(answer.headers["x-second"], "2");
  }
  assert.equal(calls, [
    "first POST /api/capabilities/add",
    "second /api/capabilities/add",
    "handler add",
    "first GET /api/v1/echo/e-1",
    "second /api/v1/echo/e-1",
    "route e-1",
    "first GET /health",
    "second /health",
    "first GET /nowhere",
    "second /nowhere",
  ]);
});

test("after await next() the response is written: its final status is readable", async ({ running }) => {
  await rawRequest(`${running!.url}/api/capabilities/add`, post('{"a":1,"b":1}'));
  await rawRequest(`${running!.url}/nowhere`);
  assert.equal(finished, [
    { path: "/api/capabilities/add", status: 200, headersSent: true },
    { path: "/nowhere", status: 404, headersSent: true },
  ]);
});

test("a middleware that answers itself short-circuits: the route never runs, its body is sent, CORS still applies", async ({ running }) => {
  const answer = await rawRequest(`${running!.url}/api/capabilities/add`, post('{"a":2,"b":3}', { "X-Api-Key": "bad", Origin: ORIGIN }));
  assert.is(answer.status, 401);
  assert.equal(json(answer), { refused: "by middleware" });
  assert.is(answer.headers["access-control-allow-origin"], ORIGIN);
  assert.not.ok(calls.includes("handler add"));
});

test("a thrown ManifoldError is its envelope; a plain Error is INTERNAL with no stack or message on the wire", async ({ running }) => {
  const refused = await rawRequest(`${running!.url}/health`, { headers: { "X-Api-Key": "manifold", Origin: ORIGIN } });
  assert.is(refused.status, 403);
  assert.equal(json(refused), new ManifoldError("FORBIDDEN", "key not allowed").toEnvelope());
  assert.is(refused.headers["content-type"], "application/json; charset=utf-8");
  assert.is(refused.headers["access-control-allow-origin"], ORIGIN);
  const broken = await rawRequest(`${running!.url}/api/v1/echo/x`, { headers: { "X-Api-Key": "plain" } });
  assert.is(broken.status, 500);
  assert.equal(json(broken), new ManifoldError("INTERNAL", "internal error").toEnvelope());
  assert.not.match(broken.text, /secret|at /);
  assert.ok(logs.some((line) => line.includes("secret middleware internals")));
  assert.not.ok(calls.includes("route x"));
});

test("Koa's ctx.throw: 401, 403 and 404 are their Manifold codes with the message; another status is INTERNAL", async ({ running }) => {
  const expired = await rawRequest(`${running!.url}/health`, { headers: { "X-Api-Key": "koa" } });
  assert.is(expired.status, 401);
  assert.equal(json(expired), new ManifoldError("UNAUTHORIZED", "token expired").toEnvelope());
  const teapot = await rawRequest(`${running!.url}/health`, { headers: { "X-Api-Key": "teapot" } });
  assert.is(teapot.status, 500);
  assert.equal(json(teapot), new ManifoldError("INTERNAL", "internal error").toEnvelope());
});

test("CORS, the Host check and the body limit still apply on routes behind the middleware", async ({ running }) => {
  const url = running!.url;
  const cors = await rawRequest(`${url}/api/capabilities/add`, post('{"a":1,"b":2}', { Origin: ORIGIN }));
  assert.is(cors.status, 200);
  assert.is(cors.headers["access-control-allow-origin"], ORIGIN);
  assert.is(cors.headers["x-first"], "1");
  const foreign = await rawRequest(`${url}/api/capabilities/add`, post('{"a":1,"b":2}', { Origin: "https://evil.example" }));
  assert.is(foreign.status, 403);
  const rebound = await rawRequest(`${url}/health`, { headers: { Host: "attacker.example" } });
  assert.is(rebound.status, 403);
  const large = await rawRequest(`${url}/api/capabilities/add`, post(JSON.stringify({ a: 1, b: 2, pad: "x".repeat(200) })));
  assert.is(large.status, 413);
  // The Host and Origin refusals come before the middleware: it never saw those two requests.
  assert.equal(calls.filter((c) => c.startsWith("first")).length, 2);
});

test("a generated agent's serve(options) passes middleware through to its task and orchestration routes", async () => {
  const seen: string[] = [];
  const agent = await TravelAgent.serve({
    port: 0,
    registry: false,
    handleSignals: false,
    log: () => {},
    handlers: { tripBrief: () => ({ brief: "" }) as never },
    tasks: { packingList: (input) => ({ destination: input.destination, items: [] }) },
    orchestration: { registry: createMemoryRegistry() },
    taskOptions: { backend: createMemoryTaskBackend() },
    middleware: [
      async (ctx, next) => {
        seen.push(`${ctx.method} ${ctx.path}`);
        ctx.set("X-Agent-Middleware", "yes");
        await next();
      },
    ],
  });
  try {
    const task = await rawRequest(`${agent.url}/api/v1/tasks/00000000-0000-4000-8000-000000000000`);
    assert.is(task.status, 404);
    assert.is(task.headers["x-agent-middleware"], "yes");
    assert.equal(seen, ["GET /api/v1/tasks/00000000-0000-4000-8000-000000000000"]);
  } finally {
    await agent.close();
  }
});

test.run();
