/**
 * Requests whose end node is not left to run (body.ts): a request without a body is read before its
 * route, and a capability's body, read whole, is paused. Otherwise node resumes, ends, destroys and
 * closes each request after its answer, ticks that every async_hooks init hook in the process (the
 * request scope's) pays again. What must not change: a route listening to its request still hears
 * `close`, a request with a body its route never read is still drained, and a keep-alive connection
 * serves request after request, pipelined ones included.
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

const spec = toolSpec(
  tool("request-end", {
    description: "requests node need not end",
    capabilities: { echo: { description: "echoes", input: { word: "string" }, output: { word: "string" } } },
  }),
);

/** Resolved by /api/watched's request when it closes. */
let heard: (() => void) | undefined;
let heldClosed = false;
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
    // A held answer (as an SSE stream is): its request's close means the client left, never before.
    add("GET", "/api/held", (ctx) => {
      ctx.respond = false;
      ctx.res.writeHead(200, { "Content-Type": "text/plain" });
      ctx.res.write("open\n");
      ctx.req.once("close", () => {
        heldClosed = true;
        heard?.();
      });
    });
    add("GET", "/api/held-closed", (ctx) => sendJson(ctx, 200, JSON.stringify({ closed: heldClosed })));
    add("POST", "/api/read", async (ctx) => sendJson(ctx, 200, JSON.stringify(await readJsonBody(ctx.req, 1024))));
    add("POST", "/api/unread", (ctx) => sendJson(ctx, 200, '{"read":false}'));
  },
};

const running = await serveComponent(spec, {
  port: 0,
  registry: false,
  handleSignals: false,
  log: () => undefined,
  handlers: { echo: (input: unknown) => input },
  extensions: [routes],
});
const test = suite("request end");
test.after(() => running.close());

const ECHO = "/api/capabilities/echo";

/** `count` keep-alive requests from another process (a POST to ECHO, else a GET), so only the server's async resources are counted here. */
function load(path: string, count: number): Promise<void> {
  const post = path === ECHO;
  const script = `
    const http = require("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const options = ${JSON.stringify(post ? { method: "POST", headers: { "content-type": "application/json" } } : { method: "GET" })};
    let left = ${count};
    const next = () => http.request(${JSON.stringify(running.url + path)}, { ...options, agent }, (res) => {
      if (res.statusCode !== 200) process.exit(2);
      res.resume();
      res.on("end", () => (--left === 0 ? agent.destroy() : next()));
    }).end(${JSON.stringify(post ? '{"word":"hi"}' : "")});
    next();`;
  return withTimeout(
    new Promise((resolve, reject) =>
      spawn(process.execPath, ["-e", script], { stdio: "ignore" }).on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`client exit ${code}`)))),
    ),
    60_000,
    `${count} requests to ${path}`,
  );
}

/** Async resources other than promises the server makes per request to `path`, over 400 requests. */
async function resourcesPerRequest(path: string): Promise<number> {
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
  return resources / 400;
}

test("a body-less GET costs the server three async resources, not node's eleven", async () => {
  // The answer's write, its close event and the keep-alive timer, plus the client process's few.
  for (const path of ["/api/items/b-42", "/api/later/b-42"]) {
    const count = await resourcesPerRequest(path);
    assert.ok(count < 4, `${path}: ${count} async resources per request`);
  }
});

test("a capability POST costs the server four async resources, not node's seven", async () => {
  // The body's read (a resume), then as a GET: write, close event, keep-alive timer.
  const count = await resourcesPerRequest(ECHO);
  assert.ok(count < 5, `${count} async resources per request`);
});

test("a capability POST without a Content-Length (chunked) is read to its end and answered", async () => {
  const chunks = [Buffer.from('{"wo'), Buffer.from('rd":"pieces"}')];
  const response = await rawRequest(`${running.url}${ECHO}`, { method: "POST", headers: { "content-type": "application/json" }, chunks });
  assert.is(response.status, 200);
  assert.equal(json(response), { word: "pieces" });
});

test("a route listening to its request still hears close after its answer", async () => {
  const closed = new Promise<void>((resolve) => (heard = resolve));
  assert.is((await rawRequest(`${running.url}/api/watched`)).status, 200);
  await withTimeout(closed, 10_000, "the request's close");
});

test("a held answer's request closes when its client leaves, not when its route returns", async () => {
  const closed = new Promise<void>((resolve) => (heard = resolve));
  const abort = new AbortController();
  const response = await fetch(`${running.url}/api/held`, { signal: abort.signal });
  const reader = response.body!.getReader();
  assert.is(new TextDecoder().decode((await reader.read()).value), "open\n");
  // Another request's answer comes after the route above returned and its request's events had their turn.
  assert.equal(json(await rawRequest(`${running.url}/api/held-closed`)), { closed: false });
  abort.abort();
  await withTimeout(closed, 10_000, "the held request's close");
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
    assert.equal(json(await send("POST", ECHO, '{"word":"yes"}')), { word: "yes" });
    assert.is((await send("POST", ECHO, "{nope")).status, 400);
    assert.is((await send("POST", ECHO, '{"word":1}')).status, 400);
    assert.equal(json(await send("POST", ECHO, '{"word":"again"}')), { word: "again" });
    const last = await send("GET", "/api/items/c");
    assert.equal(json(last), { id: "c" });
    assert.ok(last.reusedSocket, "same socket throughout");
  } finally {
    agent.destroy();
  }
});

/** Writes `requests` on one connection at once and reads until `answers` complete JSON answers came back. */
async function pipelined(requests: readonly string[], answers: number): Promise<string> {
  const { hostname, port } = new URL(running.url);
  const socket = connect(Number(port), hostname);
  try {
    socket.write(requests.map((line) => line.replaceAll("{host}", `${hostname}:${port}`)).join(""));
    let text = "";
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        socket.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
          if ((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === answers && text.endsWith("}")) resolve();
        });
        socket.on("error", reject);
      }),
      10_000,
      `${answers} pipelined answers`,
    );
    return text;
  } finally {
    socket.destroy();
  }
}

test("pipelined body-less requests on one connection are all answered, in order", async () => {
  const ids = ["p1", "p2", "p3", "p4"];
  const text = await pipelined(
    ids.map((id) => `GET /api/${id === "p2" ? "later" : "items"}/${id} HTTP/1.1\r\nHost: {host}\r\n\r\n`),
    ids.length,
  );
  assert.equal(
    [...text.matchAll(/\{"id":"(p\d)"\}/g)].map((match) => match[1]),
    ids,
  );
});

test("pipelined capability POSTs, one with broken JSON, are all answered, in order", async () => {
  const post = (body: string) => `POST ${ECHO} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const text = await pipelined([post('{"word":"one"}'), post("{nope"), post('{"word":"three"}'), `GET /api/items/four HTTP/1.1\r\nHost: {host}\r\n\r\n`], 4);
  assert.equal(
    [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]),
    ["200", "400", "200", "200"],
  );
  assert.equal(
    [...text.matchAll(/\{"(?:word|id)":"(\w+)"\}/g)].map((match) => match[1]),
    ["one", "three", "four"],
  );
});

test.run();
