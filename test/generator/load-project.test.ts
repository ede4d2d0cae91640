import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadSources } from "../support/manifests.js";
import { GEOCODING_TOOL, TRAVEL_AGENT, TRAVEL_WORKFLOW, WEATHER_TOOL, single, where } from "./load-helpers.js";

const named = (name: string) => `kind: tool\nname: ${name}\ndescription: d\ncapabilities: [{ name: a, description: b }]\n`;
const agent = (body: string) => `kind: agent\nname: agent\ndescription: d\n${body}`;
/** The components TRAVEL_WORKFLOW calls, so its data flow checks clean and only the subject shows. */
const TOOLS = [
  { file: "tools/geo.yaml", text: GEOCODING_TOOL },
  { file: "tools/weather.yaml", text: WEATHER_TOOL },
];

test("MF1301: a duplicate component name is reported on the later file, naming the first", () => {
  const project = loadSources([
    { file: "m/b.yaml", text: named("weather") },
    { file: "m/a.yaml", text: `# first\n${named("weather")}` },
  ]);
  const d = single(project);
  assert.equal([d.file, d.code, d.line, d.column], ["m/b.yaml", "MF1301", 2, 7]);
  assert.is(d.message, "component name `weather` is already used by m/a.yaml:3");
  // Workflows have their own namespace.
  const workflow = TRAVEL_WORKFLOW.replace("name: travel-research", "name: weather");
  assert.equal(where(loadSources([...TOOLS, { file: "a.yaml", text: named("weather") }, { file: "w.yaml", text: workflow }])), []);
  assert.equal(where(loadSources([...TOOLS, { file: "w1.yaml", text: TRAVEL_WORKFLOW }, { file: "w2.yaml", text: TRAVEL_WORKFLOW }])), [["MF1301", 2, 7]]);
});

test("MF1302: component names that derive the same PascalCase clash", () => {
  const d = single(
    loadSources([
      { file: "m/a.yaml", text: named("a-b") },
      { file: "m/b.yaml", text: named("a--b") },
    ]),
  );
  assert.equal([d.file, d.code, d.line, d.column], ["m/b.yaml", "MF1302", 2, 7]);
  assert.is(d.message, "component names `a-b` (m/a.yaml:2) and `a--b` both become `AB` in TypeScript; rename one");
});

test("MF1310: `uses` must name a component manifest", () => {
  const project = loadSources([
    { file: "w.yaml", text: named("weather-service") },
    { file: "agent.yaml", text: agent("uses: [geocoding, weather-servic, weather-service]\n") },
  ]);
  assert.equal(
    project.diagnostics.map((d) => [d.file, d.code, d.line, d.column]),
    [
      ["agent.yaml", "MF1310", 4, 8],
      ["agent.yaml", "MF1310", 4, 19],
    ],
  );
  assert.is(project.diagnostics[0]!.message, "`uses` names `geocoding`, but no tool or agent manifest has that name");
  assert.is(project.diagnostics[1]!.message, "`uses` names `weather-servic`, but no tool or agent manifest has that name (did you mean `weather-service`?)");
  const workflow = single(
    loadSources([...TOOLS, { file: "w.yaml", text: TRAVEL_WORKFLOW }, { file: "agent.yaml", text: agent("uses:\n  - travel-research\n") }]),
  );
  assert.equal([workflow.code, workflow.line, workflow.column], ["MF1310", 5, 5]);
  assert.match(workflow.message, /which is a workflow; list it under `orchestration.workflows`$/);
});

test("a reference to a manifest that has its own errors is not reported again", () => {
  const broken = "kind: tool\nname: weather-service\ndescription: d\ncapabilities: []\n";
  assert.equal(
    where(
      loadSources([
        { file: "w.yaml", text: broken },
        { file: "agent.yaml", text: agent("uses: [weather-service]\n") },
      ]),
    ),
    [["MF1207", 4, 15]],
  );
});

test("MF1311: a sensitive capability nobody offers is an error (a typo must not let it run unapproved)", () => {
  const text = agent(
    "uses: [geocoding-service]\ncapabilities: [{ name: plan, description: p }]\nhitl:\n  sensitive_capabilities: [plan, geocode_location, convert_currency]\n  default_action: reject\n",
  );
  const d = single(
    loadSources([
      { file: "g.yaml", text: GEOCODING_TOOL },
      { file: "agent.yaml", text },
    ]),
  );
  assert.equal([d.code, d.line, d.column, d.severity], ["MF1311", 7, 52, "error"]);
  assert.is(d.message, "sensitive capability `convert_currency` is offered neither by `agent` nor by a component it uses");
});

test("MF1312: orchestration workflows and task workflows must have a manifest", () => {
  const text = agent(
    "uses: [geocoding-service, weather-service]\norchestration:\n  workflows: [travel-research, travel-reserch]\ntasks:\n  - { type: t, workflow: missing }\n",
  );
  const project = loadSources([...TOOLS, { file: "w.yaml", text: TRAVEL_WORKFLOW }, { file: "agent.yaml", text }]);
  assert.equal(where(project), [
    ["MF1312", 6, 32],
    ["MF1312", 8, 26],
  ]);
  assert.match(project.diagnostics[0]!.message, /^orchestration workflow `travel-reserch` has no workflow manifest \(did you mean `travel-research`\?\)$/);
  assert.is(project.diagnostics[1]!.message, "task `t` runs workflow `missing`, which has no workflow manifest");
});

test("diagnostics are sorted by file, line and column across files", () => {
  const project = loadSources([
    { file: "z.yaml", text: "kind: nope\n" },
    { file: "a.yaml", text: "kind: tool\nname: X\ndescription: d\ncapabilities: []\n" },
    { file: "m.yaml", text: TRAVEL_AGENT },
    { file: "n.yaml", text: WEATHER_TOOL },
  ]);
  assert.equal(
    project.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`),
    ["a.yaml:2:7 MF1205", "a.yaml:4:15 MF1207", "m.yaml:5:8 MF1310", "m.yaml:16:15 MF1312", "m.yaml:18:33 MF1312", "z.yaml:1:7 MF1015"],
  );
});

test.run();
