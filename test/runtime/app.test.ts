import { request } from "node:http";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createComponentApp } from "../../runtime/component/app.js";
import { serveComponent } from "../../runtime/component/index.js";
import { serveComponentWith } from "../../runtime/component/serve.js";
import type { HandlerContext, RunningComponent } from "../../runtime/component/types.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { agent, agentSpec } from "../support/specs.js";
import { comparable, rawRequest, withTimeout } from "./support.js";

const spec = agentSpec(
  agent("unit-agent", {
    description: "in-process component",
    capabilities: {
      add: { description: "adds", input: { a: "number", b: "number" }, output: { sum: "number" } },
      fail: { description: "throws" },
      refuse: { description: "rejects on purpose" },
      wait: { description: "waits for its signal" },
    },
  }),
);

type Caps = {
  add: { input: { a: number; b: number }; output: { sum: number } };
  fail: { input: object; output: never };
  refuse: { input: object; output: never };
  wait: { input: object; output: { reason: string } };
};

const logs: string[] = [];
const seen: { signal?: AbortSignal; started?: () => void } = {};
const handlers = {
  add: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }),
  fail: (): never => {
    throw new TypeError("secret internals");
  },
  refuse: (): never => {
    throw new ManifoldError("HANDLER_ERROR", "no trips on Sundays", { details: [{ pointer: "/day", message: "is Sunday" }] });
  },
  wait: (_input: object, ctx: HandlerContext) =>
    new Promise<{ reason: string }>((resolve) => {
      seen.signal = ctx.signal;
      seen.started?.();
      ctx.signal.addEventListener("abort", () => resolve({ reason: String((ctx.signal.reason as Error).message) }), { once: true });
    }),
};

const test = suite<{ fast?: RunningComponent; koa?: RunningComponent }>("component app", {});

test.before(async (context) => {
  const options = { port: 0, handleSignals: false, log: (m: string) => logs.push(m), handlers };
  context.fast = await serveComponentWith<Caps>(spec, options, { fastPath: true });
  context.koa = await serveComponentWith<Caps>(spec, options, { fastPath: false });
});
test.after(async ({ fast, koa }) => {
  await Promise.all([fast?.close(), koa?.close()]);
});

const CASES: readonly [string, Record<string, string | number>, string | undefined][] = [
  ["valid", { "content-type": "application/json" }, '{"a":1,"b":2}'],
  ["invalid-input", { "content-type": "application/json" }, '{"a":"x","c":1}'],
  ["invalid-json", { "content-type": "application/json" }, "{nope"],
  ["array", { "content-type": "application/json" }, "[]"],
  ["media-type", { "content-type": "text/plain" }, "{}"],
  ["too-large", { "content-type": "application/json" }, `{"a":"${"x".repeat(1024 * 1024)}"}`],
  ["no-body", {}, undefined],
];

test("the fast path and the Koa path answer byte for byte the same", async ({ fast, koa }) => {
  for (const [name, headers, body] of CASES) {
    for (const path of ["/api/capabilities/add", "/api/capabilities/fail", "/api/capabilities/refuse"]) {
      const request = { method: "POST", headers: { ...headers, "x-manifold-request-id": `case-${name}` }, ...(body === undefined ? {} : { body }) };
      const [a, b] = await Promise.all([rawRequest(fast!.url + path, request), rawRequest(koa!.url + path, request)]);
      assert.equal(comparable(a), comparable(b), `${name} ${path}`);
      assert.is(a.headers["content-type"], "application/json; charset=utf-8");
      assert.is(a.headers["x-manifold-request-id"], `case-${name}`);
    }
  }
});

test("a ManifoldError from a handler is its own envelope; anything else is a bare INTERNAL, logged once", async ({ fast }) => {
  const refused = await rawRequest(`${fast!.url}/api/capabilities/refuse`, { method: "POST" });
  assert.is(refused.status, 422);
  assert.equal(
    JSON.parse(refused.text),
    new ManifoldError("HANDLER_ERROR", "no trips on Sundays", { details: [{ pointer: "/day", message: "is Sunday" }] }).toEnvelope(),
  );
  logs.length = 0;
  const failed = await rawRequest(`${fast!.url}/api/capabilities/fail`, { method: "POST", headers: { "x-manifold-request-id": "r-1" } });
  assert.is(failed.status, 500);
  assert.equal(JSON.parse(failed.text), {
    success: false,
    error: { code: "INTERNAL", message: "internal error", category: "internal_error", retryable: false },
  });
  assert.is(logs.length, 1);
  assert.match(logs[0]!, "secret internals");
  assert.match(logs[0]!, "[r-1]");
});

test("an unusable request id is replaced by a fresh one", async ({ fast }) => {
  for (const given of ["has space", "x".repeat(200)]) {
    const response = await rawRequest(`${fast!.url}/api/capabilities/add`, {
      method: "POST",
      headers: { "x-manifold-request-id": given, "content-type": "application/json" },
      body: '{"a":1,"b":1}',
    });
    assert.match(String(response.headers["x-manifold-request-id"]), /^[0-9a-f-]{36}$/);
  }
});

test("handlers must match the capabilities by own keys", () => {
  const base = { add: handlers.add, fail: handlers.fail, refuse: handlers.refuse, wait: handlers.wait };
  const { wait: _wait, ...missing } = base;
  assert.throws(() => createComponentApp(spec, { handlers: missing as never }), /handlers\.wait/);
  assert.throws(() => createComponentApp(spec, { handlers: { ...base, extra: () => 1 } as never }), /handlers\.extra/);
  const inherited = Object.assign(Object.create({ wait: handlers.wait }) as object, missing);
  assert.throws(() => createComponentApp(spec, { handlers: inherited as never }), /handlers\.wait/);
});

test("close() drains: past drainTimeoutMs the connection is cut and the handler's signal aborts", async () => {
  const running = await serveComponent<Caps>(spec, { port: 0, handleSignals: false, drainTimeoutMs: 100, log: () => undefined, handlers });
  const started = new Promise<void>((resolve) => (seen.started = resolve));
  const pending = rawRequest(`${running.url}/api/capabilities/wait`, { method: "POST" }).then(
    () => "answered",
    () => "connection closed",
  );
  await withTimeout(started, 5_000, "handler start");
  const t0 = Date.now();
  await withTimeout(running.close(), 5_000, "close");
  const waited = Date.now() - t0;
  assert.ok(waited >= 90, `waited for the drain timeout (${waited} ms)`);
  assert.is(await pending, "connection closed");
  assert.ok(seen.signal?.aborted, "signal aborted");
  assert.instance(seen.signal?.reason, ManifoldError);
  assert.is((seen.signal!.reason as ManifoldError).code, "UNAVAILABLE");
  // A second close resolves (to nothing) instead of rejecting or hanging.
  assert.is(await withTimeout(running.close(), 5_000, "second close"), undefined, "close twice is fine");
});

test("a client that hangs up aborts the handler's signal with ABORTED", async ({ fast, koa }) => {
  for (const running of [fast!, koa!]) {
    const started = new Promise<void>((resolve) => (seen.started = resolve));
    const req = request(`${running.url}/api/capabilities/wait`, { method: "POST", agent: false });
    req.on("error", () => undefined);
    req.end();
    await withTimeout(started, 5_000, "handler start");
    const signal = seen.signal!;
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    req.destroy();
    await withTimeout(aborted, 5_000, "abort after hang-up");
    assert.is((signal.reason as ManifoldError).code, "ABORTED");
  }
});

test("components share one signal listener, and closing them leaves none behind", async () => {
  const before = [process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")];
  for (let i = 0; i < 15; i++) {
    const running = await serveComponent<Caps>(spec, { port: 0, log: () => undefined, handlers });
    assert.is(process.listenerCount("SIGTERM"), before[0]! + 1);
    await running.close();
  }
  const all = await Promise.all(Array.from({ length: 12 }, () => serveComponent<Caps>(spec, { port: 0, log: () => undefined, handlers })));
  assert.equal([process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")], [before[0]! + 1, before[1]! + 1]);
  await Promise.all(all.slice(1).map((c) => c.close()));
  assert.is(process.listenerCount("SIGTERM"), before[0]! + 1, "still one while a component is open");
  await all[0]!.close();
  assert.equal([process.listenerCount("SIGTERM"), process.listenerCount("SIGINT")], before);
});

test("ids are <name>-<8 hex>, one per instance; the start line names the URL", async ({ fast, koa }) => {
  assert.match(fast!.id, /^unit-agent-[0-9a-f]{8}$/);
  assert.is.not(fast!.id, koa!.id);
  const lines: string[] = [];
  const running = await serveComponent<Caps>(spec, { port: 0, handleSignals: false, log: (m) => lines.push(m), handlers });
  await running.close();
  assert.equal(lines, [`unit-agent listening on ${running.url}`, "unit-agent shutting down", "unit-agent stopped"]);
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

test.run();
