/** MF1315: parts of the format gen does not emit yet are named, at their key, as warnings. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { notGenerated } from "../../generator/emit/not-generated.js";
import { loadSources } from "../../generator/load/index.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL } from "./load-helpers.js";

test("MF1315: an agent's orchestration/tasks/scheduled/chat/hitl keys and workflow manifests warn where they stand", () => {
  const project = loadSources([
    { file: "m/agent.yaml", text: TRAVEL_AGENT },
    { file: "m/geo.yaml", text: GEOCODING_TOOL },
    { file: "m/weather.yaml", text: WEATHER_TOOL },
    { file: "m/wf.yaml", text: TRAVEL_WORKFLOW },
  ]);
  assert.equal(project.diagnostics.filter((d) => d.severity === "error"), []);
  const warnings = notGenerated(project);
  assert.ok(warnings.every((w) => w.code === "MF1315" && w.severity === "warning"));
  const agentLines = TRAVEL_AGENT.split("\n");
  const expected = ["orchestration", "tasks", "scheduled", "chat", "hitl"]
    .map((key) => ({ key, line: agentLines.findIndex((l) => l.startsWith(`${key}:`)) + 1 }))
    .filter(({ line }) => line > 0);
  assert.ok(expected.length >= 3, "fixture agent uses several such keys");
  assert.equal(
    warnings.filter((w) => w.file === "m/agent.yaml").map((w) => [w.line, w.column, /`(\w+)`/.exec(w.message)?.[1]]),
    expected.map(({ key, line }) => [line, 1, key]),
  );
  const workflow = warnings.filter((w) => w.file === "m/wf.yaml");
  assert.is(workflow.length, 1);
  assert.match(workflow[0]!.message, /does not compile workflows yet/);
  assert.equal(notGenerated(loadSources([{ file: "m/weather.yaml", text: WEATHER_TOOL }])), [], "tools: nothing to warn about");
});

test.run();
