/** MF1315: parts of the format gen does not emit yet are named, at their key, as warnings. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadSources, notGenerated } from "../support/manifests.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL } from "./load-helpers.js";

test("MF1315: every agent key is served by its feature (workflows, custom, natural, tasks, scheduled, chat, hitl): nothing warns", () => {
  const project = loadSources([
    { file: "m/agent.yaml", text: TRAVEL_AGENT },
    { file: "m/geo.yaml", text: GEOCODING_TOOL },
    { file: "m/weather.yaml", text: WEATHER_TOOL },
    { file: "m/wf.yaml", text: TRAVEL_WORKFLOW },
  ]);
  assert.equal(
    project.diagnostics.filter((d) => d.severity === "error"),
    [],
  );
  const warnings = notGenerated(project);
  assert.ok(warnings.every((w) => w.code === "MF1315" && w.severity === "warning"));
  const agentLines = TRAVEL_AGENT.split("\n");
  const natural = agentLines.findIndex((l) => /^\s+natural:/.test(l));
  assert.ok(natural > 0, "fixture agent has orchestration.natural");
  assert.ok(
    agentLines.some((l) => l.startsWith("hitl:")),
    "fixture agent has hitl",
  );
  assert.equal(
    warnings.filter((w) => w.file === "m/agent.yaml"),
    [],
    "hitl is served since the hitl feature",
  );
  assert.equal(
    warnings.filter((w) => w.message.includes("natural")),
    [],
    "orchestration.natural is served since natural mode",
  );
  assert.ok(
    agentLines.some((l) => l.startsWith("scheduled:")),
    "fixture agent has scheduled",
  );
  assert.equal(
    warnings.filter((w) => w.message.includes("`scheduled`")),
    [],
    "scheduled is served",
  );
  assert.ok(
    agentLines.some((l) => l.startsWith("chat:")),
    "fixture agent has chat",
  );
  assert.equal(
    warnings.filter((w) => w.message.includes("`chat`")),
    [],
    "chat is served",
  );
  assert.equal(
    warnings.filter((w) => w.file === "m/wf.yaml"),
    [],
    "workflows are compiled",
  );
  assert.equal(notGenerated(loadSources([{ file: "m/weather.yaml", text: WEATHER_TOOL }])), [], "tools: nothing to warn about");
});

test("MF1315: a feature's pending key warns where it stands, nested keys included", () => {
  const project = loadSources([
    { file: "m/agent.yaml", text: TRAVEL_AGENT },
    { file: "m/geo.yaml", text: GEOCODING_TOOL },
    { file: "m/weather.yaml", text: WEATHER_TOOL },
    { file: "m/wf.yaml", text: TRAVEL_WORKFLOW },
  ]);
  const features = [
    { pending: [{ path: ["hitl"], serves: "human-approval checkpoints" }] },
    { pending: [{ path: ["hitl", "expiry"], serves: "expiry" }] },
    { pending: [{ path: ["absent"], serves: "nothing" }] },
    {},
  ];
  const warnings = notGenerated(project, features);
  assert.ok(warnings.every((w) => w.code === "MF1315" && w.severity === "warning" && w.file === "m/agent.yaml"));
  const agentLines = TRAVEL_AGENT.split("\n");
  const hitl = agentLines.findIndex((l) => l.startsWith("hitl:")) + 1;
  const expiry = agentLines.findIndex((l) => l.startsWith("  expiry:")) + 1;
  assert.ok(hitl > 0 && expiry > hitl, "fixture agent has hitl.expiry");
  assert.equal(
    warnings.map((w) => [w.line, w.column, /`([\w.]+)`/.exec(w.message)?.[1]]),
    [
      [hitl, 1, "hitl"],
      [expiry, 3, "hitl.expiry"],
    ],
  );
});

test.run();
