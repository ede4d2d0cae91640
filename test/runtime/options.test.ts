import type { IncomingMessage } from "node:http";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { normalisePrefix, publicUrl, validHost } from "../../runtime/component/openapi-route.js";
import { resolveBodyLimit, resolveEnableOpenApi, resolveHost, resolvePort } from "../../runtime/component/options.js";

test("port: option > PORT > manifest > 8098 (the spec's default), and bad values name their source", () => {
  assert.is(resolvePort(1234, 8000, { PORT: "9000" }), 1234);
  assert.is(resolvePort(0, 8000, { PORT: "9000" }), 0, "an explicit 0 is kept");
  assert.is(resolvePort(undefined, 8000, { PORT: "9000" }), 9000);
  assert.is(resolvePort(undefined, 8000, {}), 8000);
  assert.is(resolvePort(undefined, undefined, { PORT: "" }), 8098, "no option, no PORT, no manifest port: the spec's 8098");
  assert.is(resolvePort(undefined, undefined, {}), 8098);
  assert.is(resolvePort(0, undefined, {}), 0, "a free port is still an explicit 0");
  assert.throws(() => resolvePort(undefined, 8000, { PORT: "http" }), /PORT/);
  assert.throws(() => resolvePort(70000, undefined, {}), /port/);
  assert.throws(() => resolvePort(1.5, undefined, {}), /port/);
});

test("host: option > HOST > loopback", () => {
  assert.is(resolveHost("0.0.0.0", { HOST: "::" }), "0.0.0.0");
  assert.is(resolveHost(undefined, { HOST: "::" }), "::");
  assert.is(resolveHost(undefined, {}), "127.0.0.1");
});

test("openapi: option > MANIFOLD_ENABLE_OPENAPI > off", () => {
  assert.is(resolveEnableOpenApi(false, { MANIFOLD_ENABLE_OPENAPI: "true" }), false);
  assert.is(resolveEnableOpenApi(true, { MANIFOLD_ENABLE_OPENAPI: "false" }), true);
  assert.is(resolveEnableOpenApi(undefined, { MANIFOLD_ENABLE_OPENAPI: "true" }), true);
  assert.is(resolveEnableOpenApi(undefined, { MANIFOLD_ENABLE_OPENAPI: "false" }), false);
  assert.is(resolveEnableOpenApi(undefined, {}), false);
  assert.throws(() => resolveEnableOpenApi(undefined, { MANIFOLD_ENABLE_OPENAPI: "yes" }), /MANIFOLD_ENABLE_OPENAPI/);
});

test("OpenAPI: DEV_MODE=true turns it on by default, MANIFOLD_DEV_DISABLE_OPENAPI stops that; option > variable > default", () => {
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "true" }), true, "the dev default enables OpenAPI");
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "true", MANIFOLD_DEV_DISABLE_OPENAPI: "true" }), false);
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "true", MANIFOLD_DEV_DISABLE_OPENAPI: "false" }), true);
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "false" }), false, "outside dev mode the default stays off");
  assert.is(resolveEnableOpenApi(undefined, { MANIFOLD_DEV_DISABLE_OPENAPI: "false" }), false, "the switch never turns OpenAPI on");
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "true", MANIFOLD_ENABLE_OPENAPI: "false" }), false, "the variable wins over the dev default");
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "true", MANIFOLD_DEV_DISABLE_OPENAPI: "true", MANIFOLD_ENABLE_OPENAPI: "true" }), true);
  assert.is(resolveEnableOpenApi(true, { DEV_MODE: "true", MANIFOLD_DEV_DISABLE_OPENAPI: "true" }), true, "the option wins over everything");
  assert.is(resolveEnableOpenApi(false, { DEV_MODE: "true" }), false);
  assert.is(resolveEnableOpenApi(undefined, { DEV_MODE: "true", MANIFOLD_DEV_DISABLE_OPENAPI: "1" }), false, "a flag takes 1 for true");
  assert.throws(() => resolveEnableOpenApi(undefined, { DEV_MODE: "true", MANIFOLD_DEV_DISABLE_OPENAPI: "yes" }), /MANIFOLD_DEV_DISABLE_OPENAPI/);
});

test("body limit: 1 MiB by default, 0 allowed, nonsense refused", () => {
  assert.is(resolveBodyLimit(undefined), 1024 * 1024);
  assert.is(resolveBodyLimit(0), 0);
  assert.throws(() => resolveBodyLimit(-1));
  assert.throws(() => resolveBodyLimit(Number.NaN));
});

test("forwarded host values must look like host[:port]", () => {
  for (const ok of ["example.com", "api.example.com:8443", "localhost", "10.0.0.1:80", "[::1]:3000", "a-b.c"]) assert.is(validHost(ok), ok);
  for (const bad of [undefined, "", "evil.com/path", 'x"}]', "a b", "user@host", "host:port", "-bad.com", "<script>", "x".repeat(300)]) {
    assert.is(validHost(bad), undefined, String(bad));
  }
});

test("forwarded prefixes are normalised: leading slash, no trailing slash, safe characters only", () => {
  assert.is(normalisePrefix("api"), "/api");
  assert.is(normalisePrefix("/api/v1/"), "/api/v1");
  assert.is(normalisePrefix("//a//b//"), "/a/b");
  assert.is(normalisePrefix("/"), "");
  assert.is(normalisePrefix("/caf%C3%A9"), "/caf%C3%A9");
  for (const bad of ["/a b", "/../etc", "/./x", '/"x', "/a?b", "/a#b", "/%zz", "/<x>", "http://evil"]) assert.is(normalisePrefix(bad), undefined, bad);
});

function fakeRequest(headers: Record<string, string>): IncomingMessage {
  return { headers, socket: { localAddress: "127.0.0.1", localPort: 4000 } } as unknown as IncomingMessage;
}

test("public URL: forwarded proto, host and prefix when valid, else Host, else the socket", () => {
  assert.is(publicUrl(fakeRequest({ host: "127.0.0.1:4000" })), "http://127.0.0.1:4000");
  assert.is(
    publicUrl(fakeRequest({ host: "internal:4000", "x-forwarded-proto": "https", "x-forwarded-host": "api.example.com", "x-forwarded-prefix": "/weather/" })),
    "https://api.example.com/weather",
  );
  assert.is(
    publicUrl(fakeRequest({ host: "internal:4000", "x-forwarded-host": "a.example.com, b.example.com", "x-forwarded-proto": "HTTPS, http" })),
    "https://a.example.com",
  );
  assert.is(
    publicUrl(
      fakeRequest({ host: "internal:4000", "x-forwarded-host": 'evil.com"><script>', "x-forwarded-proto": "javascript", "x-forwarded-prefix": "/../x" }),
    ),
    "http://internal:4000",
  );
  assert.is(publicUrl(fakeRequest({ host: "bad host" })), "http://127.0.0.1:4000");
});

test.run();
