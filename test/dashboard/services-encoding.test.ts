/**
 * `/api/services` encoded once per registry snapshot: the same records compressed for a client that
 * accepts gzip or Brotli (and plain for one that does not), an ETag a polling browser revalidates with
 * (304, no body, while the list is unchanged), and a new ETag once a registration changes.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { variantFor } from "../../runtime/dashboard/http.js";
import { serveDashboard, type RunningDashboard } from "../../runtime/dashboard/index.js";
import { createMemoryRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { eventually } from "../support/wait.js";
import { capability, registration } from "./support.js";

interface Raw {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly bytes: Buffer;
}

/** node:http, not fetch: fetch inflates bodies and adds its own Accept-Encoding. */
function raw(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

const quiet = (): void => undefined;
let store: Store;
let registry: Registry;
let dashboard: RunningDashboard;
let url: string;

test.before(async () => {
  store = createStore({ env: {} });
  registry = createMemoryRegistry();
  // Enough records that the list is worth compressing (a few KiB), of two types for the filter.
  for (let i = 0; i < 40; i += 1)
    await registry.register(
      registration({
        id: `svc-${String(i).padStart(3, "0")}`,
        name: `svc-${i % 5}`,
        type: i % 4 === 0 ? "agent" : "tool",
        capabilities: [capability(`cap_${i}`)],
      }),
    );
  // freshMs 0: every request reloads the snapshot behind it, so a change shows on a following request.
  dashboard = await serveDashboard({ port: 0, handleSignals: false, log: quiet, store, registry, env: {}, registryView: { freshMs: 0 } });
  url = `${dashboard.url}/api/services`;
});

test.after(async () => {
  await dashboard?.close();
  await registry?.close();
  await store?.close();
});

test("a client accepting gzip or Brotli gets the same records compressed; one accepting neither gets them plain", async () => {
  const plain = await raw(url, { "accept-encoding": "identity" });
  assert.is(plain.status, 200);
  assert.is(plain.headers["content-encoding"], undefined);
  assert.is(plain.headers["content-type"], "application/json; charset=utf-8");
  const records = JSON.parse(plain.bytes.toString("utf8")) as { id: string }[];
  assert.is(records.length, 40);
  // The variants are made on the thread pool after the snapshot: asked until they are there.
  const gz = await eventually("the gzip variant", async () => {
    const reply = await raw(url, { "accept-encoding": "gzip, deflate" });
    return reply.headers["content-encoding"] === "gzip" ? reply : undefined;
  });
  assert.ok(gz.bytes.length < plain.bytes.length / 2, `gzip ${gz.bytes.length} bytes against ${plain.bytes.length}`);
  assert.equal(gunzipSync(gz.bytes), plain.bytes);
  assert.match(String(gz.headers.vary), /Accept-Encoding/);
  // gzip is ready now: a client accepting both never gets the plain bytes, and Brotli once it is made.
  const either = await raw(url, { "accept-encoding": "gzip, deflate, br" });
  assert.ok(["br", "gzip"].includes(String(either.headers["content-encoding"])), `compressed, got ${either.headers["content-encoding"]}`);
  const br = await eventually("the Brotli variant", async () => {
    const reply = await raw(url, { "accept-encoding": "gzip, deflate, br" });
    return reply.headers["content-encoding"] === "br" ? reply : undefined;
  });
  assert.equal(brotliDecompressSync(br.bytes), plain.bytes);
  const refused = await raw(url, { "accept-encoding": "br;q=0, gzip;q=0" });
  assert.is(refused.headers["content-encoding"], undefined, "q=0 refuses an encoding");
  assert.equal(refused.bytes, plain.bytes);
  assert.is(gz.headers.etag, plain.headers.etag, "one entity whatever its coding: one (weak) ETag");
});

test("Brotli is preferred when ready; until it is, a client accepting both gets gzip, and plain only when neither is ready", () => {
  const identity = Buffer.from("[]");
  const gzipOnly = { identity, etag: 'W/"x"', compressed: (e: string) => (e === "gzip" ? Buffer.from("gz") : undefined) };
  assert.equal(variantFor(gzipOnly, "gzip, deflate, br"), { body: Buffer.from("gz"), encoding: "gzip" });
  assert.equal(variantFor(gzipOnly, "br"), { body: identity });
  const both = { ...gzipOnly, compressed: (e: string) => Buffer.from(e) };
  assert.equal(variantFor(both, "gzip, br"), { body: Buffer.from("br"), encoding: "br" });
  assert.equal(variantFor(both, "br;q=0, gzip"), { body: Buffer.from("gzip"), encoding: "gzip" });
  assert.equal(variantFor(both, "identity"), { body: identity });
});

test("a client holding the current ETag gets 304 without a body; after a registration changes it gets the new list", async () => {
  const first = await raw(url, { "accept-encoding": "identity" });
  const etag = String(first.headers.etag);
  assert.match(etag, /^W\/".+"$/);
  assert.is(first.headers["cache-control"], "no-cache", "a browser keeps the answer but asks again every time");
  const again = await raw(url, { "if-none-match": etag });
  assert.is(again.status, 304);
  assert.is(again.bytes.length, 0);
  assert.is((await raw(url, { "if-none-match": `"other", ${etag}` })).status, 304, "any tag of a list");
  assert.is((await raw(url, { "if-none-match": '"other"' })).status, 200);

  await registry.register(registration({ id: "svc-new", name: "svc-new" }));
  const changed = await eventually("the new registration in /api/services", async () => {
    const reply = await raw(url, { "if-none-match": etag, "accept-encoding": "identity" });
    return reply.status === 200 ? reply : undefined;
  });
  assert.is.not(changed.headers.etag, etag);
  assert.ok((JSON.parse(changed.bytes.toString("utf8")) as { id: string }[]).some((r) => r.id === "svc-new"));
});

test("?type= answers its own list with its own ETag", async () => {
  const agents = await raw(`${url}?type=agent`, { "accept-encoding": "identity" });
  const all = await raw(url, { "accept-encoding": "identity" });
  const records = JSON.parse(agents.bytes.toString("utf8")) as { type: string }[];
  assert.is(records.length, 10);
  assert.ok(records.every((r) => r.type === "agent"));
  assert.is.not(agents.headers.etag, all.headers.etag);
  assert.is((await raw(`${url}?type=agent`, { "if-none-match": String(all.headers.etag) })).status, 200);
});

test.run();
