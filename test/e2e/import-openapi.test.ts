/**
 * An imported service joins the network with no hand-written code: `manifold import openapi` on the
 * Swagger petstore, then the emitted proxy module serves the tool, and calls to its capabilities reach a
 * stub of the original service (a real node:http server) with the right method, path, query, headers
 * and body, and its answers come back as the capabilities' outputs.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, readFile, readdir, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parse } from "yaml";
import { main } from "../../generator/cli.js";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

const OUT = resolve("test-output/import-openapi-e2e");

async function stubService(answer: (seen: Seen) => { status: number; body?: unknown }) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(request);
      const { status, body } = answer(request);
      res.writeHead(status, { "content-type": "application/json" }).end(body === undefined ? "" : JSON.stringify(body));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`, close: () => new Promise<void>((done) => server.close(() => done())) };
}

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

test("the imported petstore serves, and each call reaches the original service as its operation", async () => {
  await rm(OUT, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  const io = { out: () => undefined, err: () => undefined, color: false };
  assert.is(await main(["import", "openapi", "test/fixtures/openapi/petstore-swagger2.yaml", "--name", "petstore", "--out", OUT], io), 0);
  assert.is(
    await main(["import", "openapi", "test/fixtures/openapi/petstore-swagger2.yaml", "--name", "petstore", "--out", OUT], io),
    1,
    "no overwrite without --force",
  );
  const stub = await stubService(({ method, url }) => {
    if (method === "GET" && url.startsWith("/v2/pet/findByStatus")) return { status: 200, body: [{ id: 1, name: "rex", photoUrls: [] }] };
    if (method === "GET" && url === "/v2/pet/404") return { status: 404, body: { message: "no such pet" } };
    if (method === "POST" && url === "/v2/pet") return { status: 200, body: {} };
    return { status: 200 };
  });
  const { serve } = (await import(pathToFileURL(`${OUT}/petstore.proxy.ts`).href)) as {
    serve: (o: object, p: object) => Promise<{ url: string; close(): Promise<void> }>;
  };
  const running = await serve({ port: 0 }, { baseUrl: stub.url, token: "service-token" });
  try {
    const found = await post(`${running.url}/api/capabilities/find_pets_by_status`, { status: ["available", "sold"] });
    assert.is(found.status, 200);
    assert.equal(found.body, { result: [{ id: 1, name: "rex", photoUrls: [] }] });
    assert.is(stub.seen[0]!.method, "GET");
    assert.is(stub.seen[0]!.url, "/v2/pet/findByStatus?status=available&status=sold");
    assert.is(stub.seen[0]!.headers.authorization, "Bearer service-token");

    const added = await post(`${running.url}/api/capabilities/add_pet`, { name: "rex", photoUrls: ["u"], status: "available" }, { "x-trace-me": "1" });
    assert.is(added.status, 200);
    assert.is(stub.seen[1]!.method, "POST");
    assert.equal(JSON.parse(stub.seen[1]!.body), { name: "rex", photoUrls: ["u"], status: "available" });
    assert.is(stub.seen[1]!.headers["content-type"], "application/json");

    const deleted = await post(`${running.url}/api/capabilities/delete_pet`, { petId: 7, api_key: "k-123" });
    assert.is(deleted.status, 200);
    assert.is(stub.seen[2]!.method, "DELETE");
    assert.is(stub.seen[2]!.url, "/v2/pet/7");
    assert.is(stub.seen[2]!.headers["api_key"], "k-123");
    assert.is(stub.seen[2]!.body, "");

    const missing = await post(`${running.url}/api/capabilities/get_pet_by_id`, { petId: 404 });
    assert.is(missing.status, 404);
    assert.is((missing.body["error"] as Record<string, unknown>)["code"], "NOT_FOUND");
  } finally {
    await running.close();
    await stub.close();
    await rm(OUT, { recursive: true, force: true });
  }
});

test("the proxy sends the document's bearer and apiKey-header credentials from the environment variables the sidecar names", async () => {
  const out = `${OUT}-credentials`;
  await rm(out, { recursive: true, force: true });
  const run = await runImport(["test/fixtures/openapi/edge-cases-oas30.yaml", "--name", "edge-cases", "--out", out]);
  assert.is(run.code, 0);
  assert.match(run.out, "the proxy sends the service's credentials from EDGE_CASES_TOKEN, EDGE_CASES_API_KEY\n");
  const sidecar = await readFile(`${out}/edge-cases.proxy.json`, "utf8");
  assert.equal(JSON.parse(sidecar).credentials, {
    bearerAuth: { type: "bearer", env: "EDGE_CASES_TOKEN" },
    apiKey: { type: "header", header: "X-Api-Key", env: "EDGE_CASES_API_KEY" },
  });
  const stub = await stubService(() => ({ status: 200, body: {} }));
  const { serve } = (await import(pathToFileURL(`${out}/edge-cases.proxy.ts`).href)) as {
    serve: (o: object, p: object) => Promise<{ url: string; close(): Promise<void> }>;
  };
  const env = { EDGE_CASES_TOKEN: "bearer-from-env", EDGE_CASES_API_KEY: "key-from-env" };
  const running = await serve({ port: 0 }, { baseUrl: stub.url, env, token: "configured-manifold-token" });
  try {
    assert.is((await post(`${running.url}/api/capabilities/get_thing`, { id: "t1" })).status, 200);
    assert.is(stub.seen[0]!.headers.authorization, "Bearer bearer-from-env", "the document's bearer wins over the caller's own token");
    assert.is(stub.seen[0]!.headers["x-api-key"], undefined);
    assert.is((await post(`${running.url}/api/capabilities/add_pet`, { kind: "cat", lives: 9 })).status, 200);
    assert.is(stub.seen[1]!.headers["x-api-key"], "key-from-env");
    assert.equal(JSON.parse(stub.seen[1]!.body), { kind: "cat", lives: 9 }, "the widened union's members are the body");
    assert.is((await post(`${running.url}/api/capabilities/add_pet`, { kind: "bird" })).status, 400, "the tag is an enum");
    assert.is(stub.seen.length, 2);
    assert.is(stub.seen[1]!.headers.authorization, "Bearer configured-manifold-token", "apiKey only: the caller's own token as before");
    assert.is((await post(`${running.url}/api/capabilities/public_info`, {})).status, 200);
    assert.is(stub.seen[2]!.headers["x-api-key"], undefined);
    assert.is(stub.seen[2]!.url, "/v2/public");
    assert.not.match(sidecar, /from-env/);
  } finally {
    await running.close();
    await stub.close();
    await rm(out, { recursive: true, force: true });
  }
});

/** A loopback server answering every request with `answer`; `url` is its base. */
async function documentServer(answer: (req: IncomingMessage, res: import("node:http").ServerResponse) => void) {
  const server = createServer(answer);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

async function runImport(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(["import", "openapi", ...args], { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), color: false });
  return { code, out: out.join(""), err: err.join("") };
}

const URL_OUT = resolve("test-output/import-openapi-url");

test("a URL imports like the file it serves; the query (which may hold a credential) is in no written file", async () => {
  const json = JSON.stringify(parse(await readFile("test/fixtures/openapi/petstore-swagger2.yaml", "utf8")));
  const server = await documentServer((req, res) => {
    if (req.url?.startsWith("/openapi.json")) return void res.writeHead(200, { "content-type": "application/json" }).end(json);
    res.writeHead(404).end();
  });
  await rm(URL_OUT, { recursive: true, force: true });
  try {
    const run = await runImport([`${server.url}/openapi.json?access_token=s3cret`, "--name", "petstore", "--out", URL_OUT]);
    assert.is(run.code, 0, run.err);
    assert.match(run.out, /imported 18 of 20 operations/);
    const manifest = parse(await readFile(`${URL_OUT}/petstore.yaml`, "utf8")) as { capabilities: { name: string }[] };
    assert.is(manifest.capabilities.length, 18);
    for (const file of await readdir(URL_OUT)) assert.not.match(await readFile(`${URL_OUT}/${file}`, "utf8"), "s3cret", file);
    assert.not.match(run.err, "s3cret");
    assert.match(await readFile(`${URL_OUT}/petstore.import-report.md`, "utf8"), `Source: \`${server.url}/openapi.json\``);
  } finally {
    await server.close();
    await rm(URL_OUT, { recursive: true, force: true });
  }
});

test("a URL that answers 404, too slowly, too much, or not at all: one line on stderr, exit code 1, nothing written", async () => {
  const big = Buffer.alloc(1024 * 1024, 0x20);
  const server = await documentServer((req, res) => {
    if (req.url === "/slow.json") return; // never answers
    if (req.url === "/declared-huge.json") return void res.writeHead(200, { "content-length": String(64 * 1024 * 1024) }).flushHeaders();
    if (req.url === "/streamed-huge.json") {
      res.writeHead(200, { "content-type": "application/json" });
      let sent = 0;
      const more = (): void => {
        while (sent < 40 && res.write(big)) sent++;
        if (sent < 40) res.once("drain", more);
        else res.end();
      };
      return more();
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("no\nstack here");
  });
  const closed = await documentServer(() => undefined);
  const unreachable = closed.url;
  await closed.close();
  await rm(URL_OUT, { recursive: true, force: true });
  try {
    const cases: [string, string[], RegExp][] = [
      ["404", [`${server.url}/missing.json?key=s3cret`], /^manifold import: http:\/\/127\.0\.0\.1:\d+\/missing\.json answered 404 Not Found\n$/],
      [
        "timeout",
        [`${server.url}/slow.json`, "--timeout", "200ms"],
        /^manifold import: http:\/\/127\.0\.0\.1:\d+\/slow\.json did not answer in full within 200 ms\n$/,
      ],
      ["declared size", [`${server.url}/declared-huge.json`], /^manifold import: \S+ is larger than 33554432 bytes\n$/],
      ["streamed size", [`${server.url}/streamed-huge.json`], /^manifold import: \S+ is larger than 33554432 bytes\n$/],
      ["unreachable", [`${unreachable}/openapi.json`], /^manifold import: \S+ could not be reached \(ECONNREFUSED\)\n$/],
    ];
    for (const [what, args, message] of cases) {
      const run = await runImport([...args, "--name", "petstore", "--out", URL_OUT]);
      assert.is(run.code, 1, what);
      assert.match(run.err, message, what);
      assert.not.match(run.err, "s3cret", what);
    }
    const usage = await runImport([`${server.url}/slow.json`, "--timeout", "soon", "--out", URL_OUT]);
    assert.is(usage.code, 2);
    assert.match(usage.err, /--timeout must be a duration/);
    assert.not.ok(await readdir(URL_OUT).catch(() => undefined), "nothing written");
  } finally {
    await server.close();
  }
});

test.run();
