/**
 * The phase loop's span events against a local OTLP receiver, on the request's span with the spec's
 * names and attributes: a continuation request, a declared dependency on an earlier phase, plan
 * normalisation, remediation then the forced terminal, and the clarification short circuit.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { exportToReceiver, naturalRequestEvents, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { agentSpec, planStep, serveAgent, startTools, type Tools } from "./support.js";

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tools: Tools;
  llm: ScriptedLlm;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("phase loop telemetry", {} as Context);

const step = (id: string, cap: string, parameters: Record<string, unknown>, deps: string[] = []) => planStep(id, "worker", cap, parameters, deps);
const answer = (value: unknown) => ({ text: JSON.stringify(value) });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "phase-traced" });
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(agentSpec("phase-traced", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: provider,
    componentName: "phase-traced",
    adaptive: { maxSemanticRetries: 0 },
  });
});
test.after(async ({ receiver, tools, agent, llm }) => {
  await agent.running.close();
  await tools.close();
  await llm.close();
  await shutdownTelemetry();
  await receiver.close();
});

const eventsOf = ({ receiver }: Context, requestId: string) => naturalRequestEvents(receiver, requestId);

test("a continuation: its request event, the declared dependency on phase 1, and a normalised self-call", async (context) => {
  context.llm.reply(
    answer({ steps: [step("s1", "add", { a: 1, b: 2 }), { ...step("me", "ask", {}), agent_name: "phase-traced" }], continue: true }),
    answer({ steps: [step("s2", "echo", { v: "{{s1.response.data.sum}}" }, ["s1"])] }),
    { text: "3." },
  );
  const { status } = await context.agent.post("/orchestrate/natural", { request: "sum then echo" }, { "x-manifold-request-id": "req-phases" });
  assert.is(status, 200);
  const events = await eventsOf(context, "req-phases");
  const named = (name: string) => events.filter((e) => e.name === name).map((e) => e.attributes);
  const [normalized] = named("orchestrator.plan.normalized");
  assert.is(normalized?.["phase_number"], 1);
  assert.match(String(normalized?.["changes"]), /dropped step me: it calls phase-traced/);
  assert.equal(
    named("orchestrator.terminal_synthesis.normalized").map((a) => [a["dropped_agent"], a["dropped_capability"], a["remaining_steps"]]),
    [["phase-traced", "ask", 1]],
  );
  const [continuation] = named("llm.continuation_plan_regeneration.request");
  assert.equal([continuation?.["phase_number"], continuation?.["selection_reused"]], [2, false]);
  assert.ok(Number(continuation?.["prompt_length"]) > 0);
  assert.equal(
    named("orchestration.template.dependency_inclusion").map((a) => [a["reason"], a["step_id"], a["referenced_step"], a["phase_number"]]),
    [["declared_prior_phase", "s2", "s1", 2]],
  );
});

test("remediation then the forced terminal; a clarification short circuit", async (context) => {
  context.llm.reply(
    answer({ steps: [step("s1", "fail", {}), step("s2", "echo", { v: "{{s1.response.data.x}}" }, ["s1"])] }),
    answer({ steps: [step("s3", "fail", {})] }),
    { text: "no." },
  );
  await context.agent.post("/orchestrate/natural", { request: "try" }, { "x-manifold-request-id": "req-forced" });
  const events = await eventsOf(context, "req-forced");
  const named = (name: string) => events.filter((e) => e.name === name).map((e) => e.attributes);
  assert.equal(
    named("orchestrator.remediation.triggered").map((a) => [a["phase_number"], a["skipped_count"], a["skipped_step_ids"], a["has_failure_pattern"]]),
    [[1, 1, '["s2"]', true]],
  );
  assert.equal(
    named("orchestrator.forced_terminal").map((a) => [a["reason"], a["phase_number"], a["failed_dependencies"]]),
    [["repeated_failed_dependencies", 2, '["worker.fail"]']],
  );

  context.llm.reply(answer({ steps: [], clarification: { question: "Which one?", missing_fields: ["which"] } }));
  await context.agent.post("/orchestrate/natural", { request: "do it" }, { "x-manifold-request-id": "req-asks" });
  const asked = (await eventsOf(context, "req-asks")).filter((e) => e.name === "orchestrator.clarification_short_circuit").map((e) => e.attributes);
  assert.equal(
    asked.map((a) => [a["phase_number"], a["question"], a["missing_field_count"], a["prior_completed_steps"]]),
    [[1, "Which one?", 1, 0]],
  );
});

test.run();
