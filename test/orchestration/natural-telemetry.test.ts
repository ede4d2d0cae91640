/**
 * Natural mode's span events and metrics against a local OTLP receiver: the spec's event names on
 * the request's span, bounded attributes only (never the prompt, the plan or the answer), and token
 * metrics by model, phase and kind with no id label.
 */
import { trace } from "@opentelemetry/api";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { initTelemetry, isIdLabel, looksLikeId, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { agentSpec, serveAgent, startTools, type Tools } from "./support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tools: Tools;
  llm: ScriptedLlm;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("natural mode telemetry", {} as Context);

const REQUEST = "PRIVATE-REQUEST-TEXT what is 2 + 3";
const plan = (agent: string): string =>
  JSON.stringify({ steps: [{ step_id: "sum", agent_name: agent, depends_on: [], metadata: { capability: "add", parameters: { a: 2, b: 3 } } }] });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "natural-traced" });
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "traced-model", maxRetries: 0 }, env: {} })!,
  );
  context.agent = await serveAgent(agentSpec("natural-traced", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: provider,
  });
});
test.after(async ({ receiver, tools, agent, llm }) => {
  await agent.running.close();
  await tools.close();
  await llm.close();
  await shutdownTelemetry();
  await receiver.close();
});

test("planning, a hallucination, a parse correction and synthesis are events on the request's span", async ({ receiver, agent, llm }) => {
  llm.reply({ text: plan("abacus") }, { text: "not json" }, { text: plan("worker") }, { text: "PRIVATE-ANSWER five" });
  const { status } = await agent.post("/orchestrate/natural", { request: REQUEST });
  assert.is(status, 200);
  await receiver.until(() => receiver.spans.some((s) => s.name === "HTTP POST /orchestrate/natural"), "the request span");
  const span = receiver.spans.find((s) => s.name === "HTTP POST /orchestrate/natural")!;
  const names = span.events.map((e) => e.name);
  assert.equal(names, [
    "llm.plan_generation.request",
    "llm.plan_generation.response",
    "llm.hallucination_detected",
    "orchestrator.plan_regeneration.selection",
    "llm.plan_generation.request",
    "llm.plan_generation.response",
    "llm.plan_generation.parse_error",
    "llm.plan_generation.retry_parse_correction",
    "llm.plan_generation.request",
    "llm.plan_generation.response",
    "orchestrator.execution.lifecycle",
    "orchestrator.execution.lifecycle",
    "llm.synthesis.request",
    "llm.synthesis.response",
  ]);
  const hallucination = span.events.find((e) => e.name === "llm.hallucination_detected")!;
  assert.is(hallucination.attributes["hallucinated_agent"], "abacus");
  assert.is(hallucination.attributes["max_hall_retries"], 2);
  assert.ok(Number(span.events[1]!.attributes["total_tokens"]) > 0, "token counts on the response event");
  const everything = JSON.stringify(span.events);
  assert.not.match(everything, /PRIVATE-REQUEST-TEXT|PRIVATE-ANSWER|abacus.*add/, "no prompt, answer or plan in attributes");
});

test("a run's lifecycle, and a dependency the plan left out of depends_on, are events on the request's span", async ({ receiver, agent, llm }) => {
  // `total` reads `sum` through a template but lists no dependency: the executor adds it and says so.
  const chained = JSON.stringify({
    steps: [
      { step_id: "sum", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: 2, b: 3 } } },
      { step_id: "total", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: "{{sum.response.data.sum}}", b: 10 } } },
    ],
  });
  llm.reply({ text: chained }, { text: "fifteen" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "chained" });
  assert.is(status, 200, JSON.stringify(body));
  const planId = String(body["plan_id"]);
  const requestSpan = () => receiver.spans.find((s) => s.name === "HTTP POST /orchestrate/natural" && s.events.some((e) => e.attributes["plan_id"] === planId));
  await receiver.until(() => requestSpan() !== undefined, "the request span with the run's events");
  const events = requestSpan()!.events;
  const inclusion = events.filter((e) => e.name === "orchestration.template.dependency_inclusion");
  assert.equal(
    inclusion.map((e) => e.attributes),
    [{ reason: "undeclared_reference", step_id: "total", referenced_step: "sum" }],
  );
  const lifecycle = events.filter((e) => e.name === "orchestrator.execution.lifecycle").map((e) => e.attributes);
  assert.equal(lifecycle[0], { stage: "started", plan_id: planId, mode: "natural", step_count: 2 });
  assert.is(lifecycle[1]!["stage"], "finished");
  assert.is(lifecycle[1]!["status"], "completed");
  assert.ok(Number(lifecycle[1]!["duration_ms"]) >= 0);
  assert.ok(
    events.indexOf(events.find((e) => e.name === "orchestration.template.dependency_inclusion")!) <
      events.findIndex((e) => e.attributes["stage"] === "finished"),
  );
});

test("a plan that never checks ends with orchestrator.plan_validation.exhausted", async ({ receiver, agent, llm }) => {
  llm.reply({ text: plan("abacus") }, { text: plan("abacus") }, { text: plan("abacus") });
  const { status } = await agent.post("/orchestrate/natural", { request: "again" });
  assert.is(status, 422);
  await receiver.until(() => receiver.spans.some((s) => s.events.some((e) => e.name === "orchestrator.plan_validation.exhausted")), "the exhausted event");
});

test("trimming results for synthesis is result_trim.completed with content_lost and the sizes", async ({ receiver, agent, llm }) => {
  const text = "word ".repeat(10_000);
  llm.reply(
    { text: JSON.stringify({ steps: [{ step_id: "say", agent_name: "worker", depends_on: [], metadata: { capability: "echo", parameters: { text } } }] }) },
    // Over the result budget the result is distilled first; a distillation the model fails falls back to the trim.
    { status: 400, body: { error: { message: "no" } } },
    { text: "done" },
  );
  const { status } = await agent.post("/orchestrate/natural", { request: "echo a lot" });
  assert.is(status, 200);
  await receiver.until(() => receiver.spans.some((s) => s.events.some((e) => e.name === "result_trim.completed")), "the trim event");
  const event = receiver.spans.flatMap((s) => s.events).find((e) => e.name === "result_trim.completed")!;
  assert.is(event.attributes["content_lost"], true);
  assert.is(event.attributes["method"], "structural");
  assert.ok(Number(event.attributes["original_bytes"]) > 50_000 && Number(event.attributes["trimmed_bytes"]) <= 32 * 1024);
});

test("a synthesis stream the model endpoint cannot give falls back to one answer: orchestrator.streaming.fallback, reason client_streaming_unsupported", async ({
  receiver,
  agent,
  llm,
}) => {
  llm.reply({ text: plan("worker") }, { status: 400, body: { error: { message: "stream is not supported" } } }, { text: "PRIVATE-ANSWER five" });
  const pieces: string[] = [];
  await trace.getTracer("natural-telemetry-test").startActiveSpan("streaming probe", async (span) => {
    try {
      const result = await agent.extension.orchestrator.runNatural(REQUEST, { synthesise: true, onChunk: (piece) => pieces.push(piece) });
      assert.is(result.synthesis, "PRIVATE-ANSWER five");
    } finally {
      span.end();
    }
  });
  assert.equal(pieces, ["PRIVATE-ANSWER five"], "the whole answer as one piece");
  await receiver.until(() => receiver.spans.some((s) => s.name === "streaming probe"), "the probe span");
  const events = receiver.spans.find((s) => s.name === "streaming probe")!.events;
  const fallback = events.filter((e) => e.name === "orchestrator.streaming.fallback");
  assert.is(fallback.length, 1, JSON.stringify(events.map((e) => e.name)));
  assert.is(fallback[0]!.attributes["reason"], "client_streaming_unsupported");
  assert.is(events.find((e) => e.name === "llm.synthesis.response")!.attributes["stream_fallback"], true);
});

test("token metrics by model, phase and token type; no label is an id", async ({ receiver }) => {
  await receiver.until(() => receiver.points.some((p) => p.metric === "manifold.llm.tokens"), "llm metrics");
  const tokens = receiver.points.filter((p) => p.metric === "manifold.llm.tokens");
  const kinds = new Set(
    tokens.map((p) => `${p.attributes["gen_ai.request.model"]}/${p.attributes["manifold.llm.phase"]}/${p.attributes["gen_ai.token.type"]}`),
  );
  for (const expected of ["traced-model/plan_generation/input", "traced-model/plan_generation/output", "traced-model/synthesis/output"])
    assert.ok(kinds.has(expected), `${expected} in ${[...kinds].join(", ")}`);
  for (const point of receiver.points.filter((p) => p.metric.startsWith("manifold.llm."))) {
    for (const [name, value] of Object.entries(point.attributes)) {
      assert.not.ok(isIdLabel(name), `${point.metric}: ${name}`);
      assert.not.ok(looksLikeId(value as string), `${point.metric}: ${name}=${String(value)}`);
    }
  }
});

test.run();
