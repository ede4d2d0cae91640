/**
 * A plain `tools/call` (a name and arguments) is answered by the endpoint without the SDK's
 * `Protocol` (runtime/mcp/transport.ts `direct`). What a client sees must not change: the same bytes
 * as the SDK's server answers (a call carrying `_meta` still goes through it, so the two are compared
 * on one served component over raw HTTP), a `notifications/cancelled` aborting the call with no answer
 * sent, and the session's end aborting it.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent, type ComponentExtension, type HandlerContext, type RunningComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { eventually, within } from "../support/wait.js";
import { openSession, post, QUIET } from "./server-support.js";

const counter = toolSpec(
  tool("mcp-counter", {
    more: { mcp: true },
    capabilities: {
      count: { description: "counts letters", input: { word: "string" }, output: { word: "string", letters: "integer" } },
      refuse: { description: "refuses", input: { day: "string" }, output: { ok: "boolean" } },
      crash: { description: "fails unexpectedly" },
      listing: { description: "answers a list" },
      wait: { description: "waits for its signal", output: { reason: "string" } },
    },
  }),
);

const seen: { signals: AbortSignal[] } = { signals: [] };
const handlers = {
  count: (input: unknown) => {
    const { word } = input as { word: string };
    return { word, letters: word.length, note: 'quotes " and \\ and \u2028 and é' };
  },
  refuse: (): never => {
    throw new ManifoldError("HANDLER_ERROR", "no trips on Sundays", { details: [{ pointer: "/day", message: "is Sunday" }] });
  },
  crash: (): never => {
    throw new TypeError("secret internals");
  },
  listing: () => [1, "two", { three: 3 }],
  wait: (_input: unknown, ctx: HandlerContext) =>
    new Promise<{ reason: string }>((resolve) => {
      seen.signals.push(ctx.signal);
      ctx.signal.addEventListener("abort", () => resolve({ reason: String(ctx.signal.reason) }), { once: true });
    }),
};

const extension: ComponentExtension = {
  name: "texts",
  mcpTools: [
    {
      name: "say",
      description: "answers a text of its own beside its structured answer",
      inputSchema: { type: "object" },
      call: async () => ({ structured: { said: "hi" }, text: "hi there" }),
    },
    { name: "plain", description: "answers its structured answer as text", inputSchema: { type: "object" }, call: async () => ({ structured: { n: 1 } }) },
  ],
};

interface Context {
  running: RunningComponent;
  session: string;
}

const test = suite<Context>("a plain tools/call answered by the endpoint itself", {} as Context);

test.before(async (context) => {
  context.running = await serveComponent(counter, { ...QUIET, handlers, extensions: [extension] });
  context.session = await openSession(context.running.url);
});

test.after(async ({ running }) => {
  await running?.close();
});

const headersOf = (session: string) => ({ "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18" });

async function call(
  url: string,
  session: string,
  params: Record<string, unknown>,
  id: number | string,
): Promise<{ status: number; type: string | null; body: string }> {
  const answer = await post(url, { jsonrpc: "2.0", id, method: "tools/call", params }, headersOf(session));
  return { status: answer.status, type: answer.headers.get("content-type"), body: await answer.text() };
}

test("every kind of answer is byte for byte what the SDK's server answers", async ({ running, session }) => {
  const calls: [string, Record<string, unknown>][] = [
    ["count", { word: "Lyon" }],
    ["count", { word: 7 }],
    ["count", {}],
    ["refuse", { day: "Sunday" }],
    ["crash", {}],
    ["listing", {}],
    ["say", {}],
    ["plain", {}],
    ["nope", {}],
  ];
  for (const [index, [name, args]] of calls.entries()) {
    for (const id of [index + 10, `call-${index}`]) {
      const direct = await call(running.url, session, { name, arguments: args }, id);
      // `_meta` is something the SDK's server handles: this call goes through it.
      const sdk = await call(running.url, session, { name, arguments: args, _meta: {} }, id);
      assert.is(direct.status, 200);
      assert.is(direct.type, "application/json");
      assert.is(direct.body, sdk.body, `${name} ${JSON.stringify(args)} (id ${JSON.stringify(id)})`);
    }
  }
  const counted = await call(running.url, session, { name: "count", arguments: { word: "Lyon" } }, 1);
  assert.equal(JSON.parse(counted.body), {
    result: {
      content: [{ type: "text", text: JSON.stringify({ word: "Lyon", letters: 4, note: 'quotes " and \\ and \u2028 and é' }) }],
      structuredContent: { word: "Lyon", letters: 4, note: 'quotes " and \\ and \u2028 and é' },
    },
    jsonrpc: "2.0",
    id: 1,
  });
  const without = await call(running.url, session, { name: "listing" }, 2);
  assert.equal(JSON.parse(without.body).result, { content: [{ type: "text", text: '[1,"two",{"three":3}]' }] }, "no arguments is {}");
});

test("notifications/cancelled aborts the call's signal with its reason, and no answer is sent", async ({ running }) => {
  const session = await openSession(running.url);
  seen.signals.length = 0;
  const pending = call(running.url, session, { name: "wait", arguments: {} }, 41);
  const signal = await eventually("the wait handler to start", () => seen.signals[0]);
  const cancel = await post(
    running.url,
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41, reason: "the user gave up" } },
    headersOf(session),
  );
  assert.is(cancel.status, 202);
  await eventually("the handler's signal to abort", () => signal.aborted);
  assert.is(signal.reason, "the user gave up");
  // The handler has resolved, yet its answer was dropped: the POST is still open until the session ends.
  const ended = await fetch(`${running.url}/mcp`, { method: "DELETE", headers: headersOf(session) });
  assert.is(ended.status, 200);
  const answer = await within("the cancelled call's POST to end", pending);
  assert.is(answer.status, 404, answer.body);
  assert.match(answer.body, "Session not found");
});

test("the session's end aborts a call in flight", async ({ running }) => {
  const session = await openSession(running.url);
  seen.signals.length = 0;
  const pending = call(running.url, session, { name: "wait", arguments: {} }, "w");
  const signal = await eventually("the wait handler to start", () => seen.signals[0]);
  await fetch(`${running.url}/mcp`, { method: "DELETE", headers: headersOf(session) });
  await eventually("the handler's signal to abort", () => signal.aborted);
  assert.is((await within("the call's POST to end", pending)).status, 404);
});

test.run();
