/**
 * Episodic memory read back for planning, over HTTP with the real `openai` client against the
 * scripted server: a request naming an entity the domain has runs about gets those runs' summaries,
 * the digest and what reflection learnt about it in its planning prompt, quoted as data, within
 * MANIFOLD_EPISODIC_BUDGET_BYTES; runs about other entities stay out; a domain with nothing yet adds
 * nothing. The read's events are on the request's span.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ANONYMOUS, type Identity } from "../../runtime/context/index.js";
import { newRecordId, SECTION_TITLE, type Episode } from "../../runtime/memory/episodic/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { eventually } from "../support/wait.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { episode, startEpisodicAgent, type EpisodicAgent } from "./episodic-support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  network: EpisodicAgent;
}
const test = suite<Context>("episodic memory: the read into planning", {} as Context);
const BUDGET = 500;

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "episodic-read" });
  context.network = await startEpisodicAgent({ env: { MANIFOLD_EPISODIC_BUDGET_BYTES: String(BUDGET) }, name: "read-agent" });
});
test.after(async ({ receiver, network }) => {
  await network.close();
  await shutdownTelemetry();
  await receiver.close();
});

const DAY = 86_400_000;
let seq = 0;
/** A read-agent run `ago` ms back (each a millisecond after the last, so ids keep the order they were made in). */
const episodeAgo = (entities: string[], summary: string, ago = DAY): Episode => episode(Date.now() - ago + seq++, entities, summary, "read-agent");

/** The episodic section of the last planning prompt, between its tool_output tags. */
function sectionOf(network: EpisodicAgent): string | undefined {
  const plan = network.requests("routing_plan").at(-1)!;
  const system = String(plan.body.messages[0].content);
  const at = system.indexOf(`## ${SECTION_TITLE}`);
  if (at < 0) return undefined;
  return /<tool_output source="episodic">\n([\s\S]*?)\n<\/tool_output>/.exec(system.slice(at))?.[1];
}

async function readEvents({ receiver }: Context, requestId: string) {
  const find = () => receiver.spans.find((s) => s.events.some((e) => e.name === "memory.enrichment.injected" && e.attributes["request_id"] === requestId));
  await receiver.until(() => find() !== undefined, `the read events of ${requestId}`);
  return find()!;
}

test("a domain with nothing recorded adds nothing to the prompt", async (context) => {
  const { status } = await context.network.ask("What should I pack for Oslo? R1", "req-empty");
  assert.is(status, 200);
  assert.is(sectionOf(context.network), undefined);
  const span = await readEvents(context, "req-empty");
  const injected = span.events.find((e) => e.name === "memory.enrichment.injected")!.attributes;
  assert.equal([injected["view_outcome"], injected["context_bytes"], injected["budget_bytes"]], ["empty", 0, BUDGET]);
});

test("a request about Lisbon gets Lisbon's runs, the digest and Lisbon's knowledge, within the budget; Kyoto's runs stay out", async (context) => {
  const { network } = context;
  const { store } = network.memory;
  // The first test's run (about Oslo) is recorded first, so what follows is all this test adds.
  await eventually("the first run's episode", async () => (await store.recent({ limit: 1 }))[0]?.request_id === "req-empty");
  for (let i = 0; i < 30; i++)
    await store.append(episodeAgo(["destination:kyoto"], `Kyoto run ${i}: temples, rain gear and a rail pass were suggested for the autumn trip.`));
  const lisbon = [
    episodeAgo(["destination:lisbon"], "Lisbon in May: sunny forecast, the traveller was told to pack linen shirts and sandals.", 3 * DAY),
    episodeAgo(["destination:lisbon", "traveller:ana"], "Lisbon hotels near Alfama were compared; Ana chose a guesthouse with a terrace.", 2 * DAY),
    episodeAgo(["destination:lisbon"], "Lisbon tram 28 timetable looked up for a Sunday.", DAY),
  ];
  for (const e of lisbon) await store.append(e);
  const newest = (await store.recent({ limit: 1 }))[0]!;
  assert.ok(
    await store.setDigest(
      { text: "DOMAIN DIGEST: travellers mostly plan short city breaks.", through: newest.id, episodes: 34, updated_at: new Date().toISOString() },
      (await store.digest())?.through,
    ),
  );
  const pass = "reflect-0000000000000abc";
  const claimed = await store.claimForReflection(pass, new Date(Date.now() - 2.5 * DAY).toISOString(), 1);
  await store.completeReflection(
    pass,
    claimed.map((e) => e.id),
    [
      {
        id: newRecordId(Date.now() - DAY),
        domain: "read-agent",
        entity: "destination:lisbon",
        text: "Lisbon travellers pack light.",
        episode_ids: claimed.map((e) => e.id),
        pass_id: pass,
        created_at: new Date(Date.now() - DAY).toISOString(),
      },
    ],
  );

  const { status } = await network.ask("What should I pack for Lisbon in May? R2", "req-lisbon");
  assert.is(status, 200);
  const section = sectionOf(network);
  assert.ok(section, "the planning prompt has the episodic section");
  assert.ok(Buffer.byteLength(section!) <= BUDGET, `${Buffer.byteLength(section!)} bytes`);
  assert.match(section!, /DOMAIN DIGEST: travellers mostly plan short city breaks\./);
  assert.match(
    section!,
    /Earlier runs about destination:lisbon:\n- \d{4}-\d{2}-\d{2}: Lisbon in May: sunny forecast, the traveller was told to pack linen shirts and sandals\./,
    "the run most relevant to the request first",
  );
  assert.match(section!, /Learnt from earlier runs:\n- destination:lisbon: Lisbon travellers pack light\./);
  assert.not.match(section!, /Kyoto/);

  const span = await readEvents(context, "req-lisbon");
  assert.is(span.name, "HTTP POST /orchestrate/natural");
  const named = (name: string) => span.events.filter((e) => e.name === name && e.attributes["request_id"] === "req-lisbon").map((e) => e.attributes);
  const injected = named("memory.enrichment.injected")[0]!;
  assert.equal([injected["entities_found"], injected["budget_bytes"], injected["view_outcome"]], [1, BUDGET, "partial"]);
  assert.ok(Number(injected["context_bytes"]) <= BUDGET);
  assert.equal(
    named("memory.enrichment.section_bounded").map((a) => [a["section_kind"], a["items"], a["items_kept"]]),
    [
      ["domain", 1, 1],
      ["entity", 3, 2],
      ["knowledge", 1, 1],
    ],
    "the budget left room for two of the three Lisbon runs",
  );
  assert.equal(named("memory.enrichment.view_bounded")[0]!["outcome"], "partial");
  assert.equal(
    named("memory.episodic.read").map((a) => [a["status"], a["returned_events"]]),
    [["read_succeeded", 3]],
  );
  assert.equal(named("memory.entity_extraction.completed")[0]!["hook"], "enrichment");
  assert.not.match(JSON.stringify(span.events), /linen|DOMAIN DIGEST|pack light/, "no summary, digest or knowledge in the events");
});

test("a user's runs are read back for that user only: not for another user, not for anonymous callers", async ({ network }) => {
  const { store, source } = network.memory;
  const alice = { ...episodeAgo(["destination:oslo"], "Oslo for Alice: ALICE-PRIVATE she lives in Bergen and flies on the 3rd.", DAY / 2), user: "alice" };
  await store.append(alice);
  const ask = async (identity: Identity) => {
    const gathered = await source.gather({
      requestId: `req-${identity.subject}`,
      request: "What should I pack for Oslo?",
      identity,
      conversationId: undefined,
      budgetBytes: 4096,
      signal: new AbortController().signal,
      llm: undefined,
      record: undefined,
    });
    return gathered?.section?.text ?? "";
  };
  assert.match(await ask({ subject: "alice", kind: "user", via: "header" }), /ALICE-PRIVATE/);
  assert.not.match(await ask({ subject: "bob", kind: "user", via: "header" }), /ALICE-PRIVATE/);
  assert.not.match(await ask(ANONYMOUS), /ALICE-PRIVATE/);
  // An agent named alice is not the user alice.
  assert.not.match(await ask({ subject: "alice", kind: "agent", via: "token" }), /ALICE-PRIVATE/);
});

test.run();
