/**
 * Natural mode end to end on real processes: the geocoding and weather tools and the travel agent,
 * each its own process, registered in a real Redis; the agent's language model is a scripted
 * OpenAI-compatible server in this process. The model plans over what discovery found, the plan is
 * checked and runs across the processes, and the answer is the synthesised text.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TravelAgent } from "../../generated/travel-agent/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { KYOTO_WEATHER_PLAN } from "./fixtures/plans.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

let redis: RedisServer;
let llm: ScriptedLlm;
let agent: Fixture;

const PLAN = KYOTO_WEATHER_PLAN;

test.before(async () => {
  redis = await startRedisServer();
  llm = await startScriptedLlm();
  const env = { REDIS_URL: redis.url };
  const tools = [
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "geocoding" }),
    startFixture("discovery-tool.ts", { ...env, DISCOVERY_TOOL: "weather" }),
  ];
  for (const tool of await Promise.all(tools)) await tool.waitFor((e) => e["event"] === "listening");
  // Every model call is scripted in order: memory's background calls (episode summaries) would take the next answers.
  agent = await startFixture("natural-agent.ts", {
    ...env,
    MANIFOLD_LLM_BASE_URL: llm.baseUrl,
    MANIFOLD_LLM_API_KEY: "sk-e2e-secret",
    OPENAI_API_KEY: "",
    MANIFOLD_MEMORY_ENABLED: "false",
  });
  await agent.waitFor((e) => e["event"] === "listening");
});

test.after(async () => {
  killAll();
  await llm?.close();
  await redis?.close();
});

test("POST /orchestrate/natural answers with the synthesised text and the tools that ran", async () => {
  // The model's plan names a field the output summary lacks the first time (regenerated), then a good one.
  const wrong = structuredClone(PLAN);
  wrong.steps[1]!.metadata.parameters.lat = "{{place.response.data.latitude}}";
  llm.reply({ text: JSON.stringify(wrong) }, { text: JSON.stringify(PLAN) }, { text: "Kyoto is mild today." });
  const client = TravelAgent.workflows({ baseUrl: agent.url });
  const answer = await client.natural("What is the weather in Kyoto?");
  if (answer.status !== "completed") throw new Error(`the request was not answered: ${answer.status}`);
  assert.is(answer.phases, 1);
  assert.is(answer.response, "Kyoto is mild today.");
  assert.equal(answer.tools_used, ["geocoding-service", "weather-service"]);
  assert.is(answer.confidence, 0.9);
  const [place, now] = answer.steps;
  assert.equal((place!.output as { lat: number }).lat, 35.0116, "the geocoding process answered");
  assert.ok(typeof (now!.output as { temperature: number }).temperature === "number", "the weather process answered with the resolved coordinates");
  // The catalog in the prompt came from discovery: both tools, read from Redis.
  const prompt = JSON.stringify(llm.requests[0]!.body.messages);
  assert.match(prompt, /geocode_location/);
  assert.match(prompt, /get_current_weather/);
  assert.match(JSON.stringify(llm.requests[1]!.body.messages), /latitude/);
  assert.not.match(agent.stderr(), /sk-e2e-secret/);
});

test("a plan that never checks is 422 and nothing reaches the tools", async () => {
  const bad = {
    text: JSON.stringify({ steps: [{ step_id: "x", agent_name: "hotel-service", depends_on: [], metadata: { capability: "book", parameters: {} } }] }),
  };
  llm.reply(bad, bad, bad);
  const response = await fetch(`${agent.url}/orchestrate/natural`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ request: "book me a hotel" }),
  });
  assert.is(response.status, 422);
  const body = (await response.json()) as { error: { code: string; details: { pointer: string }[] } };
  assert.is(body.error.code, "PLAN_INVALID");
  assert.equal(body.error.details[0]!.pointer, "/steps/0/agent_name");
});
test.run();
