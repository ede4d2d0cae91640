/**
 * The bad-workflow corpus (test/generator/fixtures/workflows): each case is a folder of manifests
 * loaded with the shared tools and agent of `_shared/` (a case's own file of the same name replaces
 * the shared one). Every data-flow diagnostic is asserted with its code, severity, file, line, column
 * and a phrase of its message; the valid cases assert the checked spec.
 */
import { readFileSync, readdirSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText, loadSources } from "../support/manifests.js";
import type { Project } from "../../runtime/manifest/project.js";
import type { AgentSpec, WorkflowSpec } from "../../runtime/spec/types.js";

const ROOT = new URL("fixtures/workflows/", import.meta.url);

function loadCase(name: string): Project {
  const own = readdirSync(new URL(`${name}/`, ROOT));
  const shared = readdirSync(new URL("_shared/", ROOT)).filter((f) => !own.includes(f));
  const read = (dir: string, file: string) => ({ file: `${dir}/${file}`, text: readFileSync(new URL(`${dir}/${file}`, ROOT), "utf8") });
  return loadSources([...shared.map((f) => read("_shared", f)), ...own.map((f) => read(name, f))]);
}

function agentOf(project: Project): AgentSpec {
  const agent = project.manifests.find((m) => m.name === "travel-agent")?.component?.agent;
  if (agent === undefined) throw new Error("travel-agent has no agent spec");
  return agent;
}

function flowOf(project: Project): WorkflowSpec {
  const flow = agentOf(project).orchestration.workflows.find((w) => w.name === "flow");
  if (flow === undefined) throw new Error(`no spec for flow; diagnostics: ${JSON.stringify(project.diagnostics, null, 2)}`);
  return flow;
}

/** [file in the case folder, code, severity, line, column, phrase of the message]. */
type Expected = readonly [string, string, "error" | "warning", number, number, string];

const CASES: Readonly<Record<string, readonly Expected[]>> = {
  "unknown-input": [["workflow.yaml", "MF1401", "error", 10, 26, "`${inputs.destnation}` names no workflow input (did you mean `destination`?)"]],
  "unknown-step": [["workflow.yaml", "MF1402", "error", 15, 21, "`${steps.geocod.output.lat}` names no step (did you mean `geocode`?)"]],
  "unknown-component": [
    ["workflow.yaml", "MF1403", "error", 8, 11, "calls `geocoding-servce`, but no tool or agent has that name (did you mean `geocoding-service`?)"],
  ],
  "unknown-capability": [["workflow.yaml", "MF1404", "error", 9, 13, "has no capability `geocode_locaton` (did you mean `geocode_location`?)"]],
  "malformed-without-output": [["workflow.yaml", "MF1405", "error", 15, 21, "must go through `.output`: `${steps.geocode.output.lat}`"]],
  "malformed-not-a-reference": [["workflow.yaml", "MF1405", "error", 18, 14, "`${foo}` is not a reference"]],
  "malformed-unterminated": [["workflow.yaml", "MF1405", "error", 18, 15, "`${` is not closed"]],
  "unknown-field": [["workflow.yaml", "MF1406", "error", 15, 21, "the output of `geocode_location` has no field `latitude`"]],
  "unknown-nested-field": [["workflow.yaml", "MF1406", "error", 18, 11, "`bbox` has no field `nort` (did you mean `north`?); fields: north, south"]],
  "field-of-a-scalar": [["workflow.yaml", "MF1406", "error", 18, 9, "`lat` is number; it has no field `degrees`"]],
  "required-input-unbound": [["workflow.yaml", "MF1407", "error", 15, 13, "does not bind the required input `lon` of `get_current_weather`"]],
  "undeclared-input-key": [["workflow.yaml", "MF1408", "error", 15, 87, "`get_current_weather` has no input `colour`; its inputs: lat, lon, units"]],
  "type-mismatch-reference": [
    ["workflow.yaml", "MF1409", "error", 15, 20, "`steps[1].inputs.lat` expects number, gets string from `${steps.geocode.output.name}`"],
  ],
  "type-mismatch-number-to-integer": [
    ["workflow.yaml", "MF1409", "error", 11, 57, "`steps[0].inputs.limit` expects integer, gets number from `${inputs.results}`"],
  ],
  "type-mismatch-interpolated": [
    ["workflow.yaml", "MF1409", "error", 15, 56, "`steps[1].inputs.lon` expects number, gets a string (text with `${…}` interpolated)"],
  ],
  "type-mismatch-whole-to-string": [
    ["workflow.yaml", "MF1409", "error", 20, 21, "`steps[2].inputs.text` expects string, gets number from `${steps.weather.output.temperature}`"],
  ],
  "type-mismatch-literal": [["workflow.yaml", "MF1409", "error", 15, 94, 'the string "kelvin" is not one of "metric", "imperial"']],
  cycle: [["workflow.yaml", "MF1410", "error", 15, 18, "steps depend on each other in a cycle: geocode → weather → geocode"]],
  "self-reference": [
    ["workflow.yaml", "MF1412", "warning", 5, 3, "input `destination` is declared but no step or output references"],
    ["workflow.yaml", "MF1410", "error", 10, 26, "a cycle: geocode → geocode"],
  ],
  "implicit-dependency": [
    [
      "workflow.yaml",
      "MF1411",
      "warning",
      14,
      21,
      "step `weather` uses `${steps.geocode.output.lat}` but does not list `geocode` in `depends_on`; the dependency is added",
    ],
  ],
  "unused-input": [["workflow.yaml", "MF1412", "warning", 6, 3, "input `budget` is declared but no step or output references `${inputs.budget}`"]],
  "unused-step": [["workflow.yaml", "MF1413", "warning", 11, 11, "the output of step `weather` is used by no step and no output"]],
  "unknown-dependency": [
    ["workflow.yaml", "MF1414", "error", 14, 18, "step `weather` depends on `geocde`, which is not a step of this workflow (did you mean `geocode`?)"],
    ["workflow.yaml", "MF1411", "warning", 15, 21, "does not list `geocode` in `depends_on`"],
  ],
  "not-in-uses": [
    ["travel-agent.yaml", "MF1415", "error", 6, 15, "workflow `flow` step `weather` calls `weather-service`, which `travel-agent` does not list in `uses`"],
    ["travel-agent.yaml", "MF1415", "error", 8, 33, "workflow `flow` step `weather` calls `weather-service`"],
  ],
  "tool-names-an-agent": [["workflow.yaml", "MF1416", "error", 17, 11, "`tool: summary-agent` names an agent; write `agent: summary-agent`"]],
  "agent-names-a-tool": [["workflow.yaml", "MF1416", "error", 12, 12, "`agent: weather-service` names a tool; write `tool: weather-service`"]],
  "reserved-name": [
    ["travel-agent.yaml", "MF1417", "error", 7, 15, "workflow `custom` cannot be served: `/orchestrate/custom` is the custom orchestration route"],
  ],
  "duration-too-long": [
    ["workflow.yaml", "MF1418", "error", 15, 14, "timeout `99999999999999999999d` of step `weather` is not a duration that fits in milliseconds"],
  ],
  "outputs-unknown": [["workflow.yaml", "MF1402", "error", 18, 10, "`${steps.rates.output.rate}` names no step"]],
  "duplicate-step": [["workflow.yaml", "MF1314", "error", 11, 11, "step `geocode` is declared twice (first on line 7)"]],
  // The tool's own errors only: the workflow calling it and the agent using it report nothing more.
  "broken-component": [
    ["weather-service.yaml", "MF1202", "error", 5, 5, "missing required key `description`"],
    ["weather-service.yaml", "MF1201", "error", 6, 5, "unknown key `descripton`"],
  ],
};

for (const [name, expected] of Object.entries(CASES)) {
  test(`corpus: ${name}`, () => {
    const project = loadCase(name);
    const got = project.diagnostics.map((d) => [d.file, d.code, d.severity, d.line, d.column, d.message]);
    assert.is(got.length, expected.length, JSON.stringify(got, null, 2));
    expected.forEach(([file, code, severity, line, column, phrase], i) => {
      const [gotFile, ...rest] = got[i]!;
      assert.equal([gotFile, ...rest.slice(0, 4)], [`${name}/${file}`, code, severity, line, column], JSON.stringify(got[i]));
      assert.ok(String(rest[4]).includes(phrase), `${String(rest[4])}\n  does not include\n${phrase}`);
    });
    // Errors withhold the spec; warnings do not.
    const errors = expected.some((e) => e[2] === "error");
    if (!errors) assert.ok(flowOf(project));
  });
}

test("every case folder of the corpus is asserted", () => {
  const folders = readdirSync(ROOT)
    .filter((f) => f !== "_shared" && !f.startsWith("valid-"))
    .sort();
  assert.equal(folders, Object.keys(CASES).sort());
});

test("valid: parallel branches join; dependencies, defaults and durations in the spec", () => {
  const project = loadCase("valid-parallel");
  assert.equal(project.diagnostics, []);
  const flow = flowOf(project);
  assert.equal(
    flow.steps.map((s) => [s.name, s.component, s.componentKind, s.capability, s.dependsOn]),
    [
      ["geocode", "geocoding-service", "tool", "geocode_location", []],
      ["weather", "weather-service", "tool", "get_current_weather", ["geocode"]],
      ["money", "currency-service", "tool", "convert", ["geocode"]],
      ["summary", "summary-agent", "agent", "summarise", ["money", "weather"]],
    ],
  );
  assert.equal(flow.steps[1], {
    name: "weather",
    component: "weather-service",
    componentKind: "tool",
    capability: "get_current_weather",
    inputs: { lat: "${steps.geocode.output.lat}", lon: "${steps.geocode.output.lon}", units: "metric" },
    dependsOn: ["geocode"],
    timeoutMs: 2000,
    retry: 1,
    onError: "fail",
  });
  assert.equal([flow.steps[0]!.retry, flow.steps[0]!.onError, "timeoutMs" in flow.steps[0]!], [0, "fail", false]);
  assert.equal(flow.steps[2]!.onError, "continue");
  assert.equal(flow.inputs, [
    { name: "destination", type: "string", required: true },
    { name: "amount", type: "number", required: true },
    { name: "currency", type: "string", required: false },
  ]);
  assert.is(flow.description, "geocode, then weather and conversion side by side, then a summary of both");
  // summary depends on money, whose on_error is continue: both may be missing from the result.
  assert.equal(
    flow.outputs.map((o) => [o.name, o.type?.type, o.required]),
    [
      ["summary", "string", false],
      ["converted", "number", false],
      ["condition", "string", true],
      ["currency", "string", false],
    ],
  );
  assert.equal(flow.outputs[2]!.type?.enum, ["sunny", "cloudy", "rain"]);
});

test("valid: nested field references and integer → number widening; output types follow the fields", () => {
  const project = loadCase("valid-nested-widening");
  assert.equal(project.diagnostics, []);
  const flow = flowOf(project);
  const outputs = Object.fromEntries(flow.outputs.map((o) => [o.name, o]));
  assert.equal(outputs["north"], { name: "north", value: "${steps.geocode.output.bbox.north}", type: { type: "number" }, required: true });
  assert.equal(outputs["bbox"]?.type, {
    type: "object",
    fields: {
      required: [
        { name: "north", type: "number" },
        { name: "south", type: "number" },
      ],
      optional: [],
    },
  });
  // population is an optional field of the geocoder's output.
  assert.equal([outputs["population"]?.type, outputs["population"]?.required], [{ type: "integer" }, false]);
  assert.equal(
    outputs["weather"]?.type?.fields?.required.map((f) => f.name),
    ["temperature", "condition"],
  );
});

test("valid: interpolation into text; object and array literals in outputs are typed", () => {
  const project = loadCase("valid-interpolation");
  assert.equal(project.diagnostics, []);
  const flow = flowOf(project);
  assert.equal(flow.outputs[0], {
    name: "headline",
    value: "${inputs.destination}: ${steps.summary.output.summary}",
    type: { type: "string" },
    required: true,
  });
  assert.equal(flow.outputs[1]?.type, {
    type: "object",
    fields: {
      required: [
        { name: "place", type: "string" },
        { name: "temperature", type: "number" },
        { name: "tags", type: "array", items: { type: "string" } },
      ],
      optional: [],
    },
  });
});

test("valid: free-form outputs and inputs accept any path and key; untyped outputs have no type", () => {
  const project = loadCase("valid-free-form");
  assert.equal(project.diagnostics, []);
  const flow = flowOf(project);
  assert.equal(
    flow.outputs.map((o) => [o.name, o.type, o.required]),
    [
      ["eur", undefined, true],
      ["converted", { type: "number" }, true],
      ["pong", undefined, true],
    ],
  );
});

test("valid: the implicit dependency is added to the spec with its warning", () => {
  const project = loadCase("implicit-dependency");
  assert.equal(
    project.diagnostics.map((d) => d.code),
    ["MF1411"],
  );
  assert.equal(
    flowOf(project).steps.map((s) => [s.name, s.dependsOn]),
    [
      ["geocode", []],
      ["weather", ["geocode"]],
    ],
  );
});

test("the agent spec: uses sorted, served and task workflows, endpoints, tasks typed by their workflow", () => {
  const project = loadCase("valid-parallel");
  const agent = agentOf(project);
  assert.equal(agent.uses, ["currency-service", "geocoding-service", "summary-agent", "weather-service"]);
  assert.equal([agent.orchestration.custom, agent.orchestration.endpoints, agent.orchestration.workflows.map((w) => w.name)], [false, ["flow"], ["flow"]]);
  assert.is(agent.orchestration.natural, undefined);
  assert.equal(agent.tasks, [
    {
      type: "run_flow",
      key: "runFlow",
      workflow: "flow",
      timeoutMs: 300_000,
      input: {
        required: [
          { name: "destination", type: "string" },
          { name: "amount", type: "number" },
        ],
        optional: [{ name: "currency", type: "string" }],
      },
      output: {
        required: [{ name: "condition", type: "string", enum: ["sunny", "cloudy", "rain"] }],
        optional: [
          { name: "summary", type: "string" },
          { name: "converted", type: "number" },
          { name: "currency", type: "string" },
        ],
      },
    },
  ]);
  // An output of unknown type leaves the task's output untyped rather than typed wrongly.
  const freeForm = agentOf(loadCase("valid-free-form")).tasks[0]!;
  assert.equal([freeForm.input?.required.map((f) => f.name), "output" in freeForm], [["amount"], false]);
});

test("a workflow only tasks run is in the agent's workflows but not its endpoints", () => {
  const shared = (f: string) => readFileSync(new URL(`_shared/${f}`, ROOT), "utf8");
  const agent =
    "kind: agent\nname: travel-agent\ndescription: d\nuses: [geocoding-service, weather-service]\norchestration: { custom: true, natural: { model: m } }\ntasks:\n  - { type: t, workflow: flow }\n";
  const project = loadSources([
    { file: "geo.yaml", text: shared("geocoding-service.yaml") },
    { file: "weather.yaml", text: shared("weather-service.yaml") },
    { file: "agent.yaml", text: agent },
    { file: "flow.yaml", text: readFileSync(new URL("implicit-dependency/workflow.yaml", ROOT), "utf8") },
  ]);
  const spec = agentOf(project);
  assert.equal(
    [spec.orchestration.workflows.map((w) => w.name), spec.orchestration.endpoints, spec.orchestration.custom, spec.orchestration.natural],
    [["flow"], [], true, { model: "m" }],
  );
});

test("one agent manifest on its own (serveManifest): workflows cannot be resolved, so none are served", () => {
  const project = loadManifestText("agent.yaml", readFileSync(new URL("_shared/travel-agent.yaml", ROOT), "utf8"));
  assert.equal(project.diagnostics, []);
  const agent = agentOf(project);
  assert.equal([agent.orchestration.workflows, agent.orchestration.endpoints], [[], []]);
  assert.equal(agent.tasks, [{ type: "run_flow", key: "runFlow", workflow: "flow", timeoutMs: 300_000 }]);
});

test("tools have no agent spec", () => {
  assert.is(loadCase("valid-parallel").manifests.find((m) => m.name === "weather-service")?.component?.agent, undefined);
});

test.run();
