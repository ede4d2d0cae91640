/**
 * The compiled route table and route context (routes.ts, route-context.ts) answer as @koa/router and
 * Koa did for the routes extensions add (chat, tasks, HITL, dashboard): first registration wins,
 * parameters decoded, strict paths, HEAD for GET, 405 with Allow, the preflight, repeated query
 * names, a thrown error after a header was set, an empty 204. Over real HTTP on a served component.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent, sendJson, type ComponentExtension, type RunningComponent } from "../../runtime/component/index.js";
import { createRouteTable } from "../../runtime/component/routes.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { rawRequest } from "./support.js";

const spec = toolSpec(tool("route-table", { description: "routes", capabilities: { noop: { description: "does nothing" } } }));

const things: ComponentExtension = {
  name: "things",
  routes(add) {
    add("GET", "/things/:id", (ctx) => sendJson(ctx, 200, JSON.stringify({ route: "param", params: ctx.params, query: { ...ctx.query } })));
    // Registered after the parameter route that also matches it: the parameter route answers, as before.
    add("GET", "/things/special", (ctx) => sendJson(ctx, 200, JSON.stringify({ route: "static" })));
    add("POST", "/things/:id/do", (ctx) => sendJson(ctx, 200, JSON.stringify({ did: ctx.params["id"] })));
    add("DELETE", "/things/:id/do", (ctx) => {
      ctx.status = 204;
    });
    add("GET", "/files/*path", (ctx) => sendJson(ctx, 200, JSON.stringify({ path: ctx.params["path"] })));
    add("GET", "/boom", (ctx) => {
      ctx.set("X-Set-Before", "kept");
      throw new ManifoldError("CONFLICT", "nope");
    });
  },
};

const test = suite<{ running?: RunningComponent }>("route table", {});
test.before(async (context) => {
  context.running = await serveComponent(spec, {
    port: 0,
    handleSignals: false,
    registry: false,
    log: () => undefined,
    handlers: { noop: () => ({}) },
    extensions: [things],
  });
});
test.after(async ({ running }) => {
  await running?.close();
});

test("parameters are decoded; a malformed escape is kept as sent; the first route registered for a path answers", async ({ running }) => {
  const a = await rawRequest(`${running!.url}/things/a%20b?tag=x&tag=y&one=1`);
  assert.is(a.status, 200);
  assert.equal(JSON.parse(a.text), { route: "param", params: { id: "a b" }, query: { tag: ["x", "y"], one: "1" } });
  const bad = await rawRequest(`${running!.url}/things/%E0%A4%A`);
  assert.equal(JSON.parse(bad.text).params, { id: "%E0%A4%A" });
  const special = await rawRequest(`${running!.url}/things/special`);
  assert.equal(JSON.parse(special.text).route, "param");
});

test("a last segment *name takes the rest of the path, decoded; it needs at least one character", async ({ running }) => {
  const nested = await rawRequest(`${running!.url}/files/references/a%20b.md`);
  assert.equal(JSON.parse(nested.text), { path: "references/a b.md" });
  for (const path of ["/files", "/files/"]) assert.is((await rawRequest(running!.url + path)).status, 404, path);
});

test("paths are strict and case-sensitive: a trailing slash or other case is a 404 envelope", async ({ running }) => {
  for (const path of ["/things/a/", "/Things/a", "/things", "/health/"]) {
    const response = await rawRequest(running!.url + path);
    assert.is(response.status, 404, path);
    assert.is(JSON.parse(response.text).error.code, "NOT_FOUND", path);
  }
});

test("HEAD answers a GET route without a body; 405 names what the path allows; OPTIONS answers 204 with Allow", async ({ running }) => {
  const get = await rawRequest(`${running!.url}/things/a`);
  const head = await rawRequest(`${running!.url}/things/a`, { method: "HEAD" });
  assert.is(head.status, 200);
  assert.is(head.text, "");
  assert.is(head.headers["content-length"], get.headers["content-length"]);
  const put = await rawRequest(`${running!.url}/things/a/do`, { method: "PUT" });
  assert.is(put.status, 405);
  assert.is(put.headers["allow"], "POST, DELETE, OPTIONS");
  assert.is(JSON.parse(put.text).error.code, "METHOD_NOT_ALLOWED");
  const options = await rawRequest(`${running!.url}/things/a`, { method: "OPTIONS" });
  assert.is(options.status, 204);
  assert.is(options.headers["allow"], "GET, HEAD, OPTIONS");
  const did = await rawRequest(`${running!.url}/things/a/do`, { method: "POST" });
  assert.equal(JSON.parse(did.text), { did: "a" });
});

test("a 204 has no body or content headers; an error after a header was set keeps the header and answers the envelope", async ({ running }) => {
  const gone = await rawRequest(`${running!.url}/things/a/do`, { method: "DELETE" });
  assert.is(gone.status, 204);
  assert.is(gone.text, "");
  assert.is(gone.headers["content-type"], undefined);
  const boom = await rawRequest(`${running!.url}/boom`);
  assert.is(boom.status, 409);
  assert.is(boom.headers["x-set-before"], "kept");
  assert.is(boom.headers["content-type"], "application/json; charset=utf-8");
  assert.is(JSON.parse(boom.text).error.code, "CONFLICT");
});

test("a lookup repeated, for another method, or after a route is added answers from the table as it is then", () => {
  const table = createRouteTable();
  const first = () => undefined;
  table.add("GET", "/a", first);
  assert.is(table.find("GET", "/a").route?.handler, first);
  assert.is(table.find("GET", "/a").route?.handler, first, "the same lookup again");
  assert.is(table.find("POST", "/a").route, undefined, "another method on the same path");
  const post = () => undefined;
  table.add("POST", "/a", post);
  assert.is(table.find("POST", "/a").route?.handler, post, "a route added after lookups");
  assert.is(table.find("GET", "/a").route?.handler, first);
  assert.is(table.find("GET", "/b").template, undefined);
});

test.run();
