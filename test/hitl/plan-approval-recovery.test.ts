/**
 * Plan approval and natural mode's loop: a human approves a plan with its parameters, so nothing the
 * model changes afterwards goes out unseen. A recovery retry's corrected parameters wait for approval
 * again (sensitive or not), and approving them sends exactly them; a further phase's plan waits for
 * approval too, and its resume keeps the earlier phase's completed steps instead of running them again.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore, type HitlSpec } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { analysisText, kindOf, planText, startWeather, step, type Weather } from "../orchestration/recovery-support.js";
import { agentSpec } from "../orchestration/support.js";

const PLAN_APPROVAL: HitlSpec = { planApproval: true, sensitiveCapabilities: [], expiryMs: 60_000, defaultAction: "reject" };

interface Context {
  weather: Weather;
  llm: ScriptedLlm;
  agent: RunningComponent;
  post(path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

const test = suite<Context>("plan approval with the adaptive loop", {} as Context);

test.before.each(async (context) => {
  context.weather = await startWeather();
  context.llm = await startScriptedLlm();
  const base = agentSpec(`approving-${Math.random().toString(16).slice(2, 8)}`, { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: PLAN_APPROVAL } };
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(spec, [context.weather.spec], {
    ...QUIET_AGENT,
    llm: provider,
    orchestration: { baseUrls: { weather: context.weather.url }, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  context.post = async (path, body = {}) => {
    const response = await fetch(context.agent.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
});

test.after.each(async ({ weather, llm, agent }) => {
  await agent.close();
  await weather.close();
  await llm.close();
});

test("a recovery's corrected parameters in an approved plan wait for approval again; approving them sends exactly them", async ({ post, llm, weather }) => {
  llm.reply({ text: planText(step("b1", "book", { city: "FR-PAR", date: "next friday" })) });
  const planned = await post("/orchestrate/natural", { request: "book Paris next friday" });
  assert.is(planned.status, 202, JSON.stringify(planned.body));
  assert.is(planned.body.checkpoint.type, "plan");
  await post("/hitl/command", { checkpoint_id: planned.body.checkpoint_id, action: "approve" });

  llm.reply({ text: analysisText(true, "ISO date", { city: "FR-PAR", date: "2026-12-04" }) });
  const corrected = await post(`/hitl/resume/${planned.body.checkpoint_id}`);
  assert.is(corrected.status, 202, JSON.stringify(corrected.body));
  assert.match(corrected.body.checkpoint.decision.reason, /corrected by automatic recovery/);
  assert.equal(corrected.body.checkpoint.resolved_parameters, { city: "FR-PAR", date: "2026-12-04" });
  assert.equal(
    weather.calls.map((c) => c.input["date"]),
    ["next friday"],
    "the correction was not sent before a human saw it",
  );

  await post("/hitl/command", { checkpoint_id: corrected.body.checkpoint_id, action: "approve" });
  llm.reply({ text: "Booked." });
  const done = await post(`/hitl/resume/${corrected.body.checkpoint_id}`);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.equal(
    weather.calls.map((c) => c.input["date"]),
    ["next friday", "2026-12-04"],
  );
  assert.equal(llm.requests.map(kindOf), ["routing_plan", "error_analysis", "text"]);
});

test("a further phase's plan waits for approval; its resume keeps phase 1's completed steps", async ({ post, llm, weather }) => {
  llm.reply({ text: JSON.stringify({ steps: [step("f1", "forecast", { city: "FR-PAR", date: "2026-12-04" })], continue: true }) });
  const first = await post("/orchestrate/natural", { request: "forecast, then book if dry" });
  assert.is(first.body.checkpoint.type, "plan");
  await post("/hitl/command", { checkpoint_id: first.body.checkpoint_id, action: "approve" });

  llm.reply({ text: planText(step("b1", "book", { city: "FR-PAR", date: "2026-12-04" }, ["f1"])) });
  const second = await post(`/hitl/resume/${first.body.checkpoint_id}`);
  assert.is(second.status, 202, JSON.stringify(second.body));
  assert.is(second.body.checkpoint.type, "plan", "phase 2's plan waits for approval");
  assert.equal(
    second.body.checkpoint.completed_steps.map((s: { step_id: string }) => s.step_id),
    ["f1"],
  );

  await post("/hitl/command", { checkpoint_id: second.body.checkpoint_id, action: "approve" });
  llm.reply({ text: "Booked for a dry day." });
  const done = await post(`/hitl/resume/${second.body.checkpoint_id}`);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.is(done.body.phases, 2);
  assert.equal(
    weather.calls.map((c) => c.capability),
    ["forecast", "book"],
    "phase 1's forecast ran once, not again after phase 2's approval",
  );
});

test.run();
