/** A component that requires a bearer token: 401 without one, and the caller logs it. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createComponentApp } from "../../runtime/component/app.js";
import { createClient, serveComponent } from "../../runtime/component/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import type { AuthOptions } from "../../runtime/component/types.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { json, rawRequest } from "../runtime/support.js";
import { tool, toolSpec } from "../support/specs.js";

const spec = toolSpec(tool("guarded", { description: "needs a token", capabilities: { whoami: { description: "echo" } } }));
type Caps = { whoami: { input: Record<string, never>; output: { ok: true } } };
const handlers = { whoami: () => ({ ok: true as const }) };

function serve(auth: AuthOptions): Promise<RunningComponent> {
  return serveComponent<Caps>(spec, { port: 0, handleSignals: false, registry: false, log: () => undefined, auth, handlers });
}

const test = suite("component auth");

test("without a token: 401 UNAUTHORIZED envelope with WWW-Authenticate; the caller logs `component returned status 401`", async () => {
  const running = await serve({ required: true });
  try {
    const raw = await rawRequest(`${running.url}/api/capabilities/whoami`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.is(raw.status, 401);
    assert.is(raw.headers["www-authenticate"], "Bearer");
    assert.equal(json(raw), {
      success: false,
      error: { code: "UNAUTHORIZED", message: "a bearer token is required", category: "auth_error", retryable: false },
    });

    const lines: string[] = [];
    const log = createLogger({ component: "outbound", write: (line) => void lines.push(line), env: {} });
    const client = createClient<Caps>(spec, { baseUrl: running.url, log });
    const error = await client.whoami({}).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, ManifoldError);
    assert.is((error as ManifoldError).code, "UNAUTHORIZED");
    assert.is((error as ManifoldError).status, 401);
    assert.is(lines.length, 1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.is(line["level"], "warn");
    assert.match(String(line["message"]), "component returned status 401");

    assert.equal(await createClient<Caps>(spec, { baseUrl: running.url, token: "good-token" }).whoami({}), { ok: true });
    const health = await rawRequest(`${running.url}/health`);
    assert.is(health.status, 200, "/health stays open");
    const listing = await rawRequest(`${running.url}/api/capabilities`);
    assert.is(listing.status, 200, "/api/capabilities stays open");
  } finally {
    await running.close();
  }
});

test("verify decides, sync or async; a malformed Authorization header is 401 even when a token is optional", async () => {
  const seen: string[] = [];
  const sync = await serve({
    verify: (token) => {
      seen.push(token);
      return token === "letmein";
    },
  });
  const optional = await serve({ required: false, verify: async (token) => token.startsWith("ok-") });
  try {
    const call = (url: string, authorization?: string) =>
      rawRequest(`${url}/api/capabilities/whoami`, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) },
      });
    assert.is((await call(sync.url, "Bearer letmein")).status, 200);
    assert.is((await call(sync.url, "Bearer nope")).status, 401);
    assert.equal(seen, ["letmein", "nope"]);
    assert.is((await call(optional.url)).status, 200, "optional: no header is fine");
    assert.is((await call(optional.url, "Bearer ok-1")).status, 200);
    assert.is((await call(optional.url, "Bearer bad")).status, 401);
    assert.is((await call(optional.url, "Basic dXNlcjpwYXNz")).status, 401);
  } finally {
    await Promise.all([sync.close(), optional.close()]);
  }
});

test("the Koa path answers a 401 byte for byte like the fast path", async () => {
  const answers = [];
  for (const fastPath of [true, false]) {
    const app = createComponentApp<Caps>(spec, { handlers, log: () => undefined, auth: {} }, { fastPath });
    const server = createServer(app.listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const raw = await rawRequest(`http://127.0.0.1:${port}/api/capabilities/whoami`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-manifold-request-id": "r-1" },
      body: "{}",
    });
    answers.push({ status: raw.status, text: raw.text, headers: Object.entries(raw.headers).filter(([k]) => k !== "date") });
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal(answers[0], answers[1]);
});

test.run();
