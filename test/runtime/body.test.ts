import { Agent } from "node:http";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isJsonMediaType, readJsonBody } from "../../runtime/component/body.js";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { json, rawRequest, startServer } from "./support.js";

const LIMIT = 1024;
const test = suite<{ url: string; close: () => Promise<void>; reads: number }>("body reader", { url: "", close: async () => {}, reads: 0 });

test.before(async (context) => {
  const server = await startServer((req, res) => {
    readJsonBody(req, LIMIT).then(
      (value) => res.end(JSON.stringify({ value })),
      (error: unknown) => {
        const e = error as ManifoldError;
        res.writeHead(e.status).end(JSON.stringify({ code: e.code }));
      },
    );
  });
  context.url = server.url;
  context.close = server.close;
});
test.after(async ({ close }) => close());

/** `contentType` null sends no Content-Type header at all. */
const post = (url: string, body: string | Buffer | undefined, contentType: string | null = "application/json") =>
  rawRequest(url, { method: "POST", ...(body === undefined ? {} : { body }), headers: contentType === null ? {} : { "content-type": contentType } });

test("media types: application/json with an optional UTF-8 charset only", () => {
  for (const ok of [
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    'application/json; charset="utf-8"',
  ]) {
    assert.ok(isJsonMediaType(ok), ok);
  }
  for (const bad of [
    undefined,
    "",
    "text/plain",
    "application/json; charset=latin1",
    "application/jsonp",
    "application/json-patch+json",
    "application/json; boundary=x",
  ]) {
    assert.not.ok(isJsonMediaType(bad), String(bad));
  }
});

test("an object body is parsed; absent and empty bodies are {}", async ({ url }) => {
  assert.equal(json(await post(url, '{"a":1,"b":[true,null]}')), { value: { a: 1, b: [true, null] } });
  assert.equal(json(await post(url, undefined, null)), { value: {} });
  assert.equal(json(await post(url, "", null)), { value: {} });
  assert.equal(json(await rawRequest(url, { method: "POST", chunks: [], headers: { "content-type": "application/json" } })), { value: {} });
});

test("UTF-8 split across chunks decodes correctly", async ({ url }) => {
  const bytes = Buffer.from('{"city":"Zürich – 東京"}');
  const chunks = [...bytes].map((b) => Buffer.from([b]));
  const response = await rawRequest(url, { method: "POST", chunks, headers: { "content-type": "application/json" } });
  assert.equal(json(response), { value: { city: "Zürich – 東京" } });
});

test("malformed JSON and non-objects are INVALID_JSON", async ({ url }) => {
  for (const body of ["{", "{'a':1}", "[1,2]", '"text"', "null", "42", "true"]) {
    const response = await post(url, body);
    assert.is(response.status, 400, body);
    assert.equal(json(response), { code: "INVALID_JSON" }, body);
  }
});

test("nesting: 64 levels are read, 65 are INVALID_INPUT; brackets inside strings do not count", async ({ url }) => {
  const nested = (levels: number) => `{"a":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
  assert.is((await post(url, nested(64))).status, 200);
  const over = await post(url, nested(65));
  assert.equal([over.status, json(over)], [400, { code: "INVALID_INPUT" }]);
  const quoted = `{"s":"${"[".repeat(300)}","t":"\\"{{{{${"{".repeat(100)}"}`;
  assert.equal(json(await post(url, quoted)), { value: { s: "[".repeat(300), t: `"${"{".repeat(104)}` } });
});

test("invalid UTF-8 is INVALID_JSON, not silently replaced", async ({ url }) => {
  const bytes = Buffer.concat([Buffer.from('{"city":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const response = await post(url, bytes);
  assert.equal([response.status, json(response)], [400, { code: "INVALID_JSON" }]);
});

test("a U+FFFD the client sent is read as that character; invalid bytes beside one are still INVALID_JSON", async ({ url }) => {
  const replacement = Buffer.from([0xef, 0xbf, 0xbd]);
  const valid = Buffer.concat([Buffer.from('{"city":"'), replacement, Buffer.from('"}')]);
  assert.equal(json(await post(url, valid)), { value: { city: "\uFFFD" } });
  const mixed = Buffer.concat([Buffer.from('{"city":"'), replacement, Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
  const refused = await post(url, mixed);
  assert.equal([refused.status, json(refused)], [400, { code: "INVALID_JSON" }]);
});

test("a body that is not application/json is 415, an empty one is not checked", async ({ url }) => {
  for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=iso-8859-1"]) {
    const response = await post(url, '{"a":1}', type);
    assert.is(response.status, 415, type);
    assert.equal(json(response), { code: "UNSUPPORTED_MEDIA_TYPE" });
  }
  assert.is((await post(url, '{"a":1}', null)).status, 415);
  assert.is((await post(url, "", "text/plain")).status, 200);
});

test("the limit applies to Content-Length up front and to chunked bytes as they arrive", async ({ url }) => {
  assert.is((await post(url, "{" + " ".repeat(LIMIT - 2) + "}")).status, 200);
  const over = await post(url, "{" + " ".repeat(LIMIT - 1) + "}");
  assert.is(over.status, 413);
  assert.equal(json(over), { code: "PAYLOAD_TOO_LARGE" });
  const chunked = await rawRequest(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    chunks: Array.from({ length: 8 }, () => Buffer.from(" ".repeat(200))),
  });
  assert.is(chunked.status, 413);
  // The declared length is read as a number, leading zeros and all.
  const padded = (body: string) =>
    rawRequest(url, { method: "POST", headers: { "content-type": "application/json", "content-length": `0000${body.length}` }, body });
  assert.is((await padded("{" + " ".repeat(LIMIT - 1) + "}")).status, 413);
  assert.equal(json(await padded('{"a":1}')), { value: { a: 1 } });
});

test("after a 413 the rest of the upload is drained and the keep-alive connection serves the next request", async ({ url }) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const big = Buffer.alloc(512 * 1024, 0x20);
    const first = await rawRequest(url, { method: "POST", agent, body: big, headers: { "content-type": "application/json" } });
    assert.is(first.status, 413);
    const second = await rawRequest(url, { method: "POST", agent, body: '{"ok":true}', headers: { "content-type": "application/json" } });
    assert.is(second.status, 200);
    assert.ok(second.reusedSocket, "same socket");
    const chunked = await rawRequest(url, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json" },
      chunks: Array.from({ length: 64 }, () => Buffer.alloc(8 * 1024, 0x20)),
    });
    assert.is(chunked.status, 413);
    const third = await rawRequest(url, { method: "POST", agent, body: "{}", headers: { "content-type": "application/json" } });
    assert.is(third.status, 200);
    assert.ok(third.reusedSocket, "same socket after a chunked 413");
  } finally {
    agent.destroy();
  }
});

test.run();
