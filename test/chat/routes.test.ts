/**
 * The chat endpoints in one process, on the embedded store: a typed `chat` handler answers without a
 * model (an async generator or a plain string), a handler's crash reaches the client as a bare
 * INTERNAL error event, an agent with neither handler nor model refuses before the headers, and the
 * direct session endpoints keep the spec's rules (404s, paging caps, the X-User-ID list header).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { createTravelAgentHandlers } from "../../manifests/travel/handlers/travel-agent.js";
import { createPackingList } from "../../manifests/travel/handlers/packing-list.js";
import { chatHandler } from "../../manifests/travel/handlers/chat.js";
import type { ChatHandler, ChatTurnInput } from "../../runtime/chat/index.js";
import { currentScope } from "../../runtime/context/index.js";
import { postSse } from "../support/sse-client.js";

// No language model in this process: only a chat handler can answer.
for (const name of ["OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "REDIS_URL"]) delete process.env[name];
// The spec's X-User-ID names the user only behind a trusted gateway (issue 32 M3): these agents are deployed so.
process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";

const clients = TravelAgent.clients();
const seen: ChatTurnInput[] = [];
let mode: "generator" | "string" | "crash" = "generator";
const conversations: (string | undefined)[] = [];
const handler: ChatHandler = (input) => {
  seen.push(input);
  conversations.push(currentScope()?.conversationId);
  if (mode === "string") return Promise.resolve(`plain answer to ${input.message}`);
  if (mode === "crash") throw new Error("secret-detail of the crash");
  return (async function* () {
    yield { type: "status" as const, message: "thinking" };
    yield { type: "step" as const, step_id: "lookup", tool: "weather-service", capability: "get_current_weather", status: "completed" };
    yield "Sunny ";
    yield { type: "chunk" as const, text: "and warm." };
  })();
};
const base = {
  handlers: createTravelAgentHandlers(clients),
  tasks: { packingList: createPackingList(clients) },
  port: 0,
  registry: false as const,
  handleSignals: false,
};
// A browser chat app on another origin is allowlisted, as it must be (MANIFOLD_CORS_ORIGINS).
const agent = await TravelAgent.serve({ ...base, chat: handler, corsOrigins: ["http://localhost:3000"] });
const bare = await TravelAgent.serve({ ...base });

test.after(async () => {
  await agent.close();
  await bare.close();
});

const json = async (path: string, init: RequestInit = {}, url = agent.url) => {
  const response = await fetch(`${url}${path}`, { ...init, headers: { "content-type": "application/json", ...(init.headers ?? {}) } });
  return { status: response.status, body: (await response.json()) as any };
};

test("a typed handler's events stream in order; its text is the stored answer; the next turn gets the history; the session id is the conversation id", async () => {
  mode = "generator";
  const first = await postSse(`${agent.url}/chat/stream`, { message: "Weather?" }, { headers: { "X-User-ID": "u1" } });
  assert.equal(
    first.events.map((e) => e.event),
    ["session", "status", "step", "chunk", "chunk", "done"],
  );
  const done = first.events.at(-1)!.data;
  assert.is(done.message.content, "Sunny and warm.");
  assert.equal(done.message.metadata.tools_used, ["weather-service"]);
  assert.is(done.message.metadata.total_tokens, 0);
  const id = done.session_id as string;
  await postSse(`${agent.url}/chat/stream`, { message: "And later?", session_id: id }, { headers: { "X-User-ID": "u1" } });
  assert.equal(
    seen.at(-1)!.history.map((m) => [m.role, m.content]),
    [
      ["user", "Weather?"],
      ["assistant", "Sunny and warm."],
    ],
  );
  assert.is(seen.at(-1)!.session_id, id);
  // The session is the run's conversation: every outbound call carries it in baggage.
  assert.is(conversations.at(-1), id);
});

test("a handler that returns a string answers in one chunk; one that crashes is a bare INTERNAL error event", async () => {
  mode = "string";
  const plain = await postSse(`${agent.url}/chat/stream`, { message: "hi" });
  assert.equal(
    plain.events.map((e) => [e.event, e.data.text ?? null]),
    [
      ["session", null],
      ["chunk", "plain answer to hi"],
      ["done", null],
    ],
  );
  mode = "crash";
  const crash = await postSse(`${agent.url}/chat/stream`, { message: "hi" });
  const error = crash.events.at(-1)!;
  assert.is(error.event, "error");
  assert.equal(error.data, { ...error.data, code: "INTERNAL", message: "the chat handler failed", retryable: false });
  assert.not.match(JSON.stringify(crash.events), /secret-detail/);
  const query = await json("/query", { method: "POST", body: JSON.stringify({ message: "hi" }) });
  assert.equal([query.status, query.body.error.code], [500, "INTERNAL"]);
  assert.not.match(JSON.stringify(query.body), /secret-detail/);
});

test("without a chat handler or a model, chat refuses before the headers with 503 LLM_UNAVAILABLE naming the settings", async () => {
  const stream = await postSse(`${bare.url}/chat/stream`, { message: "hi" });
  assert.is(stream.status, 503);
  assert.is((stream.body as any).error.code, "LLM_UNAVAILABLE");
  assert.match((stream.body as any).error.message, /MANIFOLD_LLM/);
  const query = await json("/query", { method: "POST", body: JSON.stringify({ message: "hi" }) }, bare.url);
  assert.is(query.status, 503);
});

test("session endpoints: create with metadata, read without transcript, retitle, list by user with capped paging, delete, then 404", async () => {
  const made = await json("/chat/session", { method: "POST", headers: { "X-User-ID": "lister" }, body: JSON.stringify({ metadata: { channel: "web" } }) });
  assert.is(made.status, 200);
  const id = made.body.session_id as string;
  assert.is(Date.parse(made.body.expires_at) - Date.parse(made.body.created_at), 48 * 3600_000);
  const lister = { "X-User-ID": "lister" };
  const read = await json(`/chat/session/${id}`, { headers: lister });
  assert.equal(read.body, {
    session_id: id,
    created_at: made.body.created_at,
    updated_at: made.body.created_at,
    message_count: 0,
    metadata: { channel: "web" },
  });
  const renamed = await json(`/chat/session/${id}/title`, { method: "PUT", headers: lister, body: JSON.stringify({ title: "  Trip ideas  " }) });
  assert.equal([renamed.status, renamed.body.title], [200, "Trip ideas"]);

  assert.equal((await json("/chat/sessions")).status, 401, "an identity (here X-User-ID) is required to list");
  const listed = await json("/chat/sessions?limit=500", { headers: { "X-User-ID": "lister" } });
  assert.equal([listed.body.limit, listed.body.offset, listed.body.sessions[0].title, listed.body.sessions[0].id], [50, 0, "Trip ideas", id]);
  assert.is((await json("/chat/sessions?offset=-1", { headers: { "X-User-ID": "lister" } })).status, 400);
  assert.is((await json("/chat/sessions", { headers: { "X-User-ID": "bad user{}" } })).status, 400);

  assert.is((await json("/chat/session/delete", { method: "POST", headers: lister, body: JSON.stringify({ session_id: id }) })).status, 200);
  assert.is((await json("/chat/session/delete", { method: "POST", headers: lister, body: JSON.stringify({ session_id: id }) })).status, 404);
  assert.is((await json(`/chat/session/${id}`, { headers: lister })).status, 404);
  assert.is((await json(`/chat/session/${id}/title`, { method: "PUT", headers: lister, body: JSON.stringify({ title: "x" }) })).status, 404);
  const big = await json("/chat/session", { method: "POST", body: JSON.stringify({ metadata: { blob: "x".repeat(5000) } }) });
  assert.equal([big.status, big.body.error.details[0].pointer], [400, "/metadata"]);
});

test("an allowlisted browser app may send X-User-ID and Authorization: the preflight allows them and PUT", async () => {
  const preflight = await fetch(`${agent.url}/chat/stream`, {
    method: "OPTIONS",
    headers: {
      origin: "http://localhost:3000",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, x-user-id, authorization",
    },
  });
  assert.ok(preflight.status < 300);
  assert.is(preflight.headers.get("access-control-allow-origin"), "http://localhost:3000");
  const allowed = preflight.headers.get("access-control-allow-headers") ?? "";
  for (const header of ["Content-Type", "Accept", "X-Requested-With", "X-User-ID", "Authorization"]) assert.ok(allowed.includes(header), header);
  assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /PUT/);
});

test("the example's chat handler answers from the travel-research workflow, offline", async () => {
  const tools = await Promise.all([
    (await import("../../generated/geocoding-service/index.js")).GeocodingService.serve({
      handlers: (await import("../../manifests/travel/handlers/geocoding.js")).geocodingHandlers,
      port: 0,
      handleSignals: false,
    }),
    (await import("../../generated/weather-service/index.js")).WeatherService.serve({
      handlers: (await import("../../manifests/travel/handlers/weather.js")).weatherHandlers,
      port: 0,
      handleSignals: false,
    }),
    (await import("../../generated/currency-service/index.js")).CurrencyService.serve({
      handlers: (await import("../../manifests/travel/handlers/currency.js")).currencyHandlers,
      port: 0,
      handleSignals: false,
    }),
    (await import("../../generated/country-info-service/index.js")).CountryInfoService.serve({
      handlers: (await import("../../manifests/travel/handlers/country-info.js")).countryInfoHandlers,
      port: 0,
      handleSignals: false,
    }),
  ]);
  const example = await TravelAgent.serve({ ...base, registry: undefined as never, chat: chatHandler });
  try {
    const stream = await postSse(`${example.url}/chat/stream`, { message: "What is it like in Lisbon?" });
    const names = stream.events.map((e) => e.event);
    assert.equal(names.slice(0, 2), ["session", "status"]);
    assert.equal(
      stream.events
        .filter((e) => e.event === "step")
        .map((e) => e.data.tool)
        .sort(),
      ["country-info-service", "currency-service", "geocoding-service", "weather-service"],
    );
    assert.is(names.at(-1), "done");
    assert.match(stream.events.at(-1)!.data.message.content, /Lisbon/);
  } finally {
    await example.close();
    await Promise.all(tools.map((t) => t.close()));
  }
});

test.run();
