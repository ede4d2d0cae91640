/**
 * Recovery comes before a human: on an agent served with the real feature list (HITL on), a refused
 * natural-mode step is analysed and retried first, and pauses at HITL's error checkpoint only when
 * recovery did not fix it, with the model's analysis in the checkpoint's reason. A corrected step on
 * a sensitive capability still waits for approval: an approval covers the parameters a human saw.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore, type HitlSpec } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { jsonPoster, QUIET_AGENT } from "../support/serve.js";
import { analysisText, kindOf, planText, startWeather, step, type Weather } from "./recovery-support.js";
import { agentSpec } from "./support.js";

interface Context {
  weather: Weather;
  llm: ScriptedLlm;
  agent: RunningComponent | undefined;
}

const test = suite<Context>("natural mode: recovery before a human", {} as Context);

test.before.each(async (context) => {
  context.weather = await startWeather();
  context.llm = await startScriptedLlm();
  context.agent = undefined;
});
test.after.each(async ({ weather, llm, agent }) => {
  await agent?.close();
  await weather.close();
  await llm.close();
});

async function start(context: Context, hitl: HitlSpec) {
  const base = agentSpec(`careful-${Math.random().toString(16).slice(2, 8)}`, { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl } };
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const running = await serveAgent(spec, [context.weather.spec], {
    ...QUIET_AGENT,
    llm: provider,
    orchestration: { baseUrls: { weather: context.weather.url }, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  context.agent = running;
  return jsonPoster(running.url);
}

const ERRORS_ONLY: HitlSpec = { planApproval: false, sensitiveCapabilities: [], expiryMs: 60_000, defaultAction: "reject" };
const BOOKING_SENSITIVE: HitlSpec = { ...ERRORS_ONLY, sensitiveCapabilities: ["book"] };

test("a refused step is recovered by the model before any human is asked", async (context) => {
  const post = await start(context, ERRORS_ONLY);
  context.llm.reply(
    { text: planText(step("s1", "forecast", { city: "FR-PAR", date: "next friday" })) },
    { text: analysisText(true, "ISO date", { city: "FR-PAR", date: "2026-12-04" }) },
    { text: "11 °C." },
  );
  const { status, body } = await post("/orchestrate/natural", { request: "weather" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(context.weather.calls.length, 2);
});

test("when recovery does not fix the step, it pauses at the error checkpoint with the analysis attached", async (context) => {
  const post = await start(context, ERRORS_ONLY);
  context.llm.reply(
    { text: planText(step("s1", "forecast", { city: "FR-PAR", date: "next friday" })) },
    { text: analysisText(true, "PARSED-A-WEEKDAY the date looks like a weekday", { city: "FR-PAR", date: "friday the 4th" }) },
  );
  const { status, body } = await post("/orchestrate/natural", { request: "weather" });
  assert.is(status, 202, JSON.stringify(body));
  const { checkpoint } = body;
  assert.equal([checkpoint.type, checkpoint.current_step.step_id], ["error", "s1"]);
  assert.match(checkpoint.decision.reason, /weather\.forecast refused its input: date must be YYYY-MM-DD/);
  assert.match(checkpoint.decision.reason, /automatic recovery retried it with corrected parameters, which were refused too: PARSED-A-WEEKDAY/);
  assert.equal(checkpoint.resolved_parameters, { city: "FR-PAR", date: "friday the 4th" }, "the human sees what was sent last");
  assert.equal(context.llm.requests.map(kindOf), ["routing_plan", "error_analysis"], "analysed once, no answer synthesised");
  assert.is(context.weather.calls.length, 2);
});

test("a model that finds no correction sends the step to the human with its reason", async (context) => {
  const post = await start(context, ERRORS_ONLY);
  context.llm.reply({ text: planText(step("s1", "forecast", { city: "FR-PAR", date: "soon" })) }, { text: analysisText(false, "NO-DATE-GIVEN ask the user") });
  const { status, body } = await post("/orchestrate/natural", { request: "weather soon" });
  assert.is(status, 202, JSON.stringify(body));
  assert.match(body.checkpoint.decision.reason, /automatic recovery did not retry it: NO-DATE-GIVEN/);
  assert.is(context.weather.calls.length, 1);
});

test("a corrected step on a sensitive capability still waits for approval of its new parameters", async (context) => {
  const post = await start(context, BOOKING_SENSITIVE);
  context.llm.reply({ text: planText(step("b1", "book", { city: "FR-PAR", date: "next friday" })) });
  const first = await post("/orchestrate/natural", { request: "book Paris next friday" });
  assert.is(first.status, 202, JSON.stringify(first.body));
  assert.is(first.body.checkpoint.type, "step");
  assert.is(context.weather.calls.length, 0, "nothing sent before approval");
  await post("/hitl/command", { checkpoint_id: first.body.checkpoint_id, action: "approve" });

  // The approved call is refused; the model corrects it; the correction is not what the human approved.
  context.llm.reply({ text: analysisText(true, "ISO date", { city: "FR-PAR", date: "2026-12-04" }) });
  const resumed = await post(`/hitl/resume/${first.body.checkpoint_id}`);
  assert.is(resumed.status, 202, JSON.stringify(resumed.body));
  const { checkpoint } = resumed.body;
  assert.equal([checkpoint.type, checkpoint.current_step.step_id], ["step", "b1"]);
  assert.match(checkpoint.decision.reason, /corrected by automatic recovery/);
  assert.equal(checkpoint.resolved_parameters, { city: "FR-PAR", date: "2026-12-04" });
  assert.equal(
    context.weather.calls.map((c) => c.input["date"]),
    ["next friday"],
    "the corrected booking was not sent without approval",
  );
  assert.equal(context.llm.requests.map(kindOf), ["routing_plan", "error_analysis"]);

  // Approving the second checkpoint approves what it showed: the corrected booking is sent, once.
  await post("/hitl/command", { checkpoint_id: checkpoint.checkpoint_id, action: "approve" });
  context.llm.reply({ text: "Booked for 2026-12-04." });
  const done = await post(`/hitl/resume/${checkpoint.checkpoint_id}`);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.equal(
    context.weather.calls.map((c) => c.input["date"]),
    ["next friday", "2026-12-04"],
    "the resumed run sent the parameters the human approved, not the plan's original ones",
  );
  assert.equal(context.llm.requests.map(kindOf), ["routing_plan", "error_analysis", "text"], "nothing was analysed again");
});

test.run();
