/**
 * What the browser suite's network does before the dashboard is opened, all through the travel
 * agent's own HTTP API: a workflow that succeeds and one that fails, a custom run paused before
 * convert_currency (non_streaming), a natural run paused there too (non_streaming, the one the suite
 * approves), a step the tool refuses (an error checkpoint), a chat turn paused on its stream
 * (streaming) and one answered, and a natural run whose model call fails.
 */
import { postSse } from "../support/sse-client.js";
import type { Network } from "./network.js";
import { post } from "./support.js";

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
