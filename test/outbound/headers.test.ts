/** The exact headers a tool receives in each precedence case, and the reserved-header skip. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createCaller, withRequestContext, type OutboundRequest } from "../../runtime/outbound/index.js";
import { callerHeaders, startRecorder } from "./support.js";

type Recorder = Awaited<ReturnType<typeof startRecorder>>;
const test = suite<{ tool: Recorder | undefined }>("outbound headers", { tool: undefined });
test.before(async (context) => void (context.tool = await startRecorder()));
test.after(async ({ tool }) => tool?.close());

const NO_ENV = {};
const BASE = { "content-type": "application/json", "x-manifold-request-id": "<uuid>", "x-manifold-step-id": "<uuid>" };

async function received(
  tool: Recorder | undefined,
  caller: ReturnType<typeof createCaller>,
  request: Partial<OutboundRequest> = {},
): Promise<Record<string, string>> {
  await caller.call({ url: `${tool!.url}/api/capabilities/echo`, body: { a: 1 }, name: "echo", ...request });
  const last = tool!.received.at(-1)!;
  assert.is(last.body, request.body === undefined ? '{"a":1}' : JSON.stringify(request.body));
  return callerHeaders(last.headers);
}

test("no token anywhere: Content-Type and the two ids only", async ({ tool }) => {
  assert.equal(await received(tool, createCaller({ env: NO_ENV })), BASE);
});

test("token precedence: per-request > context > configured (option) > MANIFOLD_OAUTH_TOKEN > none", async ({ tool }) => {
  const fromEnv = createCaller({ env: { MANIFOLD_OAUTH_TOKEN: "env-token" } });
  assert.equal(await received(tool, fromEnv), { ...BASE, authorization: "Bearer env-token" });
  const configured = createCaller({ token: "configured-token", env: { MANIFOLD_OAUTH_TOKEN: "env-token" } });
  assert.equal(await received(tool, configured), { ...BASE, authorization: "Bearer configured-token" });
  const inContext = await withRequestContext({ token: "context-token" }, () => received(tool, configured));
  assert.equal(inContext, { ...BASE, authorization: "Bearer context-token" });
  const perRequest = await withRequestContext({ token: "context-token" }, () => received(tool, configured, { token: "call-token" }));
  assert.equal(perRequest, { ...BASE, authorization: "Bearer call-token" });
  configured.setToken(undefined);
  assert.equal(await received(tool, configured), BASE, "a cleared token sends none (the environment is not read again)");
});

test("propagated headers: configured, then context, then per-request; later wins, names compared case-insensitively", async ({ tool }) => {
  const caller = createCaller({ env: NO_ENV, headers: { "X-Tenant": "configured", "x-region": "eu", "x-only-configured": "1" } });
  assert.equal(await received(tool, caller), { ...BASE, "x-tenant": "configured", "x-region": "eu", "x-only-configured": "1" });
  const fromContext = await withRequestContext({ headers: { "x-tenant": "context", "X-Only-Context": "2" } }, () => received(tool, caller));
  assert.equal(fromContext, { ...BASE, "x-tenant": "context", "x-region": "eu", "x-only-configured": "1", "x-only-context": "2" });
  const perRequest = await withRequestContext({ headers: { "x-tenant": "context", "x-region": "us" } }, () =>
    received(tool, caller, { headers: { "X-TENANT": "call" } }),
  );
  assert.equal(perRequest, { ...BASE, "x-tenant": "call", "x-region": "us", "x-only-configured": "1" });
});

test("reserved names in propagated headers are skipped, in any case and from any source", async ({ tool }) => {
  const reserved = {
    Authorization: "Bearer stolen",
    "content-type": "text/plain",
    "X-MANIFOLD-REQUEST-ID": "forged-request",
    "x-manifold-step-id": "forged-step",
    "X-Workflow-Id": "forged-wf",
    "x-STEP-id": "forged-step-2",
    "x-kept": "yes",
  };
  const caller = createCaller({ env: NO_ENV, token: "real", headers: reserved });
  const headers = await received(tool, caller, { headers: reserved, requestId: "req-1", stepId: "step-1" });
  assert.equal(headers, {
    "content-type": "application/json",
    authorization: "Bearer real",
    "x-kept": "yes",
    "x-manifold-request-id": "req-1",
    "x-manifold-step-id": "step-1",
  });
  // Setting one explicitly in a context is refused outright: a silent skip would hide the mistake.
  assert.throws(
    () => withRequestContext({ headers: { "X-Workflow-Id": "x" } }, () => undefined),
    (e: unknown) => e instanceof ManifoldError && /X-Workflow-Id/.test(e.message),
  );
});

test("request and step ids: given, else the context's request id, else fresh; workflow calls add X-Workflow-Id and X-Step-Id", async ({ tool }) => {
  const caller = createCaller({ env: NO_ENV });
  const inherited = await withRequestContext({ requestId: "incoming-7" }, () => received(tool, caller));
  assert.is(inherited["x-manifold-request-id"], "incoming-7");
  const workflow = await received(tool, caller, { requestId: "r-1", stepId: "s-1", workflow: { id: "wf-9", stepId: "geocode" } });
  assert.equal(workflow, {
    "content-type": "application/json",
    "x-manifold-request-id": "r-1",
    "x-manifold-step-id": "s-1",
    "x-workflow-id": "wf-9",
    "x-step-id": "geocode",
  });
});

test("the conversation id travels as X-Manifold-Conversation-ID when telemetry is not initialised", async ({ tool }) => {
  const caller = createCaller({ env: NO_ENV });
  const headers = await withRequestContext({ conversationId: "conv-42" }, () => received(tool, caller));
  assert.equal(headers, { ...BASE, "x-manifold-conversation-id": "conv-42" });
  assert.not.ok("traceparent" in headers || "baggage" in headers);
  assert.throws(() => withRequestContext({ conversationId: "not valid!" }, () => undefined), /conversationId/);
});

test("a token with a Bearer prefix is refused clearly, wherever it comes from, without quoting it", async ({ tool }) => {
  const isPrefixError = (e: unknown): boolean =>
    e instanceof ManifoldError && e.code === "INVALID_INPUT" && /without "Bearer "/.test(e.message) && !e.message.includes("abc123");
  assert.throws(() => createCaller({ token: "Bearer abc123" }), isPrefixError);
  assert.throws(
    () => createCaller({ env: { MANIFOLD_OAUTH_TOKEN: "Bearer abc123" } }),
    (e: unknown) => isPrefixError(e) && /MANIFOLD_OAUTH_TOKEN/.test((e as Error).message),
  );
  const caller = createCaller({ env: NO_ENV });
  assert.throws(() => caller.setToken("bearer abc123"), isPrefixError);
  assert.throws(() => withRequestContext({ token: "Bearer abc123" }, () => undefined), isPrefixError);
  const before = tool!.received.length;
  try {
    await caller.call({ url: `${tool!.url}/x`, body: {}, name: "x", token: "Bearer abc123" });
    assert.unreachable("should have failed");
  } catch (error) {
    assert.ok(isPrefixError(error));
  }
  assert.is(tool!.received.length, before, "nothing was sent");
});

test.run();
