/**
 * The skills feature in a served agent (serveAgent, as a generated agent is served): its bundled skill is
 * published at start, and the skills context source, which loads with the first plan that gathers context,
 * puts the chosen skill's instructions into that first plan's prompt. The real `openai` client against a
 * scripted server that plans one echo step and writes the answer.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { agentSpec, planStep, startTools, type Tools } from "../orchestration/support.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";

const INSTRUCTIONS = "Remind the traveller to pack a folding umbrella for coastal weather.";
let tools: Tools;
let llm: ScriptedLlm;
let running: RunningComponent;

test.before(async () => {
  tools = await startTools();
  llm = await startScriptedLlm((body) =>
    body.response_format?.json_schema?.name === "routing_plan"
      ? { text: JSON.stringify({ steps: [planStep("s1", "worker", "echo", { note: "ok" })] }) }
      : { text: "Here is your answer." },
  );
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const base = agentSpec("skilled-feature-agent", { natural: true });
  const skill = {
    namespace: "trip-helper",
    name: "packing-advice",
    version: "1.0.0",
    description: "Packing advice for a trip",
    instructions: INSTRUCTIONS,
    resources: [],
  };
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, skills: { namespaces: ["trip-helper"], bundled: [skill] } } as never };
  running = await serveAgent(spec, tools.specs, { ...QUIET_AGENT, llm: provider, orchestration: { baseUrls: tools.baseUrls, executionStore: false } } as never);
});
test.after(async () => {
  await running.close();
  await tools.close();
  await llm.close();
});

test("the first natural request's plan follows the bundled skill its context source chose", async () => {
  const response = await fetch(`${running.url}/orchestrate/natural`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ request: "packing advice for a trip to Lisbon" }),
  });
  assert.is(response.status, 200, await response.clone().text());
  const plan = llm.requests.find((request) => request.body.response_format?.json_schema?.name === "routing_plan");
  const prompt = plan!.body.messages.map((message: { content: string }) => message.content).join("\n");
  assert.match(prompt, /### packing-advice \(trip-helper@1\.0\.0\)/);
  assert.match(prompt, /folding umbrella for coastal weather/);
});

test.run();
