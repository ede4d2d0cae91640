/**
 * What natural mode's debug records say of a request, over HTTP with the real `openai` client against
 * the scripted server and real tools: the LLM debug record marks a request that ended 422
 * (PLAN_INVALID), 502 (LLM_ERROR) or with a question (`needs_input`), so the errors list finds the
 * failed ones; the execution record holds the request's ids, phases and what each step was sent.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, createMemoryLlmDebugStore, resolveLlmConfig, type LlmDebugStore } from "../../runtime/llm/index.js";
import { createMemoryExecutionStore, type ExecutionStore } from "../../runtime/orchestration/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { eventually } from "../support/wait.js";
import { agentSpec, serveAgent, startTools, type Tools } from "./support.js";

const plan = (steps: unknown[]): string => JSON.stringify({ steps });
const ADD = { step_id: "sum", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: 20, b: 22 } } };
const NOWHERE = { step_id: "ghost", agent_name: "nowhere", depends_on: [], metadata: { capability: "haunt", parameters: {} } };

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  debug: LlmDebugStore;
  executions: ExecutionStore;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}

const test = suite<Context>("natural mode's debug records");

test.before.each(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "sk-records", model: "test-model", maxRetries: 0 }, env: {} })!,
  );
  context.debug = createMemoryLlmDebugStore();
  context.executions = createMemoryExecutionStore();
  context.agent = await serveAgent(agentSpec("records-agent", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: provider,
    llmDebug: context.debug,
    executionStore: context.executions,
    componentName: "records-agent",
    maxValidationRounds: 1,
  });
});

test.after.each(async ({ tools, llm, agent, debug }) => {
  await agent.running.close();
  await tools.close();
  await llm.close();
  await debug.close();
});

const finalOf = async (debug: LlmDebugStore, requestId: string) =>
  eventually(`the final outcome of ${requestId}`, async () => (await debug.get(requestId))?.final);

test("a plan that never checks ends 422 PLAN_INVALID: its LLM debug record is an error the errors list finds", async ({ agent, llm, debug }) => {
  llm.reply({ text: plan([NOWHERE]) }, { text: plan([NOWHERE]) });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "haunt something" }, { "x-manifold-request-id": "req-invalid" });
  assert.is(status, 422, JSON.stringify(body));
  const { at: _at, ...final } = await finalOf(debug, "req-invalid");
  assert.equal(final, { outcome: "failed", http_status: 422, code: "PLAN_INVALID" });
  const record = (await debug.get("req-invalid"))!;
  assert.is(record.status, "error", "every call succeeded, the answer did not");
  assert.ok(record.interactions.every((i) => i.success));
  assert.equal(
    (await debug.list({ status: "error" })).map((r) => r.request_id),
    ["req-invalid"],
  );
});

test("a model that fails ends 502 LLM_ERROR, marked so", async ({ agent, llm, debug }) => {
  llm.reply({ status: 500, body: { error: { message: "upstream down" } } });
  const { status } = await agent.post("/orchestrate/natural", { request: "add 20 and 22" }, { "x-manifold-request-id": "req-broken" });
  assert.is(status, 502);
  const final = await finalOf(debug, "req-broken");
  assert.equal([final.outcome, final.http_status, final.code], ["failed", 502, "LLM_ERROR"]);
});

test("a question for the user is marked needs_input, and the errors list finds it (no answer was given)", async ({ agent, llm, debug }) => {
  llm.reply({ text: JSON.stringify({ clarification: { question: "Which numbers?", missing_fields: ["a", "b"] } }) });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add two numbers" }, { "x-manifold-request-id": "req-asks" });
  assert.is(status, 200);
  assert.is(body["status"], "needs_input");
  const final = await finalOf(debug, "req-asks");
  assert.equal([final.outcome, final.http_status], ["needs_input", 200]);
  assert.is((await debug.get("req-asks"))!.status, "error");
  assert.equal(
    (await debug.list({ status: "error" })).map((r) => r.request_id),
    ["req-asks"],
  );
});

test("a completed request's execution record: its request ids, its phase history, each step's phase and parameters, the synthesis", async ({
  agent,
  llm,
  debug,
  executions,
}) => {
  llm.reply({ text: plan([ADD]) }, { text: "It is 42." });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "what is 20 + 22?" }, { "x-manifold-request-id": "req-done" });
  assert.is(status, 200, JSON.stringify(body));
  const record = (await executions.get(String(body["plan_id"])))!;
  assert.equal([record.request_id, record.original_request_id, record.mode, record.status], ["req-done", "req-done", "natural", "success"]);
  assert.equal(record.steps[0]!.parameters, { a: 20, b: 22 });
  assert.is(record.steps[0]!.rounds, undefined, "one round: nothing to list");
  assert.is(record.synthesis, "It is 42.");
  assert.equal(
    record.phases?.map((p) => [p.phase, p.step_ids, p.reason]),
    [[1, ["sum"], "request"]],
    "the phase history",
  );
  assert.is(record.plan?.steps[0]?.phase, 1, "each step's phase, in the plan it ran");
  assert.equal(
    record.lifecycle?.map((l) => l.event),
    ["started", "completed"],
  );
  assert.is((await debug.get("req-done"))!.final, undefined, "an answer needs no mark");
});

test.run();
