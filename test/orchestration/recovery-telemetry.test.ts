/**
 * Error recovery's span events against a local OTLP receiver: the spec's names (Error recovery,
 * Failure evidence, result_trim.semantic_retry) on the request's span, with bounded scalar
 * attributes only.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { analysisText, planText, startWeather, step, type Weather } from "./recovery-support.js";
import { agentSpec, serveAgent } from "./support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  weather: Weather;
  llm: ScriptedLlm;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("natural mode recovery telemetry", {} as Context);

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "recovery-traced" });
  context.weather = await startWeather();
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(agentSpec("recovery-traced", { natural: true }), {
    components: [context.weather.spec],
    baseUrls: { weather: context.weather.url },
    llm: provider,
    allowLastingEffects: true,
    // A small result budget, so the source step's output is trimmed for the analysis.
    adaptive: { resultBudgetBytes: 256 },
  });
});
test.after(async ({ receiver, weather, agent, llm }) => {
  await agent.running.close();
  await weather.close();
  await llm.close();
  await shutdownTelemetry();
  await receiver.close();
});

const RECOVERY_EVENTS = new Set([
  "contextual_re_resolution.start",
  "contextual_re_resolution.complete",
  "contextual_re_resolution.error",
  "error_analyzer.llm_error_analysis_start",
  "error_analyzer.llm_error_analysis_result",
  "error_analyzer.llm_error_analysis_retry",
  "error_analyzer.analysis_complete",
  "semantic_retry_applied",
  "failure_evidence.projected",
  "failure_evidence.policy_omitted",
  "result_trim.semantic_retry",
]);

async function requestSpanEvents(receiver: Context["receiver"], requestId: string, last: string) {
  const span = () =>
    receiver.spans.find(
      (s) => s.name === "HTTP POST /orchestrate/natural" && s.events.some((e) => e.attributes["request_id"] === requestId && e.name === last),
    );
  await receiver.until(() => span() !== undefined, `the request span of ${requestId}`);
  return span()!.events.filter((e) => RECOVERY_EVENTS.has(e.name));
}

test("a recovered step marks the analysis, the projection, the trim and the retry on the request's span", async ({ receiver, agent, llm }) => {
  const long = "Paris ".repeat(200);
  llm.reply(
    { text: planText(step("s1", "locate", { query: long }), step("s2", "forecast", { city: "{{s1.response.data.name}}", date: "2026-12-04" }, ["s1"])) },
    { text: analysisText(true, "PRIVATE-REASON use the code", { city: "FR-PAR", date: "2026-12-04" }) },
    // The synthesis distils s1's long result (over the 256-byte budget) before it answers.
    { text: "s1 found Paris." },
    { text: "11 °C." },
  );
  const { status } = await agent.post("/orchestrate/natural", { request: "weather" }, { "x-manifold-request-id": "req-rec-tel-1" });
  assert.is(status, 200);
  const events = await requestSpanEvents(receiver, "req-rec-tel-1", "semantic_retry_applied");
  assert.equal(
    events.map((e) => e.name),
    [
      "result_trim.semantic_retry",
      "contextual_re_resolution.start",
      "error_analyzer.llm_error_analysis_start",
      // The city the template read is the long name: the parameters quoted are trimmed too.
      "result_trim.semantic_retry",
      "failure_evidence.projected",
      "error_analyzer.llm_error_analysis_result",
      "error_analyzer.llm_error_analysis_retry",
      "semantic_retry_applied",
      "error_analyzer.analysis_complete",
      "contextual_re_resolution.complete",
    ],
  );
  const by = (name: string) => events.find((e) => e.name === name)!.attributes;
  assert.equal(
    { ...by("error_analyzer.llm_error_analysis_start") },
    {
      request_id: "req-rec-tel-1",
      phase_number: 1,
      error_type: "INVALID_INPUT",
      original_error: "city must be a location code such as FR-PAR",
      capability: "forecast",
      tool_name: "weather",
    },
  );
  const start = by("contextual_re_resolution.start");
  assert.equal(
    [start["step_id"], start["capability"], start["retry_count"], start["http_status"], start["source_data_keys"]],
    ["s2", "forecast", 0, 400, "s1"],
  );
  const projected = by("failure_evidence.projected");
  assert.is(projected["effective_limit_bytes"], 4096);
  assert.ok(Number(projected["raw_bytes"]) > Number(projected["rendered_bytes"]), "the stack is not rendered");
  assert.is(projected["omitted"], 0);
  assert.equal(
    [by("semantic_retry_applied")["step_id"], by("semantic_retry_applied")["corrected_params"]],
    ["s2", JSON.stringify({ city: "FR-PAR", date: "2026-12-04" })],
  );
  assert.is(by("error_analyzer.llm_error_analysis_result")["recoverable"], true);
  assert.is(by("error_analyzer.llm_error_analysis_result")["has_suggestions"], true);
  assert.is(by("error_analyzer.llm_error_analysis_retry")["retry_count"], 1);
  assert.is(by("contextual_re_resolution.complete")["should_retry"], true);
  assert.is(by("contextual_re_resolution.complete")["corrected_params_count"], 2);
  const trims = events.filter((e) => e.name === "result_trim.semantic_retry").map((e) => e.attributes);
  assert.equal(
    trims.map((t) => [t["part"], t["step_id"], t["content_lost"]]),
    [
      ["sources", "s2", true],
      ["parameters", "s2", true],
    ],
  );
  assert.ok(trims.every((t) => Number(t["trimmed_bytes"]) <= 256 && Number(t["original_bytes"]) > 256));
  for (const event of events)
    for (const value of Object.values(event.attributes))
      assert.ok(["string", "number", "boolean"].includes(typeof value) && String(value).length <= 1024, `${event.name}: a bounded scalar`);
});

test("a failure the policy hides (a lasting-effects capability) is failure_evidence.policy_omitted, never analysed", async ({ receiver, agent, llm }) => {
  llm.reply({ text: planText(step("sub", "subscribe", { city: "Paris" })) }, { text: "No." });
  const before = llm.requests.length;
  await agent.post("/orchestrate/natural", { request: "subscribe" }, { "x-manifold-request-id": "req-rec-tel-2" });
  const events = await requestSpanEvents(receiver, "req-rec-tel-2", "failure_evidence.policy_omitted");
  assert.equal(
    events.map((e) => [e.name, e.attributes["step_id"], e.attributes["attempt"]]),
    [["failure_evidence.policy_omitted", "sub", 1]],
  );
  assert.is(llm.requests.length - before, 2, "the plan and the answer only");
});

test.run();
