/**
 * Skills through the shipped feature: an agent served by `serveAgent` from a real manifest whose
 * `skills:` names the example network's packing-advice folder (copied beside it) publishes it at
 * start and registers the skills context source, so a natural request and a chat turn, planned by
 * the real `openai` client against the scripted server, follow its instructions (and see its
 * checklist, read on demand); the execution record names the skill version.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createMemoryExecutionStore, type ExecutionStore } from "../../runtime/orchestration/index.js";
import { createMemorySkillStore } from "../../runtime/skills/store/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { loadComponentFile } from "../support/manifests.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { postSse } from "../support/sse-client.js";
import { agentSpec, planStep, planText, startTools, type Tools } from "../orchestration/support.js";
import { kindOf, skillsOf, systemOf } from "./run-support.js";

interface Context {
  dir: string;
  tools: Tools;
  llm: ScriptedLlm;
  executions: ExecutionStore;
  running: RunningComponent;
}
const test = suite<Context>("skills in a served agent", {} as Context);

/** A line of the example's packing-advice instructions: in the prompt only when the skill is active. */
const RULE = "Never advise what to pack from the destination's name or season alone: check its weather first.";

test.before.each(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), "manifold-skills-run-"));
  cpSync(join(import.meta.dirname, "../../manifests/travel/skills/packing-advice"), join(context.dir, "skills/packing-advice"), { recursive: true });
  writeFileSync(
    join(context.dir, "agent.yaml"),
    "kind: agent\nname: trip-helper\ndescription: Helps travellers\ncapabilities: []\nskills:\n  - ./skills/packing-advice\n",
  );
  const loaded = await loadComponentFile(join(context.dir, "agent.yaml"));
  const base = agentSpec("trip-helper", { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, chat: true as const, skills: loaded.agent!.skills! } };
  context.tools = await startTools();
  context.llm = await startScriptedLlm((body) => {
    if (kindOf(body) !== "routing_plan") return { text: "Pack layers and an umbrella." };
    const withSkill = systemOf(body).includes(RULE);
    return { text: planText([withSkill ? planStep("w", "worker", "echo", { checked: "weather" }) : planStep("sum", "worker", "add", { a: 1, b: 2 })]) };
  });
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.executions = createMemoryExecutionStore();
  context.running = await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    llm: provider,
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: context.executions, adaptive: { maxSemanticRetries: 0, maxPhases: 1 } },
    skills: { store: createMemorySkillStore() },
  } as never);
});
test.after.each(async ({ dir, tools, llm, running }) => {
  await running.close();
  await tools.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

const plansOf = (llm: ScriptedLlm) => llm.requests.filter((r) => kindOf(r.body) === "routing_plan").map((r) => systemOf(r.body));

test("a natural request follows the bundled skill, reads its checklist, and the record names the version", async ({ running, llm, tools, executions }) => {
  const response = await fetch(`${running.url}/orchestrate/natural`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ request: "What should I pack for Lisbon next week?" }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  assert.is(response.status, 200, JSON.stringify(body));
  const [plan] = plansOf(llm);
  assert.match(plan!, "### packing-advice (trip-helper@1.0.0)");
  assert.match(plan!, RULE);
  assert.match(plan!, "#### Resource references/packing-checklist.md\n\n# Packing checklist");
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["echo"],
  );
  assert.equal(
    skillsOf(await executions.get(String(body["plan_id"]))).map((s) => [s.namespace, s.name, s.version, s.resources]),
    [["trip-helper", "packing-advice", "1.0.0", ["references/packing-checklist.md"]]],
  );
});

test("a chat turn is planned with the skill too; an unrelated one without it", async ({ running, llm, tools }) => {
  const packing = await postSse(`${running.url}/chat/stream`, { message: "What should I pack for Oslo?" });
  assert.is(packing.status, 200);
  const unrelated = await postSse(`${running.url}/chat/stream`, { message: "add 1 and 2" });
  assert.is(unrelated.status, 200);
  const [first, second] = plansOf(llm);
  assert.match(first!, RULE);
  assert.not.match(second!, "## Skills");
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["echo", "add"],
  );
});

test.run();
