/** The per-request context: a handler forwards the incoming token and chosen headers to its outbound calls. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createClient, serveComponent } from "../../runtime/component/index.js";
import type { HandlerContext, RunningComponent } from "../../runtime/component/index.js";
import { currentScope, withRequestContext } from "../../runtime/outbound/index.js";
import { agent, agentSpec, tool, toolSpec } from "../support/specs.js";
import { callerHeaders, startRecorder } from "./support.js";

const downstream = toolSpec(tool("downstream", { description: "d", capabilities: { record: {} } }));
const front = agentSpec(agent("front", { description: "f", capabilities: { relay: {}, plain: {}, nested: {} } }));
type Any = { input: unknown; output: unknown };

const test = suite<{ tool?: Awaited<ReturnType<typeof startRecorder>>; running?: RunningComponent }>("request context", {});

test.before(async (context) => {
  const tool = await startRecorder();
  const next = createClient<{ record: Any }>(downstream, { baseUrl: tool.url, token: "service-token", headers: { "x-configured": "c" } });
  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const handlers = {
    relay: async (input: unknown, ctx: HandlerContext) => {
      ctx.forward({ headers: ["X-Tenant", "authorization", "host"] });
      ctx.outbound.setHeader("x-region", "eu");
      await delay(Number((input as { wait?: number }).wait ?? 0)); // interleave concurrent requests
      return next.record({ from: ctx.requestId });
    },
    plain: () => next.record({}),
    nested: (_input: unknown, ctx: HandlerContext) => {
      ctx.forward({ token: false, headers: ["x-tenant"] });
      return withRequestContext({ headers: { "x-extra": "1" }, conversationId: "conv-nested" }, () => next.record({ scope: currentScope()?.requestId }));
    },
  };
  context.tool = tool;
  context.running = await serveComponent<{ relay: Any; plain: Any; nested: Any }>(front, {
    port: 0,
    handleSignals: false,
    registry: false,
    log: () => undefined,
    handlers,
  });
});
test.after(async ({ tool, running }) => {
  await running?.close();
  await tool?.close();
});

const post = (url: string, path: string, headers: Record<string, string>, body: unknown = {}) =>
  fetch(`${url}/api/capabilities/${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

test("forward copies the incoming bearer token and the chosen headers; one more header is added, nothing else leaks", async ({ tool, running }) => {
  const response = await post(running!.url, "relay", {
    authorization: "Bearer user-token",
    "x-tenant": "acme",
    "x-other": "no",
    "x-manifold-request-id": "req-in-1",
  });
  assert.is(response.status, 200);
  assert.equal(callerHeaders(tool!.received.at(-1)!.headers), {
    "content-type": "application/json",
    authorization: "Bearer user-token",
    "x-configured": "c",
    "x-tenant": "acme",
    "x-region": "eu",
    "x-manifold-request-id": "req-in-1",
    "x-manifold-step-id": "<uuid>",
  });
});

test("without forward, the handler's calls carry the configured token and the incoming request id only", async ({ tool, running }) => {
  await post(running!.url, "plain", { authorization: "Bearer user-token", "x-tenant": "acme", "x-manifold-request-id": "req-in-2" });
  assert.equal(callerHeaders(tool!.received.at(-1)!.headers), {
    "content-type": "application/json",
    authorization: "Bearer service-token",
    "x-configured": "c",
    "x-manifold-request-id": "req-in-2",
    "x-manifold-step-id": "<uuid>",
  });
});

test("concurrent requests keep their own token and headers", async ({ tool, running }) => {
  const users = Array.from({ length: 8 }, (_, i) => i);
  await Promise.all(
    users.map((i) =>
      post(
        running!.url,
        "relay",
        { authorization: `Bearer user-${i}-token`, "x-tenant": `t-${i}`, "x-manifold-request-id": `req-c-${i}` },
        { wait: (i % 3) * 15 },
      ),
    ),
  );
  for (const i of users) {
    const seen = tool!.received.find((r) => r.headers["x-manifold-request-id"] === `req-c-${i}`);
    assert.ok(seen, `request ${i} arrived`);
    assert.is(seen.headers["authorization"], `Bearer user-${i}-token`);
    assert.is(seen.headers["x-tenant"], `t-${i}`);
  }
});

test("withRequestContext inside a handler refines its context: adds a header and a conversation id, keeps the rest", async ({ tool, running }) => {
  await post(running!.url, "nested", { authorization: "Bearer user-token", "x-tenant": "acme", "x-manifold-request-id": "req-in-3" });
  const last = tool!.received.at(-1)!;
  assert.equal(JSON.parse(last.body), { scope: "req-in-3" });
  assert.equal(callerHeaders(last.headers), {
    "content-type": "application/json",
    authorization: "Bearer service-token",
    "x-configured": "c",
    "x-tenant": "acme",
    "x-extra": "1",
    "x-manifold-request-id": "req-in-3",
    "x-manifold-step-id": "<uuid>",
    "x-manifold-conversation-id": "conv-nested",
  });
});

test("an incoming X-Manifold-Conversation-ID reaches the handler and its outbound calls", async ({ tool, running }) => {
  await post(running!.url, "plain", { "x-manifold-conversation-id": "conv-77", "x-manifold-request-id": "req-in-4" });
  assert.is(tool!.received.at(-1)!.headers["x-manifold-conversation-id"], "conv-77");
  await post(running!.url, "plain", { "x-manifold-conversation-id": "bad value!", "x-manifold-request-id": "req-in-5" });
  assert.is(tool!.received.at(-1)!.headers["x-manifold-conversation-id"], undefined, "an invalid id is dropped");
});

test.run();
