import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText, loadSources } from "../support/manifests.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL } from "./load-helpers.js";

test("a valid tool loads with no diagnostics", () => {
  const project = loadManifestText("manifests/weather-service.yaml", WEATHER_TOOL);
  assert.equal(project.diagnostics, []);
  assert.equal(
    project.manifests.map((m) => [m.kind, m.name, m.file]),
    [["tool", "weather-service", "manifests/weather-service.yaml"]],
  );
});

test("a valid agent loads with no diagnostics", () => {
  const project = loadManifestText("manifests/travel-agent.yaml", TRAVEL_AGENT);
  assert.equal(project.diagnostics, []);
  const [agent] = project.manifests;
  assert.equal(
    agent?.component?.capabilities.map((c) => [c.name, c.key, c.type]),
    [["plan_trip", "planTrip", "orchestrator"]],
  );
  // What the component model does not carry stays readable in the document.
  assert.equal(agent?.document["uses"], ["geocoding-service", "weather-service"]);
});

test("a valid workflow loads with no diagnostics and no component", () => {
  const project = loadManifestText("manifests/travel-research.yaml", TRAVEL_WORKFLOW);
  assert.equal(project.diagnostics, []);
  assert.equal(project.manifests.length, 1);
  assert.is(project.manifests[0]?.component, undefined);
  assert.is(project.manifests[0]?.kind, "workflow");
});

test("the four together resolve every reference: no diagnostics, manifests sorted by kind then name", () => {
  const project = loadSources([
    { file: "m/workflow.yaml", text: TRAVEL_WORKFLOW },
    { file: "m/weather.yaml", text: WEATHER_TOOL },
    { file: "m/agent.yaml", text: TRAVEL_AGENT },
    { file: "m/geo.yml", text: GEOCODING_TOOL },
  ]);
  assert.equal(project.diagnostics, []);
  assert.equal(
    project.manifests.map((m) => `${m.kind}:${m.name}`),
    ["agent:travel-agent", "tool:geocoding-service", "tool:weather-service", "workflow:travel-research"],
  );
  assert.equal([...(project.sources?.keys() ?? [])], ["m/agent.yaml", "m/geo.yml", "m/weather.yaml", "m/workflow.yaml"]);
});

test("YAML anchors and aliases within the limit are plain data", () => {
  const text = `kind: tool
name: t
description: d
capabilities:
  - name: a
    description: d
    input: &shape
      required: [{ name: x, type: string }]
  - name: b
    description: d
    input: *shape
`;
  const project = loadManifestText("t.yaml", text);
  assert.equal(project.diagnostics, []);
  assert.equal(project.manifests[0]?.component?.capabilities[1]?.input, { required: [{ name: "x", type: "string" }], optional: [] });
});

test("a field named __proto__ is a positioned MF1205 (a reserved name), and touches no prototype", () => {
  const text = `kind: tool
name: t
description: d
capabilities:
  - name: a
    description: d
    output:
      required:
        - name: __proto__
          type: object
          fields: { required: [{ name: x, type: string }] }
          example: { x: "1" }
`;
  const project = loadManifestText("t.yaml", text);
  assert.equal(
    project.diagnostics.map((d) => [d.code, d.line, d.column]),
    [["MF1205", 9, 17]],
  );
  assert.is(({} as Record<string, unknown>)["x"], undefined, "Object.prototype untouched");
});

test.run();
