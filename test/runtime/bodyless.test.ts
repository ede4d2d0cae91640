/**
 * A request without a body is settled after its route (body.ts settleBodyless): node then skips the
 * resume, end, destroy and close it would otherwise schedule once the answer is written, eight ticks
 * per request that every async_hooks init hook in the process (the request scope's) pays again.
 * What must not change: a route listening to its request still hears `close`, a request with a body
 * its route never read is still drained, and a keep-alive connection serves request after request,
 * pipelined ones included.
 */
import { spawn } from "node:child_process";
import { createHook } from "node:async_hooks";
import { Agent } from "node:http";
import { connect } from "node:net";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readJsonBody, sendJson, serveComponent, type ComponentExtension } from "../../runtime/component/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { json, rawRequest, withTimeout } from "./support.js";

const spec = toolSpec(tool("bodyless", { description: "body-less requests", capabilities: { noop: { description: "does nothing", input: {} } } }));

/** Resolved by /api/watched's request when it closes. */
let heard: (() => void) | undefined;
const routes: ComponentExtension = {
  name: "items",
  routes: (add) => {
    add("GET", "/api/items/:id", (ctx) => sendJson(ctx, 200, JSON.stringify({ id: ctx.params["id"] })));
    add("GET", "/api/later/:id", async (ctx) => {
      // Answered after an await (a promise only, no other async resource).
      await Promise.resolve();
      sendJson(ctx, 200, JSON.stringify({ id: ctx.params["id"] }));
    });
    add("GET", "/api/watched", (ctx) => {
      ctx.req.once("close", () => heard?.());
      sendJson(ctx, 200, "{}");
    });
    add("POST", "/api/read", async (ctx) => sendJson(ctx, 200, JSON.stringify(await readJsonBody(ctx.req, 1024))));
    add("POST", "/api/unread", (ctx) => sendJson(ctx, 200, '{"read":false}'));
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
const test = suite("body-less requests");
test.after(() => running.close());

/** `count` keep-alive GETs of `path` from another process, so only the server's async resources are counted here. */
function load(path: string, count: number): Promise<void> {
  const script = `
    const http = require("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let left = ${count};
    const next = () => http.get(${JSON.stringify(running.url + path)}, { agent }, (res) => {
      res.resume();
      res.on("end", () => (--left === 0 ? agent.destroy() : next()));
    });
    next();`;
  return withTimeout(
    new Promise((resolve, reject) =>
      spawn(process.execPath, ["-e", script], { stdio: "ignore" }).on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`client exit ${code}`)))),
    ),
    60_000,
    `${count} GETs of ${path}`,
  );
}

test("a body-less GET costs the server three async resources, not node's eleven", async () => {
  for (const path of ["/api/items/b-42", "/api/later/b-42"]) {
    await load(path, 50);
    let resources = 0;
    const hook = createHook({
      init(_id, type) {
        if (type !== "PROMISE") resources++;
      },
    }).enable();
    try {
      await load(path, 400);
    } finally {
      hook.disable();
    }
    // The answer's write, its close event and the keep-alive timer: 3 per request, plus the client process's few.
    assert.ok(resources / 400 < 4, `${path}: ${resources / 400} async resources per request`);
  }
});

test("a route listening to its request still hears close after its answer", async () => {
  const closed = new Promise<void>((resolve) => (heard = resolve));
  assert.is((await rawRequest(`${running.url}/api/watched`)).status, 200);
  await withTimeout(closed, 10_000, "the request's close");
});

test("one keep-alive connection serves body-less, read and unread requests in turn", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const send = (method: string, path: string, body?: string) =>
      rawRequest(`${running.url}${path}`, { method, agent, ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }) });
    assert.equal(json(await send("GET", "/api/items/a")), { id: "a" });
    assert.equal(json(await send("POST", "/api/unread", '{"ignored":true}')), { read: false });
    assert.equal(json(await send("GET", "/api/later/b")), { id: "b" });
    assert.equal(json(await send("POST", "/api/read")), {});
    assert.equal(json(await send("POST", "/api/read", '{"x":1}')), { x: 1 });
    const last = await send("GET", "/api/items/c");
    assert.equal(json(last), { id: "c" });
    assert.ok(last.reusedSocket, "same socket throughout");
  } finally {
    agent.destroy();
  }
});

test("pipelined body-less requests on one connection are all answered, in order", async () => {
  const { hostname, port } = new URL(running.url);
  const socket = connect(Number(port), hostname);
  try {
    const ids = ["p1", "p2", "p3", "p4"];
    socket.write(ids.map((id) => `GET /api/${id === "p2" ? "later" : "items"}/${id} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`).join(""));
    let text = "";
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        socket.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
          if ((text.match(/HTTP\/1\.1 200/g) ?? []).length === ids.length && text.endsWith('"}')) resolve();
        });
        socket.on("error", reject);
      }),
      10_000,
      "four pipelined answers",
    );
    assert.equal(
      [...text.matchAll(/\{"id":"(p\d)"\}/g)].map((match) => match[1]),
      ids,
    );
  } finally {
    socket.destroy();
  }
});

test.run();
