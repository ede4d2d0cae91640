/**
 * User memory's telemetry against a local OTLP receiver: the extraction after a chat turn is a root
 * span of its own, `pipeline.hook.async.knowledge-extraction`, linked to the turn's trace, with the
 * events `user_memory.extraction.llm_request`, `user_memory.extraction.complete` (candidates, stored),
 * `user_memory.summary.llm_request` and `user_memory.summary.stored`; recall is a
 * `user_memory.recall.identity` span inside the next turn's trace with `user_memory.enrichment.injected`
 * (facts_count, profile_chars). No span or event attribute ever holds a fact's value or the summary.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { exportToReceiver, startOtlpReceiver, type ReceivedSpan } from "../telemetry/otlp-receiver.js";
import { type MemoryAgent, startMemoryAgent, turn } from "./user-support.js";

process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  agent: MemoryAgent;
}
const test = suite<Context>("user memory telemetry", {} as Context);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "memory-traced" });
  context.agent = await startMemoryAgent();
});
test.after(async ({ receiver, agent }) => {
  await agent.close();
  await shutdownTelemetry();
  await receiver.close();
});

const named = (spans: readonly ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const eventsOf = (span: ReceivedSpan) => span.events.map((e) => [e.name, e.attributes]);

test("extraction is a root span linked to its turn, with counts only; recall is a span of the next turn with counts only", async ({ receiver, agent }) => {
  agent.extractions.push([
    { key: "home_city", value: "Lisbon", action: "add" },
    { key: "api_key", value: "sk-proj-Abc123Def456Ghi789", action: "add" },
  ]);
  await turn(agent, "I live in Lisbon; my key is sk-proj-Abc123Def456Ghi789.", "alice");
  await receiver.until(() => named(receiver.spans, "pipeline.hook.async.knowledge-extraction").length === 1, "the extraction span");
  await receiver.until(() => named(receiver.spans, "HTTP POST /chat/stream").length === 1, "the turn's span");
  const [extraction] = named(receiver.spans, "pipeline.hook.async.knowledge-extraction");
  const [chat] = named(receiver.spans, "HTTP POST /chat/stream");
  assert.is(extraction!.parentSpanId, undefined, "a root of its own");
  assert.ok(extraction!.traceId !== chat!.traceId);
  assert.equal(extraction!.links, [{ traceId: chat!.traceId, spanId: chat!.spanId }], "linked to the turn");
  assert.equal(eventsOf(extraction!), [
    ["user_memory.extraction.llm_request", { known_facts: 0 }],
    ["user_memory.extraction.complete", { candidates: 2, stored: 1 }],
    ["user_memory.summary.llm_request", { facts_count: 1 }],
    ["user_memory.summary.stored", { profile_chars: "A traveller.".length }],
  ]);

  await turn(agent, "What should I pack?", "alice");
  await receiver.until(() => named(receiver.spans, "HTTP POST /chat/stream").length === 2, "the second turn's span");
  const second = named(receiver.spans, "HTTP POST /chat/stream").find((s) => s.spanId !== chat!.spanId)!;
  await receiver.until(() => named(receiver.spans, "user_memory.recall.identity").length === 2, "both turns' recall spans");
  const [before, recall] = [chat!, second].map((turnSpan) => named(receiver.spans, "user_memory.recall.identity").find((s) => s.traceId === turnSpan.traceId));
  assert.ok(before !== undefined && recall !== undefined, "each inside its turn's trace");
  assert.equal(eventsOf(before!), [["user_memory.enrichment.injected", { facts_count: 0, profile_chars: 0 }]], "nothing known yet");
  assert.equal(eventsOf(recall!), [["user_memory.enrichment.injected", { facts_count: 1, profile_chars: "A traveller.".length }]]);
  assert.equal(recall!.attributes, { ...recall!.attributes, facts_count: 1, profile_chars: 12 });

  const everything = JSON.stringify(receiver.spans.map((s) => [s.attributes, s.events]));
  assert.not.match(everything, /Lisbon|A traveller|sk-proj/, "no value or summary in any attribute");
});

test.run();
