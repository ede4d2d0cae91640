/**
 * The imported tool's handlers (createOpenApiProxy, the "foreign" mode of the outbound caller) against a
 * real loopback service: where each input field lands on the wire (path segments encoded, repeated
 * query keys, header parameters, the JSON body), how a non-2xx answer becomes a ManifoldError code, and
 * that a service that does not answer in time is TIMEOUT.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createOpenApiProxy, type ProxySpec } from "../../runtime/outbound/index.js";
import { callerHeaders, startRecorder } from "./support.js";

type Recorder = Awaited<ReturnType<typeof startRecorder>>;
const test = suite<{ service: Recorder | undefined }>("openapi proxy", { service: undefined });

/** Answers by path: `/status/<code>` with that status, `/slow` never, anything else 200 with a JSON echo of the URL. */
test.before(async (context) => {
  context.service = await startRecorder((req, res) => {
    const status = /^\/status\/(\d{3})/.exec(req.url ?? "")?.[1];
    if (req.url === "/slow") return; // never answers: the caller's timeout ends it
    if (status !== undefined) return void res.writeHead(Number(status), { "content-type": "application/json" }).end('{"message":"secret detail"}');
    if (req.url === "/empty") return void res.writeHead(204).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ url: req.url }));
  });
});
test.after(async ({ service }) => service?.close());

const SPEC: ProxySpec = {
  version: 1,
  operations: [
    {
      capability: "get_item",
      method: "GET",
      path: "/items/{itemId}/parts/{part}",
      parameters: [
        { field: "itemId", in: "path", name: "itemId" },
        { field: "part", in: "path", name: "part" },
        { field: "tags", in: "query", name: "tag" },
        { field: "limit", in: "query", name: "limit" },
        { field: "x_trace", in: "header", name: "X-Trace" },
        { field: "x_list", in: "header", name: "X-List" },
      ],
    },
    {
      capability: "add_item",
      method: "POST",
      path: "/items",
      parameters: [
        { field: "name", in: "body", name: "name" },
        { field: "body_size", in: "body", name: "size" },
      ],
    },
    { capability: "put_raw", method: "PUT", path: "/raw", parameters: [{ field: "body", in: "body", name: "body" }], bodyField: "body", resultField: "result" },
    { capability: "status", method: "GET", path: "/status/{code}", parameters: [{ field: "code", in: "path", name: "code" }] },
    { capability: "slow", method: "GET", path: "/slow", parameters: [] },
    { capability: "empty", method: "DELETE", path: "/empty", parameters: [], resultField: "result" },
  ],
};

const handlers = (service: Recorder | undefined, timeoutMs?: number) =>
  createOpenApiProxy(SPEC, { baseUrl: `${service!.url}/`, env: {}, ...(timeoutMs === undefined ? {} : { timeoutMs }) });

test("path parameters are encoded: a value cannot add a segment, a query or a fragment", async ({ service }) => {
  await handlers(service).getItem!({ itemId: "a/b?c=d#e", part: "x y" });
  assert.is(service!.received.at(-1)!.url, "/items/a%2Fb%3Fc%3Dd%23e/parts/x%20y");
});

test("a query array repeats its key; an absent optional query is not sent", async ({ service }) => {
  await handlers(service).getItem!({ itemId: 1, part: 2, tags: ["red", "blue & green"] });
  assert.is(service!.received.at(-1)!.url, "/items/1/parts/2?tag=red&tag=blue+%26+green");
  await handlers(service).getItem!({ itemId: 1, part: 2, limit: 10 });
  assert.is(service!.received.at(-1)!.url, "/items/1/parts/2?limit=10");
});

test("header parameters go out under their wire names; an array is comma-joined; a GET has no body", async ({ service }) => {
  await handlers(service).getItem!({ itemId: 1, part: 2, x_trace: "t-1", x_list: ["a", "b"] });
  const last = service!.received.at(-1)!;
  const headers = callerHeaders(last.headers);
  assert.is(headers["x-trace"], "t-1");
  assert.is(headers["x-list"], "a,b");
  assert.is(headers["content-type"], undefined);
  assert.is(last.body, "");
});

test("body members are sent as one JSON object under their wire names; a whole-body field is the body", async ({ service }) => {
  const answer = await handlers(service).addItem!({ name: "bolt", body_size: 3 });
  const last = service!.received.at(-1)!;
  assert.equal(JSON.parse(last.body), { name: "bolt", size: 3 });
  assert.is(last.headers["content-type"], "application/json");
  assert.equal(answer, { url: "/items" });
  const wrapped = await handlers(service).putRaw!({ body: [1, 2, 3] });
  assert.equal(JSON.parse(service!.received.at(-1)!.body), [1, 2, 3]);
  assert.equal(wrapped, { result: { url: "/raw" } }, "an answer that is not an object with members comes back wrapped");
  assert.equal(await handlers(service).empty!({}), {}, "an empty 2xx answer is an empty output");
});

test("a missing path parameter is INVALID_INPUT and nothing is sent", async ({ service }) => {
  const before = service!.received.length;
  const error = await handlers(service).getItem!({ itemId: 1 }).catch((e: unknown) => e);
  assert.instance(error, ManifoldError);
  assert.is((error as ManifoldError).code, "INVALID_INPUT");
  assert.is(service!.received.length, before);
});

test("a non-2xx answer is the ManifoldError its status maps to, without the service's body", async ({ service }) => {
  const codes: Record<number, string> = {
    400: "INVALID_INPUT",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    409: "CONFLICT",
    422: "INVALID_INPUT",
    429: "LIMIT_EXCEEDED",
    500: "UNAVAILABLE",
    503: "UNAVAILABLE",
    418: "INVALID_RESPONSE",
  };
  for (const [status, code] of Object.entries(codes)) {
    const error = await handlers(service).status!({ code: status }).catch((e: unknown) => e);
    assert.instance(error, ManifoldError, status);
    assert.is((error as ManifoldError).code, code, `status ${status}`);
    assert.not.match((error as ManifoldError).message, /secret detail/);
  }
});

test("a service that does not answer within the timeout is TIMEOUT", async ({ service }) => {
  const error = await handlers(service, 50).slow!({}).catch((e: unknown) => e);
  assert.instance(error, ManifoldError);
  assert.is((error as ManifoldError).code, "TIMEOUT");
});

test("credentials come from the environment at each call: bearer wins over the caller's token, an input header wins over the key, unset is not sent", async ({
  service,
}) => {
  const spec: ProxySpec = {
    version: 1,
    credentials: { bearer: { type: "bearer", env: "SVC_TOKEN" }, key: { type: "header", header: "X-Api-Key", env: "SVC_KEY" } },
    operations: [
      { capability: "both", method: "GET", path: "/both", parameters: [{ field: "key", in: "header", name: "x-api-key" }], credentials: ["bearer", "key"] },
      { capability: "none", method: "GET", path: "/none", parameters: [] },
    ],
  };
  const env: Record<string, string> = { SVC_TOKEN: "t-one", SVC_KEY: "k-one" };
  const proxy = createOpenApiProxy(spec, { baseUrl: service!.url, env, token: "caller-token" });
  await proxy.both!({});
  let headers = callerHeaders(service!.received.at(-1)!.headers);
  assert.is(headers.authorization, "Bearer t-one");
  assert.is(headers["x-api-key"], "k-one");
  env.SVC_TOKEN = "t-two"; // rotated: read again at the next call
  await proxy.both!({ key: "given" });
  headers = callerHeaders(service!.received.at(-1)!.headers);
  assert.is(headers.authorization, "Bearer t-two");
  assert.is(headers["x-api-key"], "given");
  delete env.SVC_TOKEN;
  delete env.SVC_KEY;
  await proxy.both!({});
  headers = callerHeaders(service!.received.at(-1)!.headers);
  assert.is(headers.authorization, "Bearer caller-token");
  assert.is(headers["x-api-key"], undefined);
  env.SVC_KEY = "k-one";
  await proxy.none!({});
  assert.is(callerHeaders(service!.received.at(-1)!.headers)["x-api-key"], undefined, "only the operations that name a credential send it");
});

test("the base URL must be absolute http(s)", () => {
  assert.throws(() => createOpenApiProxy(SPEC, { baseUrl: "ftp://example.com" }), /absolute http\(s\) URL/);
  assert.throws(() => createOpenApiProxy({ ...SPEC, baseUrl: undefined }, {}), /absolute http\(s\) URL/);
});

test.run();
