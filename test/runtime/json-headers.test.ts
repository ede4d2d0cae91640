/**
 * A route's JSON answer (sendJson) leaves its headers for one writeHead when nothing else touches the
 * response (route-context.ts): the bytes a client reads must be what setHeader per header gave, in the
 * same order, and a header set after sendJson, a HEAD, a 204 and an error envelope must still carry theirs.
 */
import { request } from "node:http";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sendJson, serveComponent, type ComponentExtension } from "../../runtime/component/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { withTimeout } from "./support.js";

const spec = toolSpec(tool("json-headers", { description: "JSON header order", capabilities: { noop: { description: "does nothing", input: {} } } }));

const routes: ComponentExtension = {
  name: "items",
  routes: (add) => {
    add("GET", "/api/items/:id", (ctx) => sendJson(ctx, 200, JSON.stringify({ id: ctx.params["id"] })));
    add("GET", "/api/later", (ctx) => {
      sendJson(ctx, 201, `{"made":"ü"}`);
      ctx.set("X-After", "yes");
    });
    add("GET", "/api/empty", (ctx) => {
      sendJson(ctx, 200, "{}");
      ctx.status = 204;
    });
    add("GET", "/api/raw-after", (ctx) => {
      sendJson(ctx, 200, "[]");
      ctx.res.setHeader("X-Raw", "1");
    });
  },
};

const running = await serveComponent(spec, {
  port: 0,
  registry: false,
  handleSignals: false,
  log: () => undefined,
  handlers: { noop: () => ({}) },
  extensions: [routes],
});
const base = new URL(running.url);

/** Status, raw header lines in wire order (Date and keep-alive timing left out) and body. */
function raw(path: string, method = "GET"): Promise<{ status: number; headers: string[]; body: string }> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const req = request({ host: base.hostname, port: base.port, path, method }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          const headers: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            if (!["Date", "Keep-Alive"].includes(res.rawHeaders[i]!)) headers.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          resolve({ status: res.statusCode ?? 0, headers, body });
        });
      });
      req.on("error", reject);
      req.end();
    }),
    10_000,
    `${method} ${path}`,
  );
}

test("a JSON GET answers Content-Type then Content-Length, byte for byte as before", async () => {
  const answer = await raw("/api/items/b-42");
  assert.is(answer.status, 200);
  assert.equal(answer.headers, ["Content-Type: application/json; charset=utf-8", "Content-Length: 13", "Connection: keep-alive"]);
  assert.is(answer.body, `{"id":"b-42"}`);
});

test("a header set after sendJson is sent, after the JSON ones; Content-Length counts bytes", async () => {
  const answer = await raw("/api/later");
  assert.is(answer.status, 201);
  assert.equal(answer.headers, ["Content-Type: application/json; charset=utf-8", "Content-Length: 13", "X-After: yes", "Connection: keep-alive"]);
  assert.is(answer.body, `{"made":"ü"}`);
});

test("a header the route puts on the node response itself after sendJson is sent too", async () => {
  const answer = await raw("/api/raw-after");
  assert.ok(answer.headers.includes("X-Raw: 1"));
  assert.ok(answer.headers.includes("Content-Length: 2"));
  assert.is(answer.body, "[]");
});

test("HEAD keeps the JSON headers without a body; a status changed to 204 sends no body", async () => {
  const head = await raw("/api/items/b-42", "HEAD");
  assert.is(head.status, 200);
  assert.equal(head.headers, ["Content-Type: application/json; charset=utf-8", "Content-Length: 13", "Connection: keep-alive"]);
  assert.is(head.body, "");
  const empty = await raw("/api/empty");
  assert.is(empty.status, 204);
  assert.is(empty.body, "");
});

test("an unknown route's envelope keeps its headers", async () => {
  const answer = await raw("/api/nothing");
  assert.is(answer.status, 404);
  assert.ok(answer.headers.includes("Content-Type: application/json; charset=utf-8"));
  assert.is(JSON.parse(answer.body).error.code, "NOT_FOUND");
});

test.after(() => running.close());
test.run();
