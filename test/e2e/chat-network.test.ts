/**
 * Chat end to end on real processes: the trip tool, the geocoding and weather tools and the travel
 * agent (natural mode, no chat handler) each in its own process, sessions and discovery in a real
 * Redis, the agent's model the scripted OpenAI-compatible server. The SSE bytes are read by a real
 * parser (eventsource-parser).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { postSse, type SseEvent } from "../support/sse-client.js";
import { sleep } from "../support/wait.js";
import { KYOTO_WEATHER_PLAN } from "./fixtures/plans.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

let redis: RedisServer;
let llm: ScriptedLlm;
let agent: Fixture;
let trip: Fixture;

const PLAN = KYOTO_WEATHER_PLAN;

test.before(async () => {
  redis = await startRedisServer();
  llm = await startScriptedLlm();
  const env = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "chat-e2e" };
  const tools = [
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "geocoding" }),
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "weather" }),
    startFixture("trip-tool.ts", env),
  ];
  const started = await Promise.all(tools);
  for (const tool of started) await tool.waitFor((e) => e["event"] === "listening");
  trip = started[2]!;
  agent = await startFixture("natural-agent.ts", {
    ...env,
    MANIFOLD_LLM_BASE_URL: llm.baseUrl,
    MANIFOLD_LLM_API_KEY: "sk-chat-secret",
    MANIFOLD_LLM_MAX_RETRIES: "0",
    OPENAI_API_KEY: "",
    MANIFOLD_CHAT_HEARTBEAT_INTERVAL: "200ms",
    // X-User-ID names the user: the agent is deployed behind a trusted gateway (issue 32 M3).
    MANIFOLD_TRUST_IDENTITY_HEADERS: "true",
    // Every model call is scripted in order: memory's background calls (fact extraction, episode
    // summaries) would take the next answers. test/memory covers memory with chat.
    MANIFOLD_MEMORY_ENABLED: "false",
  });
  await agent.waitFor((e) => e["event"] === "listening");
});

test.after(async () => {
  killAll();
  await llm?.close();
  await redis?.close();
});

const names = (events: readonly SseEvent[]) => events.map((e) => e.event);

test("a new conversation streams session, status, each step, the synthesis in chunks and done, in that order; history holds both messages", async () => {
  llm.reply({ text: JSON.stringify(PLAN) }, { text: "Kyoto is mild and dry today, about 18 °C.", chunks: 4, delayMs: 600 });
  const stream = await postSse(`${agent.url}/chat/stream`, { message: "What is the weather in Kyoto?" }, { headers: { "X-User-ID": "ana" } });
  assert.is(stream.status, 200);
  assert.match(stream.contentType, /^text\/event-stream/);
  assert.equal(names(stream.events), ["session", "status", "step", "step", "chunk", "chunk", "chunk", "chunk", "done"]);
  const [session, , place, now] = stream.events;
  assert.is(session!.data.created, true);
  assert.equal([place!.data.tool, place!.data.capability, place!.data.status], ["geocoding-service", "geocode_location", "completed"]);
  assert.equal([now!.data.tool, now!.data.capability], ["weather-service", "get_current_weather"]);
  const text = stream.events.filter((e) => e.event === "chunk").map((e) => e.data.text as string);
  assert.is(text.join(""), "Kyoto is mild and dry today, about 18 °C.");
  const done = stream.events.at(-1)!.data;
  assert.is(done.message.content, text.join(""));
  assert.equal(done.message.metadata.tools_used, ["geocoding-service", "weather-service"]);
  assert.ok(done.message.metadata.total_tokens > 0);
  assert.equal(Object.keys(done.message.metadata.usage_by_phase).sort(), ["plan_generation", "synthesis_streaming"]);
  // The synthesis took over half a second: heartbeat comments kept the stream alive meanwhile.
  assert.ok(stream.comments.length >= 1, `${stream.comments.length} heartbeats`);

  const id = session!.data.session_id as string;
  const history = (await (await fetch(`${agent.url}/chat/session/${id}/history`, { headers: { "X-User-ID": "ana" } })).json()) as {
    messages: { role: string; content: string }[];
    count: number;
  };
  assert.equal(
    history.messages.map((m) => [m.role, m.content]),
    [
      ["user", "What is the weather in Kyoto?"],
      ["assistant", "Kyoto is mild and dry today, about 18 °C."],
    ],
  );
  const list = (await (await fetch(`${agent.url}/chat/sessions`, { headers: { "X-User-ID": "ana" } })).json()) as { sessions: { id: string; title: string }[] };
  assert.equal(list.sessions[0], { ...list.sessions[0]!, id, title: "What is the weather in Kyoto?" });

  // The next turn of the same session: the earlier turns reach the planner, and no new session is made.
  llm.reply({ text: JSON.stringify(PLAN) }, { text: "Still mild." });
  const second = await postSse(`${agent.url}/chat/stream`, { session_id: id, message: "And tomorrow?" }, { headers: { "X-User-ID": "ana" } });
  assert.equal(second.events[0]!.data, { session_id: id, created: false });
  const planPrompt = JSON.stringify(llm.requests.at(-2)!.body.messages);
  assert.match(planPrompt, /What is the weather in Kyoto\?/);
  assert.match(planPrompt, /Kyoto is mild and dry today/);
  assert.match(planPrompt, /And tomorrow\?/);
  assert.not.match(agent.stderr(), /sk-chat-secret/);
});

test("an unknown session on the stream gets a new one; on the direct endpoints it is 404", async () => {
  llm.reply({ text: JSON.stringify(PLAN) }, { text: "Hello again." });
  const unknown = "6f1c0a52-0000-4000-8000-000000000000";
  const stream = await postSse(`${agent.url}/chat/stream`, { session_id: unknown, message: "Hi" });
  const first = stream.events[0]!;
  assert.is(first.event, "session");
  assert.is(first.data.created, true);
  assert.is.not(first.data.session_id, unknown);
  assert.is(stream.events.at(-1)!.event, "done");
  assert.is((await fetch(`${agent.url}/chat/session/${unknown}`)).status, 404);
  assert.is((await fetch(`${agent.url}/chat/session/${unknown}/history`)).status, 404);
  assert.is((await fetch(`${agent.url}/chat/session/not-a-uuid`)).status, 404);
});

test("a failure after the headers is an error event with retryable false, and the user message is kept", async () => {
  const bad = {
    text: JSON.stringify({ steps: [{ step_id: "x", agent_name: "hotel-service", depends_on: [], metadata: { capability: "book", parameters: {} } }] }),
  };
  llm.reply(bad, bad, bad);
  const stream = await postSse(`${agent.url}/chat/stream`, { message: "Book me a hotel" });
  assert.is(stream.status, 200);
  assert.equal(names(stream.events), ["session", "status", "error"]);
  const error = stream.events[2]!.data;
  assert.equal([error.code, error.retryable], ["PLAN_INVALID", false]);
  const history = (await (await fetch(`${agent.url}/chat/session/${stream.events[0]!.data.session_id}/history`)).json()) as { messages: { role: string }[] };
  assert.equal(
    history.messages.map((m) => m.role),
    ["user"],
  );
});

test("what can be refused is refused before the headers, as an error envelope", async () => {
  const missing = await postSse(`${agent.url}/chat/stream`, { session_id: "x" });
  assert.is(missing.status, 400);
  assert.is((missing.body as { error: { code: string } }).error.code, "INVALID_INPUT");
  const notJson = await fetch(`${agent.url}/chat/stream`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
  assert.is(notJson.status, 400);
  assert.is((await fetch(`${agent.url}/chat/stream`)).status, 405);
  const huge = await postSse(`${agent.url}/chat/stream`, { message: "x".repeat(20_000) });
  assert.is(huge.status, 413);
});

test("a client that disconnects aborts the run: the step after the one in flight is never called", async () => {
  const plan = {
    steps: [
      { step_id: "first", agent_name: "trip-tool", depends_on: [], metadata: { capability: "slow_echo", parameters: { ms: 3000, text: "first" } } },
      { step_id: "second", agent_name: "trip-tool", depends_on: ["first"], metadata: { capability: "slow_echo", parameters: { ms: 10, text: "second" } } },
    ],
  };
  llm.reply({ text: JSON.stringify(plan) }, { text: "never reached" });
  // Hang up once the first step is running in the tool's process.
  const started = trip.waitFor((e) => e["event"] === "slow-started" && e["text"] === "first");
  const cut = await postSse(`${agent.url}/chat/stream`, { message: "Echo slowly" }, { hangUp: started });
  assert.equal(names(cut.events), ["session", "status"]);
  // Well past when the first step would have finished and the second started.
  await sleep(4000);
  assert.not.ok(
    trip.events().some((e) => e["event"] === "slow-started" && e["text"] === "second"),
    "the second step was never called",
  );
  const history = (await (await fetch(`${agent.url}/chat/session/${cut.events[0]!.data.session_id}/history`)).json()) as { count: number };
  assert.is(history.count, 1, "no assistant message for an aborted turn");
});

test("/query answers without streaming; with a known session it keeps both messages, with an unknown one it makes none", async () => {
  llm.reply({ text: JSON.stringify(PLAN) }, { text: "Mild." });
  const plain = (await (
    await fetch(`${agent.url}/query`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "Weather in Kyoto?", session_id: "6f1c0a52-0000-4000-8000-000000000001" }),
    })
  ).json()) as { response: string; session_id?: string };
  assert.is(plain.response, "Mild.");
  assert.is(plain.session_id, undefined);

  const created = (await (
    await fetch(`${agent.url}/chat/session`, { method: "POST", headers: { "content-type": "application/json", "X-User-ID": "bot" }, body: "{}" })
  ).json()) as {
    session_id: string;
  };
  llm.reply({ text: JSON.stringify(PLAN) }, { text: "Mild again." });
  const aware = (await (
    await fetch(`${agent.url}/query`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-User-ID": "bot" },
      body: JSON.stringify({ message: "Weather in Kyoto?", session_id: created.session_id }),
    })
  ).json()) as { response: string; session_id: string };
  assert.equal([aware.response, aware.session_id], ["Mild again.", created.session_id]);
  const history = (await (await fetch(`${agent.url}/chat/session/${created.session_id}/history`, { headers: { "X-User-ID": "bot" } })).json()) as {
    count: number;
  };
  assert.is(history.count, 2);
});

test.run();
