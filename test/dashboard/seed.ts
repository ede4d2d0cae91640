/**
 * What the browser suite's network does before the dashboard is opened, all through the travel
 * agent's own HTTP API: a workflow that succeeds and one that fails, a custom run paused before
 * convert_currency (non_streaming), a natural run paused there too (non_streaming, the one the suite
 * approves), a step the tool refuses (an error checkpoint), a chat turn paused on its stream
 * (streaming) and one answered, and a natural run whose model call fails.
 */
import { postSse } from "../support/sse-client.js";
import { eventually } from "../support/wait.js";
import type { Network } from "./network.js";
import { get, post, request } from "./support.js";

export const USER = "ada@example.com";

export interface Seeded {
  readonly sessionId: string;
  /** Paused natural run: Approve in the dashboard resumes it (its synthesis is scripted). */
  readonly naturalCheckpoint: string;
  readonly customCheckpoint: string;
  readonly streamingCheckpoint: string;
  readonly errorCheckpoint: string;
}

const convert = (amount: number, from: string, to: string) => ({
  steps: [
    { step_id: "convert", agent_name: "currency-service", depends_on: [], metadata: { capability: "convert_currency", parameters: { amount, from, to } } },
  ],
});

function checkpointOf(reply: { status: number; body: any }, what: string): string {
  if (reply.status !== 202 || typeof reply.body?.checkpoint_id !== "string")
    throw new Error(`${what}: expected a 202 checkpoint, got ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body.checkpoint_id;
}

export async function seed(network: Network): Promise<Seeded> {
  const agent = network.urls["travel-agent"];
  const ok = await post(`${agent}/orchestrate/travel-research`, { destination: "Kyoto", home_currency: "EUR" });
  if (ok.status !== 200) throw new Error(`travel-research answered ${ok.status}`);
  const failed = await post(`${agent}/orchestrate/travel-research`, { destination: "Nowhereville" });
  if (failed.status === 200) throw new Error("travel-research of an unknown place succeeded");

  const customCheckpoint = checkpointOf(
    await post(`${agent}/orchestrate/custom`, {
      steps: [{ tool: "currency-service", capability: "convert_currency", params: { amount: 100, from: "EUR", to: "JPY" } }],
    }),
    "custom convert_currency",
  );
  const errorCheckpoint = checkpointOf(
    await post(`${agent}/orchestrate/custom`, { steps: [{ tool: "geocoding-service", capability: "geocode_location", params: { location: 42 } }] }),
    "custom step the tool refuses",
  );

  network.llm.reply({ text: JSON.stringify(convert(40, "EUR", "GBP")) });
  const naturalCheckpoint = checkpointOf(await post(`${agent}/orchestrate/natural`, { request: "How much is 40 EUR in pounds?" }), "natural convert_currency");

  const session = await post(`${agent}/chat/session`, {}, { "X-User-ID": USER });
  const sessionId: string = session.body.session_id;
  network.llm.reply(
    {
      text: JSON.stringify({
        steps: [
          {
            step_id: "where",
            agent_name: "geocoding-service",
            depends_on: [],
            metadata: { capability: "geocode_location", parameters: { location: "Lisbon" } },
          },
        ],
      }),
    },
    { text: "Lisbon is on the Atlantic coast of Portugal." },
  );
  const answered = await postSse(`${agent}/chat/stream`, { session_id: sessionId, message: "Where is Lisbon?" }, { headers: { "X-User-ID": USER } });
  if (!answered.events.some((e) => e.event === "done")) throw new Error(`chat turn did not finish: ${JSON.stringify(answered.events).slice(0, 300)}`);
  network.llm.reply({ text: JSON.stringify(convert(250, "EUR", "USD")) });
  const paused = await postSse(`${agent}/chat/stream`, { session_id: sessionId, message: "Convert 250 EUR to USD" }, { headers: { "X-User-ID": USER } });
  const checkpointEvent = paused.events.find((e) => e.event === "checkpoint");
  if (checkpointEvent === undefined) throw new Error(`chat turn did not pause: ${JSON.stringify(paused.events).slice(0, 300)}`);

  network.llm.reply({ status: 500 });
  const broken = await post(`${agent}/orchestrate/natural`, { request: "What is the weather in Paris?" });
  if (broken.status !== 502) throw new Error(`natural with a failing model answered ${broken.status}`);

  return { sessionId, naturalCheckpoint, customCheckpoint, streamingCheckpoint: checkpointEvent.data.checkpoint_id, errorCheckpoint };
}

/** The plan the scripted model answers for a packing question: where the place is, then its weather (what packing-advice says to do). */
const weatherPlan = (place: string) => ({
  steps: [
    { step_id: "where", agent_name: "geocoding-service", depends_on: [], metadata: { capability: "geocode_location", parameters: { location: place } } },
    {
      step_id: "weather",
      agent_name: "weather-service",
      depends_on: ["where"],
      metadata: { capability: "get_current_weather", parameters: { lat: "{{where.response.data.lat}}", lon: "{{where.response.data.lon}}" } },
    },
  ],
});

export interface SeededMemory {
  /** The natural run the example's two skills shaped. */
  readonly skilledPlan: string;
  readonly skilledRequest: string;
}

/** The admin the network lists in MANIFOLD_SKILL_ADMINS (network.ts). */
export const SKILL_ADMIN = "ops@example.com";
export const PROFILE = "Ada is vegetarian and lives in Lisbon, having moved from Berlin.";
export const DIGEST = "Travellers asked about Berlin and Lisbon; the agent looked up their weather and advised what to pack.";

/**
 * Memory and skills, made by the travel agent itself (the example's `memory: true` and bundled
 * skills): packing-advice pinned to 1.0.0 through the agent's admin API; two chat turns of USER from
 * which extraction keeps their diet and home city, the second turn contradicting the first's city,
 * and a profile summary; a natural request the two skills shape (its run is an episode of the
 * travel-agent domain, compacted into the digest). Background calls are answered by kind.
 */
export async function seedMemory(network: Network): Promise<SeededMemory> {
  const agent = network.urls["travel-agent"];
  const pinned = await request(`${agent}/skills/travel-agent/packing-advice/pin`, {
    method: "PUT",
    headers: { "content-type": "application/json", "X-User-ID": SKILL_ADMIN },
    body: JSON.stringify({ version: "1.0.0" }),
  });
  if (pinned.status !== 200) throw new Error(`pin answered ${pinned.status} ${JSON.stringify(pinned.body).slice(0, 300)}`);

  network.answerBackground("extraction", (body) => {
    const said = JSON.stringify(body.messages);
    const facts = said.includes("moved to Lisbon")
      ? [{ key: "home_city", value: "Lisbon", action: "update" }]
      : said.includes("vegetarian")
        ? [
            { key: "home_city", value: "Berlin", action: "add" },
            { key: "diet", value: "vegetarian", action: "add" },
          ]
        : [];
    return { text: JSON.stringify({ facts }) };
  });
  network.answerBackground("profile", (body) => ({
    text: JSON.stringify(body.messages).includes("Lisbon") ? PROFILE : "Ada is vegetarian and lives in Berlin.",
  }));
  network.answerBackground("event_summary", (body) => {
    const events = JSON.stringify(body.messages);
    const place = ["Lisbon", "Berlin"].find((name) => events.includes(name));
    return { text: place === undefined ? "A run of the travel agent." : `Asked about ${place}; looked up its weather.` };
  });
  network.answerBackground("compaction", () => ({ text: DIGEST }));

  const facts = () => get(`${network.dashboard}/api/memory/facts?user=${encodeURIComponent(USER)}`);
  const turn = async (message: string, place: string, answer: string, settled: (body: any) => boolean) => {
    const session = await post(`${agent}/chat/session`, {}, { "X-User-ID": USER });
    network.llm.reply({ text: JSON.stringify(weatherPlan(place)) }, { text: answer });
    const done = await postSse(`${agent}/chat/stream`, { session_id: session.body.session_id, message }, { headers: { "X-User-ID": USER } });
    if (!done.events.some((e) => e.event === "done")) throw new Error(`chat turn did not finish: ${JSON.stringify(done.events).slice(0, 300)}`);
    // Extraction runs after the turn: its facts (and the profile made from them) appear in their own time.
    await eventually(`the facts of "${message}"`, async () => settled((await facts()).body));
  };
  await turn(
    "I am vegetarian and live in Berlin. Is it warm there now?",
    "Berlin",
    "Berlin is mild today.",
    (b) => b.facts?.length === 2 && b.summary !== null,
  );
  await turn(
    "I moved to Lisbon last month. What should I pack for a weekend there?",
    "Lisbon",
    "Pack light layers for Lisbon.",
    (b) => b.summary?.text === PROFILE,
  );

  network.llm.reply({ text: JSON.stringify(weatherPlan("Lisbon")) }, { text: "Pack layers; greet with a handshake and round up the bill." });
  const skilled = await post(
    `${agent}/orchestrate/natural`,
    { request: "What should I pack for Lisbon, and how should I greet and tip people there?" },
    { "X-User-ID": USER },
  );
  if (skilled.status !== 200) throw new Error(`the skilled natural request answered ${skilled.status} ${JSON.stringify(skilled.body).slice(0, 300)}`);
  await eventually("the digest", async () => (await get(`${network.dashboard}/api/memory/knowledge?domain=travel-agent`)).body.digest?.text === DIGEST);
  return { skilledPlan: skilled.body.plan_id, skilledRequest: skilled.body.request_id };
}
