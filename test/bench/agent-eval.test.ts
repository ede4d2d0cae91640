/**
 * bench/agent-eval's harness, proven on a few of its own scenarios: every scenario file is well formed
 * (schema, known tools, plans that are JSON), the observer in front of the tools counts a body its
 * schema refuses as an invalid dispatch, and a handful of scenarios — one per adaptive feature — fail
 * one-shot and succeed adaptive over the real openai client, real tool components and the scripted
 * model, with no invalid dispatch either way.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runScenario, type Bench } from "../../bench/agent-eval/harness.js";
import { startObservedTools } from "../../bench/agent-eval/observed.js";
import { CATEGORIES, loadScenarios, scenarioProblems, type Scenario } from "../../bench/agent-eval/scenario.js";
import { createScriptedModel, entryText } from "../../bench/agent-eval/scripted-model.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { startScriptedLlm } from "../support/scripted-llm.js";

const scenarios = await loadScenarios();
const model = createScriptedModel();
const llm = await startScriptedLlm(model.script);
const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "test", model: "scripted", maxRetries: 0 }, env: {} })!);
const tools = await startObservedTools();
const bench: Bench = { llm, model, provider, tools };

test.after(async () => {
  await tools.close();
  await llm.close();
});

test("at least 40 scenarios, every category represented at least three times", () => {
  assert.ok(scenarios.length >= 40, `${scenarios.length} scenarios`);
  for (const category of CATEGORIES) {
    const count = scenarios.filter((s) => s.category === category).length;
    assert.ok(count >= 3, `${category}: ${count} scenarios`);
  }
});

test("every scripted plan answer is a JSON object with steps or a clarification (raw text excepted)", () => {
  for (const scenario of scenarios)
    for (const entry of scenario.model.routing_plan ?? []) {
      if (entry.raw !== undefined) continue;
      const plan = JSON.parse(entryText("routing_plan", entry)) as Record<string, unknown>;
      assert.ok(Array.isArray(plan["steps"]) || typeof plan["clarification"] === "object", `${scenario.name}: ${JSON.stringify(entry)}`);
      for (const step of (plan["steps"] ?? []) as Record<string, unknown>[])
        assert.type(step["agent_name"], "string", `${scenario.name}: a step without agent_name`);
    }
});

test("a malformed scenario is refused with what is wrong", () => {
  const good = scenarios[0]!;
  const { name: _name, ...file } = good;
  assert.equal(scenarioProblems(file), []);
  assert.ok(scenarioProblems({ ...file, category: "vibes" }).some((p) => p.startsWith("/category")));
  assert.ok(scenarioProblems({ ...file, tools: ["teleporter"] }).some((p) => p.includes("no bench tool teleporter")));
  assert.ok(scenarioProblems({ ...file, expect: { calls: [{ tool: "teleporter", capability: "go" }] } }).some((p) => p.includes("teleporter.go")));
  assert.ok(scenarioProblems({ ...file, expect: { status: "completed" } }).some((p) => p.includes("needs calls or answer_contains")));
});

test("the observer counts a body the capability's schema refuses as an invalid dispatch (the component refuses it too)", async () => {
  tools.reset();
  const post = (body: unknown) =>
    fetch(`${tools.baseUrls["weather"]}/api/capabilities/current`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const bad = await post({ lat: 48.8566, lon: 2.3522, units: "Celsius" });
  const good = await post({ lat: 48.8566, lon: 2.3522, units: "metric" });
  assert.is(bad.status, 400);
  assert.is(good.status, 200);
  assert.equal(
    tools.dispatches.map((d) => [d.tool, d.capability, d.valid, d.status]),
    [
      ["weather", "current", false, 400],
      ["weather", "current", true, 200],
    ],
  );
});

/** One scenario per adaptive feature: error recovery, micro-resolution, the phase loop, a clarification after a lookup. */
const SUBSET = ["flight-date-natural-language", "carrier-case-from-order", "refund-if-damaged", "ship-home-no-address"];

for (const name of SUBSET)
  test(`${name}: fails one-shot, succeeds adaptive, no invalid dispatch`, async () => {
    const scenario = scenarios.find((s) => s.name === name) as Scenario;
    assert.ok(scenario, `no scenario ${name}`);
    const one = await runScenario(bench, scenario, "one-shot");
    const ada = await runScenario(bench, scenario, "adaptive");
    assert.is(one.success, false, "one-shot should fail");
    assert.ok(one.failures.length > 0);
    assert.is(ada.success, true, ada.failures.join(" | "));
    assert.is(one.invalid + ada.invalid, 0);
  });

test.run();
