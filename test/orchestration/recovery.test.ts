/**
 * Natural mode's error recovery against a scripted model (the real `openai` client) and a real tool
 * on loopback: a refused input is analysed once, the model's corrected parameters are checked
 * against the input schema before anything is sent, and only a client error is analysed, only while
 * recovery is on and the request's model-call budget allows it.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmDebugStore, createLlmProvider, resolveLlmConfig, type LlmDebugStore } from "../../runtime/llm/index.js";
import { ONE_SHOT, type AdaptiveSettings } from "../../runtime/orchestration/natural/adaptive.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { analysisText, kindOf, planText, startWeather, step, type Weather } from "./recovery-support.js";
import { agentSpec, serveAgent } from "./support.js";

interface Context {
  weather: Weather;
  llm: ScriptedLlm;
  debug: LlmDebugStore;
  agents: Awaited<ReturnType<typeof serveAgent>>[];
}

const recovery = suite<Context>("natural mode: error recovery", {} as Context);

recovery.before.each(async (context) => {
  context.weather = await startWeather();
  context.llm = await startScriptedLlm();
  context.debug = createLlmDebugStore({ env: {} });
  context.agents = [];
});

recovery.after.each(async ({ weather, llm, debug, agents }) => {
  for (const agent of agents) await agent.running.close();
  await weather.close();
  await llm.close();
  await debug.close();
});

async function start(context: Context, adaptive: Partial<AdaptiveSettings> = {}, more: Record<string, unknown> = {}) {
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "test-model", maxRetries: 0 }, env: {} })!);
  const agent = await serveAgent(agentSpec("forecaster", { natural: true }), {
    components: [context.weather.spec],
    baseUrls: { weather: context.weather.url },
    llm: provider,
    llmDebug: context.debug,
    componentName: "forecaster",
    adaptive,
    ...more,
  });
  context.agents.push(agent);
  return agent;
}

const FORECAST_PLAN = planText(step("s1", "forecast", { city: "FR-PAR", date: "next friday" }));
const stepsOf = (body: Record<string, unknown>) =>
  body["steps"] as { step_id: string; status: string; attempts: number; error?: { code: string; message: string } }[];

recovery("a 400 is analysed and the step retried with the corrected parameters: the tool is called exactly twice and the answer completes", async (context) => {
  const agent = await start(context);
  const { llm, weather } = context;
  llm.reply(
    { text: FORECAST_PLAN },
    { text: analysisText(true, "the date must be ISO", { city: "FR-PAR", date: "2026-12-04" }) },
    { text: "11 °C in Paris on Friday." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris next friday" }, { "x-manifold-request-id": "req-rec-1" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["response"], "11 °C in Paris on Friday.");
  assert.equal(
    weather.calls.map((c) => c.input),
    [
      { city: "FR-PAR", date: "next friday" },
      { city: "FR-PAR", date: "2026-12-04" },
    ],
  );
  assert.equal(
    stepsOf(body).map((s) => [s.step_id, s.status]),
    [["s1", "completed"]],
  );
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "error_analysis", "text"]);
  // What the model was shown: the projected failure, the schema and the parameters sent, as data.
  const prompt = JSON.stringify(llm.requests[1]!.body.messages);
  assert.match(prompt, /date must be YYYY-MM-DD/);
  assert.match(prompt, /not a date: next friday/);
  assert.match(prompt, /<tool_output source=\\"failure\\">/);
  assert.match(prompt, /\\"required\\":\[\\"city\\",\\"date\\"\]/);
  assert.not.match(prompt, /at .*\.ts:\d+/, "no stack trace");
  const usage = body["usage_by_phase"] as Record<string, unknown> | undefined;
  if (usage !== undefined) assert.ok("error_analysis" in usage, "the analysis is accounted as its own phase");
  const record = await context.debug.get("req-rec-1");
  assert.ok(
    record?.interactions.some((i) => i.type === "error_analysis"),
    "the LLM debug record has the analysis",
  );
});

recovery("corrected parameters that do not fit the input schema are never sent: the tool is called once and the step fails", async (context) => {
  const agent = await start(context);
  const { llm, weather } = context;
  llm.reply(
    { text: FORECAST_PLAN },
    { text: analysisText(true, "use a number", { city: "FR-PAR", date: 20261204, units: "metric" }) },
    // The step failed on its input: the phase loop asks once for another way (remediation); none.
    { text: '{"steps": []}' },
    { text: "I could not get the forecast." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris next friday" });
  assert.is(status, 200, JSON.stringify(body));
  // Counted on the wire (the relay), where a body the component refuses before its handler still shows.
  assert.is(weather.calls.length, 1, "the correction was never dispatched");
  const [only] = stepsOf(body);
  assert.equal([only!.status, only!.error?.code], ["failed", "INVALID_INPUT"]);
  // The step's error is still the tool's refusal of the first call: recovery sent no second round
  // (one rejected later, before dispatch, by the binding check would carry that check's message).
  assert.match(only!.error!.message, /date must be YYYY-MM-DD/);
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "error_analysis", "routing_plan", "text"]);
});

recovery("a model that finds nothing to correct leaves the step failed after one analysis", async (context) => {
  const agent = await start(context);
  const { llm, weather } = context;
  llm.reply({ text: FORECAST_PLAN }, { text: analysisText(false, "the user gave no date") }, { text: '{"steps": []}' }, { text: "Which date?" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris" });
  assert.is(status, 200);
  assert.is(weather.calls.length, 1);
  assert.is(stepsOf(body)[0]!.status, "failed");
});

recovery("the parameters already sent, in another key order, are not sent again", async (context) => {
  const agent = await start(context);
  const { llm, weather } = context;
  llm.reply(
    { text: FORECAST_PLAN },
    { text: analysisText(true, "looks right to me", { date: "next friday", city: "FR-PAR" }) },
    { text: '{"steps": []}' },
    { text: "No forecast." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris next friday" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(weather.calls.length, 1, "no second call with the same parameters");
  assert.is(stepsOf(body)[0]!.status, "failed");
});

recovery("a retry refused again is not analysed again with MANIFOLD_MAX_SEMANTIC_RETRIES=1", async (context) => {
  const agent = await start(context);
  const { llm, weather } = context;
  llm.reply(
    { text: FORECAST_PLAN },
    { text: analysisText(true, "try a code", { city: "FR-PAR", date: "friday 4th" }) },
    { text: '{"steps": []}' },
    { text: "No forecast." },
  );
  const { body } = await agent.post("/orchestrate/natural", { request: "weather" });
  assert.is(weather.calls.length, 2);
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "error_analysis", "routing_plan", "text"], "the remediation plan, no second analysis");
  assert.is(stepsOf(body)[0]!.status, "failed");
});

recovery("an input derived from an earlier step is re-resolved from that step's data", async (context) => {
  const agent = await start(context);
  const { llm, weather } = context;
  llm.reply(
    { text: planText(step("s1", "locate", { query: "Paris" }), step("s2", "forecast", { city: "{{s1.response.data.name}}", date: "2026-12-04" }, ["s1"])) },
    { text: analysisText(true, "the code, not the name", { city: "FR-PAR", date: "2026-12-04" }) },
    { text: "11 °C." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris on 4 December" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(
    weather.calls.map((c) => [c.capability, c.input["city"] ?? c.input["query"]]),
    [
      ["locate", "Paris"],
      ["forecast", "Paris"],
      ["forecast", "FR-PAR"],
    ],
  );
  const prompt = JSON.stringify(llm.requests[1]!.body.messages);
  assert.match(prompt, /<tool_output source=\\"earlier_results\\">/);
  assert.match(prompt, /FR-PAR/, "the source step's output is in the prompt");
});

recovery("a huge templated parameter is trimmed to the result budget before it is quoted in the error analysis", async (context) => {
  const agent = await start(context, { resultBudgetBytes: 2048 });
  const { llm, weather } = context;
  // `expand` answers a 600 KB name; the forecast's city reads it, fits the schema (a string) and is refused.
  llm.reply(
    {
      text: planText(
        step("s1", "expand", { query: "Paris ", times: 100_000 }),
        step("s2", "forecast", { city: "{{s1.response.data.name}}", date: "2026-12-04" }, ["s1"]),
      ),
    },
    { text: analysisText(false, "no code in the data") },
    { text: '{"steps": []}' },
    { text: "No forecast." },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris on 4 December" });
  assert.is(status, 200, JSON.stringify(body).slice(0, 500));
  const sent = weather.calls.find((c) => c.capability === "forecast");
  assert.is(String(sent?.input["city"]).length, 600_000, "the tool was sent the whole value");
  const analysis = llm.requests.find((r) => kindOf(r) === "error_analysis");
  assert.ok(analysis !== undefined, "the refusal was analysed");
  const prompt = (analysis!.body.messages as { content: string }[]).map((m) => m.content).join("\n");
  // Parameters and the source step's data are each cut to the 2 KB budget; the failure is projected (≤ 4 KB).
  assert.ok(Buffer.byteLength(prompt) < 16 * 1024, `an error_analysis prompt of ${Buffer.byteLength(prompt)} bytes`);
  assert.match(prompt, /<tool_output source="parameters">[\s\S]*more characters\)/, "the cut is marked in place");
  assert.match(prompt, /2026-12-04/, "the parameters' other fields are kept");
});

recovery("with a small model context, the error analysis quotes less: its prompt fits MANIFOLD_LLM_CONTEXT_TOKENS and is sent", async (context) => {
  // 2,000 tokens: prompts of at most 6,000 bytes; the default 16 KiB result budget would not fit.
  // One phase and no synthesis: the 600 KB result is then shown to no other prompt (it would be distilled there).
  const agent = await start(context, { contextTokens: 2_000, maxPhases: 1 });
  const { llm } = context;
  llm.reply(
    {
      text: planText(
        step("s1", "expand", { query: "Paris ", times: 100_000 }),
        step("s2", "forecast", { city: "{{s1.response.data.name}}", date: "2026-12-04" }, ["s1"]),
      ),
    },
    { text: analysisText(false, "no code in the data") },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris on 4 December", ai_synthesis: false });
  assert.is(status, 200, JSON.stringify(body).slice(0, 500));
  const analysis = llm.requests.find((r) => kindOf(r) === "error_analysis");
  assert.ok(analysis !== undefined, "the analysis was asked for, not refused for its size");
  const prompt = (analysis!.body.messages as { content: string }[]).map((m) => m.content).join("");
  assert.ok(Buffer.byteLength(prompt) <= 6_000, `an error_analysis prompt of ${Buffer.byteLength(prompt)} bytes`);
});

recovery("server errors and timeouts are not analysed: they keep the executor's own policy", async (context) => {
  const agent = await start(context, {}, { timeoutMs: 300 });
  const { llm, weather } = context;
  llm.reply({ text: planText(step("boom", "explode", {}), step("late", "stall", {})) }, { text: "Both failed." });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "break things" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(
    stepsOf(body)
      .map((s) => [s.step_id, s.error?.code])
      .sort(),
    [
      ["boom", "INTERNAL"],
      ["late", "TIMEOUT"],
    ],
  );
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "text"], "no error_analysis request");
  assert.is(weather.calls.length, 2);
});

recovery("a step that never reached its tool (no address to send it to, a 404 of the resolver) is not analysed", async (context) => {
  const agent = await start(context, {}, { baseUrls: {} });
  const { llm, weather } = context;
  // The plan, the phase loop's remediation request (none), the answer.
  llm.reply({ text: FORECAST_PLAN }, { text: '{"steps": []}' }, { text: "The forecast service is not reachable." });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather in Paris next friday" });
  assert.not.ok(llm.requests.map(kindOf).includes("error_analysis"), "no error_analysis request: a changed input cannot reach a tool it was never sent to");
  assert.is(status, 200, JSON.stringify(body));
  const [only] = stepsOf(body);
  assert.equal([only!.status, only!.error?.code], ["failed", "NOT_FOUND"]);
  assert.is(weather.calls.length, 0);
});

recovery("one-shot settings (MANIFOLD_MAX_SEMANTIC_RETRIES=0) make no analysis", async (context) => {
  const agent = await start(context, ONE_SHOT);
  const { llm, weather } = context;
  llm.reply({ text: FORECAST_PLAN }, { text: "No forecast." });
  const { body } = await agent.post("/orchestrate/natural", { request: "weather" });
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "text"]);
  assert.is(weather.calls.length, 1);
  assert.is(stepsOf(body)[0]!.status, "failed");
});

recovery("no analysis once the request's model-call budget has only the answer's call left", async (context) => {
  const agent = await start(context, { maxLlmCalls: 2 });
  const { llm, weather } = context;
  llm.reply({ text: FORECAST_PLAN }, { text: "No forecast." });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "weather" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "text"]);
  assert.is(weather.calls.length, 1);
});

recovery("a capability with lasting effects is never re-sent on the model's word: its failure is not shown to the model", async (context) => {
  const agent = await start(context, {}, { allowLastingEffects: true });
  const { llm, weather } = context;
  llm.reply({ text: planText(step("sub", "subscribe", { city: "Paris" })) }, { text: "Not subscribed." });
  const { body } = await agent.post("/orchestrate/natural", { request: "subscribe me" });
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "text"]);
  assert.is(weather.calls.length, 1);
  assert.is(stepsOf(body)[0]!.status, "failed");
});

recovery.run();
