import type { IncomingMessage, ServerResponse } from "node:http";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createClient } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { startServer, withTimeout } from "./support.js";

const SECRET = "Bearer s3cr3t-token";

const spec = toolSpec(
  tool("scripted", {
    description: "answers whatever the test needs",
    capabilities: { echo: {}, envelope: {}, html: {}, not_envelope: {}, bad_json: {}, slow: {}, constructor: {} },
  }),
);

type Any = { input: unknown; output: unknown };
type Scripted = { echo: Any; envelope: Any; html: Any; notEnvelope: Any; badJson: Any; slow: Any; constructor: Any };

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const send = (status: number, text: string, type = "application/json"): void => {
    res.writeHead(status, { "content-type": type }).end(text);
  };
  switch (req.url) {
    case "/api/capabilities/echo":
    case "/api/capabilities/constructor":
      return send(200, JSON.stringify({ body: JSON.parse(body) as unknown, url: req.url, headers: req.headers }));
    case "/api/capabilities/envelope":
      return send(
        400,
        JSON.stringify(new ManifoldError("INVALID_INPUT", "bad lat", { details: [{ pointer: "/lat", message: "must be number" }] }).toEnvelope()),
      );
    case "/api/capabilities/html":
      return send(502, "<html>bad gateway</html>", "text/html");
    case "/api/capabilities/not_envelope":
      return send(500, '{"oops":true}');
    case "/api/capabilities/bad_json":
      return send(200, "{not json");
    case "/api/capabilities/slow": {
      const timer = setTimeout(() => send(200, "{}"), 5_000);
      res.on("close", () => clearTimeout(timer));
      return;
    }
    default:
      return send(404, "{}");
  }
}

const test = suite<{ url: string; close: () => Promise<void> }>("client", { url: "", close: async () => {} });

test.before(async (context) => {
  const server = await startServer((req, res) => {
    let body = "";
    req
      .setEncoding("utf8")
      .on("data", (part: string) => (body += part))
      .on("end", () => answer(req, res, body));
  });
  context.url = server.url;
  context.close = server.close;
});
test.after(async ({ close }) => close());

async function rejection(promise: Promise<unknown>): Promise<ManifoldError> {
  try {
    await withTimeout(promise, 10_000, "client call");
  } catch (error) {
    assert.instance(error, ManifoldError);
    return error as ManifoldError;
  }
  throw new assert.Assertion({ message: "expected the call to fail", generated: false, operator: "rejects", expects: "rejection", actual: "resolution" });
}

test("a 2xx returns the parsed body; JSON, Content-Type and a request id are sent", async ({ url }) => {
  const client = createClient<Scripted>(spec, { baseUrl: `${url}/`, headers: { authorization: SECRET, "x-tenant": "t1" } });
  const out = (await client.echo({ lat: 1 }, { headers: { "x-tenant": "t2" } })) as { body: unknown; headers: Record<string, string> };
  assert.equal(out.body, { lat: 1 });
  assert.is(out.headers["content-type"], "application/json");
  assert.match(out.headers["x-manifold-request-id"] ?? "", /^[0-9a-f-]{36}$/);
  assert.is(out.headers["authorization"], SECRET);
  assert.is(out.headers["x-tenant"], "t2", "per-call headers win");
  const withId = (await client.echo({}, { headers: { "X-Manifold-Request-ID": "req-42" } })) as { headers: Record<string, string> };
  assert.is(withId.headers["x-manifold-request-id"], "req-42");
});

test("the client has no prototype: a capability called constructor is a method", async ({ url }) => {
  const client = createClient<Scripted>(spec, { baseUrl: url });
  assert.is(Object.getPrototypeOf(client), null);
  assert.equal(Object.keys(client).sort(), ["badJson", "constructor", "echo", "envelope", "html", "notEnvelope", "slow"]);
  const out = (await client.constructor({ a: 1 })) as { url: string };
  assert.is(out.url, "/api/capabilities/constructor");
});

test("an error envelope becomes that ManifoldError with status and details", async ({ url }) => {
  const error = await rejection(createClient<Scripted>(spec, { baseUrl: url }).envelope({}));
  assert.is(error.code, "INVALID_INPUT");
  assert.is(error.status, 400);
  assert.is(error.message, "bad lat");
  assert.equal(error.details, [{ pointer: "/lat", message: "must be number" }]);
});

test("bodies that are not JSON, or not an envelope, are INVALID_RESPONSE", async ({ url }) => {
  const client = createClient<Scripted>(spec, { baseUrl: url });
  for (const call of [client.html({}), client.notEnvelope({}), client.badJson({})]) {
    const error = await rejection(call);
    assert.is(error.code, "INVALID_RESPONSE");
  }
});

test("an unreachable component is NETWORK_ERROR", async () => {
  const gone = await startServer(() => undefined);
  await gone.close();
  const error = await rejection(createClient<Scripted>(spec, { baseUrl: gone.url, headers: { authorization: SECRET } }).echo({}));
  assert.is(error.code, "NETWORK_ERROR");
  assert.ok(error.retryable);
  assert.not.match(error.message, "s3cr3t");
});

test("the timeout is TIMEOUT; the caller's signal is ABORTED, before or during the call", async ({ url }) => {
  const client = createClient<Scripted>(spec, { baseUrl: url, timeoutMs: 150, headers: { authorization: SECRET } });
  const timedOut = await rejection(client.slow({}));
  assert.is(timedOut.code, "TIMEOUT");
  assert.not.match(timedOut.message, "s3cr3t");
  assert.is((await rejection(client.slow({}, { timeoutMs: 50 }))).code, "TIMEOUT");

  const controller = new AbortController();
  const pending = client.slow({}, { signal: controller.signal, timeoutMs: 5_000 });
  setTimeout(() => controller.abort(), 50);
  assert.is((await rejection(pending)).code, "ABORTED");
  assert.is((await rejection(client.echo({}, { signal: AbortSignal.abort() }))).code, "ABORTED");
});

test("an invalid header value fails without quoting it", async ({ url }) => {
  const client = createClient<Scripted>(spec, { baseUrl: url });
  const error = await rejection(client.echo({}, { headers: { authorization: `${SECRET}\r\nx-injected: 1` } }));
  assert.not.match(error.message, "s3cr3t");
  assert.match(error.message, "authorization");
  assert.throws(
    () => createClient<Scripted>(spec, { baseUrl: url, headers: { "x-key": "s3cr3t\n" } }),
    (e: Error) => !e.message.includes("s3cr3t"),
  );
  assert.throws(() => createClient<Scripted>(spec, { baseUrl: "not a url" }), /baseUrl/);
});

test.run();
