/**
 * Episodes recorded after natural requests and compacted incrementally, over HTTP with the real
 * `openai` client against the scripted server and telemetry to a local OTLP receiver: three runs make
 * the first (full) digest; each later run is folded in by an incremental call that carries the old
 * digest and only the new run's summary; a read then finds the digest current (`cached`). The
 * record's events are on its `memory.record` span, child of the request's.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createMemoryLlmDebugStore, type LlmDebugStore } from "../../runtime/llm/index.js";
import { MAX_SUMMARIES_IN_FLIGHT } from "../../runtime/memory/episodic/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { exportToReceiver, startOtlpReceiver, type ReceivedSpan } from "../telemetry/otlp-receiver.js";
import { eventually } from "../support/wait.js";
import { markers, startEpisodicAgent, systemOf, userOf, type EpisodicAgent } from "./episodic-support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  network: EpisodicAgent;
  debug: LlmDebugStore;
}
const test = suite<Context>("episodic memory: recording and incremental compaction", {} as Context);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "episodic-traced" });
  context.debug = createMemoryLlmDebugStore();
  context.network = await startEpisodicAgent({ llmDebug: context.debug });
});
test.after(async ({ receiver, network, debug }) => {
  await network.close();
  await debug.close();
  await shutdownTelemetry();
  await receiver.close();
});

/** Asks, then waits until the run is an episode and the digest (when expected) covers it. */
async function run(network: EpisodicAgent, n: number, { digest }: { digest: boolean }): Promise<void> {
  const { status, body } = await network.ask(`Plan trip R${n} to Lisbon`, `req-run-${n}`);
  assert.is(status, 200, JSON.stringify(body));
  const { store } = network.memory;
  const newest = await eventually(`episode of run ${n}`, async () => (await store.recent({ limit: 10 })).find((e) => e.request_id === `req-run-${n}`));
  if (digest) await eventually(`the digest through run ${n}`, async () => (await store.digest())?.through === newest.id);
}

const recordSpans = (receiver: Context["receiver"]): ReceivedSpan[] => receiver.spans.filter((s) => s.name === "memory.record");
const eventsOf = (span: ReceivedSpan | undefined, name: string) => (span?.events ?? []).filter((e) => e.name === name).map((e) => e.attributes);

test("three runs make a full digest; two more are folded in incrementally with only their own summaries; then a read is cached", async ({
  network,
  receiver,
  debug,
}) => {
  for (const n of [1, 2]) await run(network, n, { digest: false });
  assert.is(await network.memory.store.digest(), undefined, "no digest for fewer than three runs");
  await run(network, 3, { digest: true });

  const full = network.requests("compaction");
  assert.is(full.length, 1, "one full compaction");
  assert.equal(markers(userOf(full[0]!)), ["R1", "R2", "R3"], "over the three runs' summaries, oldest first");
  assert.match(userOf(full[0]!), /summary-R1: a trip to Lisbon was planned\./);
  assert.is((await network.memory.store.digest())?.text, "DIGEST-FULL[R1,R2,R3]");

  await run(network, 4, { digest: true });
  await run(network, 5, { digest: true });
  const incremental = network.requests("incremental");
  assert.is(incremental.length, 2);
  assert.is(network.requests("compaction").length, 1, "no further full compaction");
  assert.match(systemOf(incremental[0]!), /Update the current digest/);
  // The old digest and the new run's summary, nothing of the runs the digest already covers.
  assert.equal(markers(userOf(incremental[0]!)), ["R1", "R2", "R3", "R4"]);
  assert.match(userOf(incremental[0]!), /DIGEST-FULL\[R1,R2,R3\][\s\S]*New runs, oldest first:[\s\S]*summary-R4/);
  assert.not.match(userOf(incremental[0]!), /summary-R[123]/);
  assert.match(userOf(incremental[1]!), /DIGEST-INC\[R1,R2,R3,R4\][\s\S]*summary-R5/);
  assert.not.match(userOf(incremental[1]!), /summary-R[1234]/);
  const digest = (await network.memory.store.digest())!;
  assert.equal([digest.text, digest.episodes], ["DIGEST-INC[R1,R2,R3,R4,R5]", 5]);

  // Each run's record span, child of its request's: the spec's events, in order.
  await receiver.until(() => recordSpans(receiver).length === 5 && recordSpans(receiver).every((s) => s.events.length > 0), "five record spans");
  const spanOf = (n: number) => recordSpans(receiver).find((s) => s.attributes["request_id"] === `req-run-${n}`);
  const decisions = [1, 2, 3, 4, 5].map((n) =>
    eventsOf(spanOf(n), "activity.compaction.cache_decision").map((a) => [a["path"], a["cache_hit"], a["coverage"]]),
  );
  assert.equal(decisions, [
    [],
    [],
    [["full", false, "returned_window"]],
    [["incremental", false, "returned_window"]],
    [["incremental", false, "returned_window"]],
  ]);
  const fourth = spanOf(4)!;
  assert.equal(
    fourth.events.map((e) => e.name),
    [
      "memory.entity_extraction.completed",
      "llm.event_summarization.request",
      "llm.event_summarization.response",
      "memory.event_summarization.outcome",
      "memory.record.events_written",
      "memory.record.summary_coverage",
      "llm.activity_compaction.incremental_request",
      "llm.activity_compaction.incremental_response",
      "activity.compaction.cache_decision",
      "memory.activity_compaction.outcome",
    ],
  );
  assert.equal(eventsOf(fourth, "memory.entity_extraction.completed")[0], {
    request_id: "req-run-4",
    domain: "travel-agent",
    step_id: "s1",
    hook: "record",
    extractor_type: "parameters",
    source: "step_parameters",
    entities_found: 2,
  });
  const outcome = eventsOf(fourth, "memory.event_summarization.outcome")[0]!;
  assert.equal([outcome["outcome"], outcome["expected"], outcome["accepted"], outcome["summaries_shortened"]], ["complete", 1, 1, 0]);
  assert.equal(eventsOf(fourth, "memory.record.events_written")[0]!["events_recorded"], 3);
  assert.equal(eventsOf(fourth, "memory.activity_compaction.outcome")[0], {
    request_id: "req-run-4",
    domain: "travel-agent",
    outcome: "usable",
    digest_bytes: Buffer.byteLength("DIGEST-INC[R1,R2,R3,R4]"),
  });
  const request = receiver.spans.find((s) => s.name === "HTTP POST /orchestrate/natural" && s.spanId === fourth.parentSpanId);
  assert.ok(request, "memory.record is a child of the request's span");
  const json = JSON.stringify(recordSpans(receiver));
  assert.not.match(json, /summary-R|DIGEST-|trip to Lisbon/, "no summary, digest or event text in span attributes or events");

  // The memory's calls are in each run's LLM debug record, under its request id, after the run's own.
  const typesOf = async (requestId: string) => (await debug.get(requestId))?.interactions.map((i) => i.type);
  await eventually("run 4's debug record", async () => (await typesOf("req-run-4"))?.includes("activity_compaction_incremental"));
  assert.equal(await typesOf("req-run-3"), ["plan_generation", "synthesis", "event_summarization", "activity_compaction"]);
  assert.equal(await typesOf("req-run-4"), ["plan_generation", "synthesis", "event_summarization", "activity_compaction_incremental"]);
  const incrementalRecord = (await debug.get("req-run-4"))!.interactions.at(-1)!;
  assert.ok(incrementalRecord.success);
  assert.match(incrementalRecord.prompt, /summary-R4/);
  assert.is(incrementalRecord.response, "DIGEST-INC[R1,R2,R3,R4]");

  // A sixth request reads the digest, current: cached, and the planner sees it.
  const { status } = await network.ask("Plan trip R6 to Lisbon", "req-run-6");
  assert.is(status, 200);
  const plan = network.requests("routing_plan").at(-1)!;
  assert.match(JSON.stringify(plan.body.messages), /DIGEST-INC\[R1,R2,R3,R4,R5\]/);
  await receiver.until(
    () => receiver.spans.some((s) => s.events.some((e) => e.name === "memory.enrichment.injected" && e.attributes["request_id"] === "req-run-6")),
    "the read's events",
  );
  const read = receiver.spans.find((s) => s.events.some((e) => e.name === "memory.enrichment.injected" && e.attributes["request_id"] === "req-run-6"))!;
  assert.is(read.name, "HTTP POST /orchestrate/natural", "the read's events are on the request's span");
  assert.equal(
    eventsOf(read, "activity.compaction.cache_decision").map((a) => [a["path"], a["cache_hit"]]),
    [["cached", true]],
  );
  assert.equal(eventsOf(read, "memory.episodic.read")[0]!["status"], "read_succeeded");
});

test("a model that fails: mechanical summaries (outcome fallback) and a mechanical digest (raw_fallback), still recorded", async ({ receiver }) => {
  const network = await startEpisodicAgent({ name: "fallback-agent" });
  try {
    network.answers.summary = () => ({ status: 500 });
    network.answers.compaction = () => ({ status: 500 });
    for (const n of [1, 2, 3]) {
      const { status } = await network.ask(`Plan trip R${n} to Kyoto`, `req-fallback-${n}`);
      assert.is(status, 200);
      await eventually(`episode ${n}`, async () => (await network.memory.store.recent({ limit: 5 })).length === n);
    }
    const digest = await eventually("the mechanical digest", () => network.memory.store.digest());
    const [newest] = await network.memory.store.recent({ limit: 1 });
    assert.equal([newest!.summary_outcome, newest!.summary], ["fallback", "Asked: Plan trip R3 to Kyoto. Steps: worker.echo (completed). Answered: Done."]);
    assert.match(digest.text, /^- \d{4}-\d{2}-\d{2} \d{2}:\d{2}: Asked: Plan trip R3 to Kyoto/);
    assert.is(digest.episodes, 3);
    const spans = () => receiver.spans.filter((s) => s.name === "memory.record" && s.attributes["domain"] === "fallback-agent");
    await receiver.until(() => spans().some((s) => s.events.some((e) => e.name === "memory.activity_compaction.outcome")), "the fallback compaction's events");
    const third = spans().find((s) => s.events.some((e) => e.name === "memory.activity_compaction.outcome"))!;
    assert.equal(
      eventsOf(third, "memory.event_summarization.outcome").map((a) => [a["outcome"], a["accepted"]]),
      [["fallback", 0]],
    );
    assert.equal(
      eventsOf(third, "activity.compaction.cache_decision").map((a) => [a["path"], a["cache_hit"]]),
      [["raw_fallback", false]],
    );
    assert.equal(
      eventsOf(third, "memory.activity_compaction.outcome").map((a) => a["outcome"]),
      ["fallback"],
    );
  } finally {
    await network.close();
  }
});

test("a model that does not answer: at most eight summaries wait for it, the next run is recorded at once with a mechanical one; stopping records the eight", async () => {
  const network = await startEpisodicAgent({ name: "busy-agent" });
  network.answers.summary = () => ({ hang: true });
  const { store } = network.memory;
  try {
    for (let n = 1; n <= MAX_SUMMARIES_IN_FLIGHT; n++) assert.is((await network.ask(`Plan trip R${n} to Lisbon`, `req-busy-${n}`)).status, 200);
    await eventually("eight summary calls waiting", () => network.requests("summary").length === MAX_SUMMARIES_IN_FLIGHT);
    assert.is((await network.ask("Plan trip R9 to Kyoto", "req-busy-9")).status, 200);
    const ninth = await eventually("the ninth run's episode", async () => (await store.recent({ limit: 20 })).find((e) => e.request_id === "req-busy-9"));
    assert.equal([ninth.summary_outcome, ninth.summary], ["fallback", "Asked: Plan trip R9 to Kyoto. Steps: worker.echo (completed). Answered: Done."]);
    assert.is(network.requests("summary").length, MAX_SUMMARIES_IN_FLIGHT, "no ninth call");
    assert.is((await store.recent({ limit: 20 })).length, 1, "the eight still wait for the model");
  } finally {
    await network.close();
  }
  const recorded = await store.recent({ limit: 20 });
  assert.is(recorded.length, MAX_SUMMARIES_IN_FLIGHT + 1);
  assert.is(recorded.filter((e) => e.summary_outcome === "parent_cancelled").length, MAX_SUMMARIES_IN_FLIGHT);
});

test.run();
