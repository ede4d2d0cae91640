/**
 * What `/chat/stream` sends before and around its events, as raw HTTP: the SSE head carries the request
 * id first (and the AI SDK stream's own header after it) then the SSE headers, in one head; a turn
 * refused before the head is an error envelope that still carries the request id; and a typed
 * handler's generator is closed (its `finally` runs) once the client has hung up, at its next item,
 * and its `ctx.signal` is aborted (ABORTED) whether it was read before the hang-up or only after.
 */
import { request } from "node:http";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createTravelAgentHandlers } from "../../manifests/travel/handlers/travel-agent.js";
import { createPackingList } from "../../manifests/travel/handlers/packing-list.js";
import type { ChatHandler } from "../../runtime/chat/index.js";

for (const name of ["OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "REDIS_URL"]) delete process.env[name];

const closed: string[] = [];
/** What the handler's signal said: `watch` listens from the start, `late` reads it only after the hang-up. */
const signals: string[] = [];
const handler: ChatHandler = (input, ctx) =>
  (async function* () {
    if (input.message === "watch") ctx.signal.addEventListener("abort", () => signals.push(`watch ${(ctx.signal.reason as { code?: string }).code}`));
    try {
      yield `first ${input.message}`;
      if (input.message === "late") {
        while (!closed.includes("last")) await new Promise((resolve) => setTimeout(resolve, 10));
        await new Promise((resolve) => setTimeout(resolve, 50));
        signals.push(`late ${ctx.signal.aborted} ${(ctx.signal.reason as { code?: string }).code}`);
        return;
      }
      for (let i = 0; i < 50; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        yield ".";
      }
    } finally {
      closed.push(input.message);
    }
  })();
const clients = TravelAgent.clients();
const agent = await TravelAgent.serve({
  handlers: createTravelAgentHandlers(clients),
  tasks: { packingList: createPackingList(clients) },
  port: 0,
  registry: false,
  handleSignals: false,
  chat: handler,
});
test.after(() => agent.close());

/** POSTs `body`; resolves with the status, the raw header names and values in order, and the first data read. */
function post(path: string, body: string): Promise<{ status: number; raw: string[]; first: string; hangUp: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${agent.url}${path}`, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      res.setEncoding("utf8");
      res.once("data", (first: string) => resolve({ status: res.statusCode ?? 0, raw: res.rawHeaders, first, hangUp: () => req.destroy() }));
      res.on("error", () => undefined);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const names = (raw: readonly string[]) => raw.filter((_, i) => i % 2 === 0);
const value = (raw: readonly string[], name: string) => raw[raw.findIndex((v, i) => i % 2 === 0 && v.toLowerCase() === name.toLowerCase()) + 1];
const OURS = ["X-Manifold-Request-ID", "x-vercel-ai-ui-message-stream", "Content-Type", "Cache-Control", "Connection", "X-Accel-Buffering"];

test("the SSE head: the request id, then the SSE headers; the AI SDK stream's header after the request id", async () => {
  const spec = await post("/chat/stream", JSON.stringify({ message: "hi" }));
  spec.hangUp();
  assert.is(spec.status, 200);
  assert.equal(
    names(spec.raw).filter((n) => OURS.includes(n)),
    ["X-Manifold-Request-ID", "Content-Type", "Cache-Control", "Connection", "X-Accel-Buffering"],
  );
  assert.is(value(spec.raw, "content-type"), "text/event-stream; charset=utf-8");
  assert.is(value(spec.raw, "cache-control"), "no-cache, no-transform");
  assert.ok(/^[\w-]+$/.test(value(spec.raw, "x-manifold-request-id") ?? ""));
  assert.ok(spec.first.startsWith("event: session\n"));

  const aiSdk = await post("/chat/stream?protocol=ai-sdk", JSON.stringify({ message: "hi" }));
  aiSdk.hangUp();
  assert.equal(
    names(aiSdk.raw).filter((n) => OURS.includes(n)),
    OURS,
  );
  assert.is(value(aiSdk.raw, "x-vercel-ai-ui-message-stream"), "v1");
});

test("a turn refused before the head is an error envelope with the request id", async () => {
  const refused = await post("/chat/stream", JSON.stringify({ nothing: true }));
  assert.is(refused.status, 400);
  const id = value(refused.raw, "x-manifold-request-id");
  assert.ok(id !== undefined && id !== "");
});

test("a client that hangs up: the handler's generator is closed at its next item", async () => {
  const held = await post("/chat/stream", JSON.stringify({ message: "bye" }));
  assert.ok(held.first.includes("event: session"));
  held.hangUp();
  for (let i = 0; i < 200 && !closed.includes("bye"); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(closed.includes("bye"));
});

test("a client that hangs up: the handler's signal is aborted, read before or after the hang-up", async () => {
  const watch = await post("/chat/stream", JSON.stringify({ message: "watch" }));
  const late = await post("/chat/stream", JSON.stringify({ message: "late" }));
  const last = await post("/chat/stream", JSON.stringify({ message: "last" }));
  watch.hangUp();
  late.hangUp();
  last.hangUp();
  for (let i = 0; i < 300 && signals.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(signals.sort(), ["late true ABORTED", "watch ABORTED"]);
});

test.run();
