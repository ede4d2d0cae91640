/**
 * An agent's `uses` entry can hide a component's capabilities from its natural-mode planner
 * (`planner: false`, or the list it may see): the model is not shown them, and a plan naming one is
 * refused like an unknown capability with nothing dispatched. The real `openai` client against the
 * scripted model server; the limit comes from the agent's spec, as generated code carries it.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SchedulerSpec } from "../../generated/scheduler/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, serveAgent, startTools } from "./support.js";

const planCalling = (capability: string, parameters: Record<string, unknown>) =>
  JSON.stringify({ steps: [{ step_id: "s1", agent_name: "worker", depends_on: [], metadata: { capability, parameters } }] });

/** An agent over the test `worker` tool (sleep, echo, add, fail, flaky, …) and the scheduler, with `limits` in its spec. */
function limitedAgent(limits: Record<string, readonly string[]> | undefined): ComponentSpec {
  const spec = agentSpec("limited-agent", { natural: true });
  return { ...spec, agent: { ...spec.agent!, uses: ["scheduler", "worker"], ...(limits && { plannerCapabilities: limits }) } };
}

async function planned(limits: Record<string, readonly string[]> | undefined, plan: string) {
  const tools = await startTools();
  const llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "sk-test-hidden-1", model: "m", maxRetries: 0 }, env: {} })!);
  const agent = await serveAgent(limitedAgent(limits), {
    components: [...tools.specs, SchedulerSpec],
    baseUrls: { ...tools.baseUrls, scheduler: tools.baseUrls["worker"]! },
    llm: provider,
    maxValidationRounds: 1,
  });
  llm.reply({ text: plan }, { text: plan }, { text: "done" });
  const answer = await agent.post("/orchestrate/natural", { request: "add 1 and 2", ai_synthesis: false });
  const system = String(llm.requests[0]!.body.messages[0].content);
  const dispatched = tools.calls.map((c) => c.capability);
  await agent.running.close();
  await tools.close();
  await llm.close();
  return { answer, system, dispatched };
}

const ADD = planCalling("add", { a: 1, b: 2 });

test("a planner list: only the listed capabilities are in the prompt; a plan naming another is refused, nothing dispatched", async () => {
  const { answer, system, dispatched } = await planned({ worker: ["add"] }, planCalling("echo", { x: 1 }));
  assert.match(system, /\badd\b/);
  assert.not.match(system, /\becho\b|\bflaky\b|\bsleep\b/);
  assert.match(system, /list_schedules/, "a component without a limit keeps its planner-visible capabilities");
  assert.is(answer.status, 422);
  assert.is((answer.body["error"] as { code: string }).code, "PLAN_INVALID");
  assert.equal(dispatched, []);
});

test("planner: false hides the whole component from the prompt and refuses plans that call it", async () => {
  const { answer, system, dispatched } = await planned({ scheduler: [], worker: [] }, ADD);
  assert.not.match(system, /list_schedules|get_schedule|\bworker\b|\becho\b/);
  assert.match(system, /no capabilities are available/);
  assert.is(answer.status, 422);
  assert.equal(dispatched, []);
});

test("a capability the limit allows is planned and called as before", async () => {
  const { answer, dispatched } = await planned({ worker: ["add"] }, ADD);
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(dispatched, ["add"]);
  const unlimited = await planned(undefined, planCalling("echo", { x: 1 }));
  assert.is(unlimited.answer.status, 200, JSON.stringify(unlimited.answer.body));
  assert.match(unlimited.system, /\becho\b/);
});

test.run();
