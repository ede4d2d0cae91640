/**
 * Workflow inputs take a capability field's shape (`items`, `fields`, `enum`, `max_length`,
 * `example`): the meta-schema and the field checks accept and check them, the data-flow checker
 * compares them with the step inputs they are bound to (element types, nested fields, enums), and the
 * spec, the task schema and the generated types carry them. An input `array` without `items` (or
 * `object` without `fields`) bound to a step input that declares them is MF1409: the workflow's
 * endpoint could not refuse a bad call, which would fail later as a step's error.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { emitComponentModule } from "../../generator/emit/component-module.js";
import { loadWorkflowText } from "../../runtime/manifest/index.js";
import { loadSources } from "../support/manifests.js";
import type { Project } from "../../runtime/manifest/project.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/types.js";

const TOOL = `kind: tool
name: batch-service
description: Sums numbers
capabilities:
  - name: sum_all
    description: The sum of the values
    input:
      required:
        - { name: values, type: array, items: { type: number } }
      optional:
        - { name: labels, type: array, items: { type: string } }
        - { name: mode, type: string, enum: [fast, exact] }
        - name: target
          type: object
          fields:
            required: [{ name: currency, type: string }]
    output:
      required:
        - { name: total, type: number }
  - name: ping
    description: Takes any input
`;

const AGENT = `kind: agent
name: batch-agent
description: Serves the workflow under test
uses: [batch-service]
orchestration:
  workflows: [totals]
tasks:
  - { type: total, workflow: totals }
`;

/** A workflow `totals` with these input declarations (YAML lines) and step inputs (a flow mapping body). */
function totals(inputs: string, bindings: string, outputs = `  total: "\${steps.sum.output.total}"\n`): string {
  return `kind: workflow
name: totals
version: "1.0"
inputs:
${inputs}steps:
  - name: sum
    tool: batch-service
    action: sum_all
    inputs: { ${bindings} }
outputs:
${outputs}`;
}

function load(workflow: string): Project {
  return loadSources([
    { file: "tool.yaml", text: TOOL },
    { file: "agent.yaml", text: AGENT },
    { file: "totals.yaml", text: workflow },
  ]);
}

const found = (project: Project) => project.diagnostics.map((d) => [d.code, d.line, d.column, d.message]);

function agentOf(project: Project): ComponentSpec {
  const agent = project.manifests.find((m) => m.name === "batch-agent")?.component;
  if (agent?.agent === undefined) throw new Error(`no agent spec; diagnostics: ${JSON.stringify(project.diagnostics, null, 2)}`);
  return agent;
}

const flowOf = (project: Project): WorkflowSpec => agentOf(project).agent!.orchestration.workflows[0]!;

test("an array input whose elements do not fit the step input's elements is MF1409 at the binding", () => {
  const project = load(
    totals("  values: { type: array, items: { type: number }, required: true }\n", 'values: "${inputs.values}", labels: "${inputs.values}"'),
  );
  assert.equal(found(project), [
    ["MF1409", 10, 51, "`steps[0].inputs.labels` expects array of string, gets array of number from `${inputs.values}`: items: number is not string"],
  ]);
});

test("nested fields and enums of an input are compared with the step input's", () => {
  const missing = load(
    totals(
      "  values: { type: array, items: { type: number }, required: true }\n  target: { type: object, fields: { optional: [{ name: currency, type: string }] } }\n",
      'values: "${inputs.values}", target: "${inputs.target}"',
    ),
  );
  assert.equal(
    found(missing).map((d) => [d[0], d[1], d[3]]),
    [["MF1409", 11, "`steps[0].inputs.target` expects object, gets object from `${inputs.target}`: required field `currency` may be absent"]],
  );
  const outside = load(
    totals(
      "  values: { type: array, items: { type: number }, required: true }\n  mode: { type: string, enum: [fast, slow] }\n",
      'values: "${inputs.values}", mode: "${inputs.mode}"',
    ),
  );
  assert.equal(
    found(outside).map((d) => [d[0], d[1], d[3]]),
    [
      [
        "MF1409",
        11,
        '`steps[0].inputs.mode` expects string (one of "fast", "exact"), gets string (one of "fast", "slow") from `${inputs.mode}`: "slow" is not among "fast", "exact"',
      ],
    ],
  );
});

test("an array input without items, or an object input without fields, bound to one that declares them is MF1409 naming the fix", () => {
  const project = load(
    totals("  values: { type: array, required: true }\n  target: { type: object }\n", 'values: "${inputs.values}", target: "${inputs.target}"'),
  );
  assert.equal(found(project), [
    [
      "MF1409",
      11,
      23,
      "`steps[0].inputs.values` expects array of number, gets array from `${inputs.values}`: the workflow input declares no `items`; declare them so a call that does not fit is refused before any step runs",
    ],
    [
      "MF1409",
      11,
      51,
      "`steps[0].inputs.target` expects object, gets object from `${inputs.target}`: the workflow input declares no `fields`; declare them so a call that does not fit is refused before any step runs",
    ],
  ]);
  // Below the top level too: items that are objects without fields.
  const nested = load(
    totals(
      "  values: { type: array, items: { type: number }, required: true }\n  targets: { type: array, items: { type: object } }\n",
      'values: "${inputs.values}", target: "${inputs.targets}"',
    ),
  );
  assert.equal(
    found(nested).map((d) => d[0]),
    ["MF1409"],
  );
  // The YAML workflow engine's loader says the same, at the same place.
  const context = { component: (name: string) => (name === "batch-service" ? project.manifests.find((m) => m.name === name)!.component! : undefined) };
  const text = loadWorkflowText("totals.yaml", totals("  values: { type: array, required: true }\n", 'values: "${inputs.values}"'), context);
  assert.equal(
    text.diagnostics.map((d) => [d.code, d.line, d.column]),
    [["MF1409", 10, 23]],
  );
});

test("an array input without items stays allowed where nothing typed receives it: unknown[] in the types", () => {
  const flow = totals(
    "  values: { type: array, items: { type: number }, required: true }\n  extra: { type: array }\n",
    'values: "${inputs.values}"',
    '  total: "${steps.sum.output.total}"\n  echoed: "${steps.ping.output}"\n',
  ).replace("outputs:", '  - { name: ping, tool: batch-service, action: ping, inputs: { anything: "${inputs.extra}" } }\noutputs:');
  const project = load(flow);
  assert.equal(project.diagnostics, []);
  assert.equal(flowOf(project).inputs[1], { name: "extra", type: "array", required: false });
  assert.match(emitComponentModule(agentOf(project), "agent.yaml"), /\n {2}extra\?: unknown\[\];\n/);
});

test("object inputs with fields and enum inputs are accepted, kept in the spec and typed in the generated module", () => {
  const inputs = [
    "  values: { type: array, items: { type: number }, required: true, example: [1, 2] }",
    "  mode: { type: string, enum: [fast], description: How hard to try }",
    "  target: { type: object, fields: { required: [{ name: currency, type: string, max_length: 3 }] } }",
    "  note: { type: string, max_length: 20 }",
    "",
  ].join("\n");
  const project = load(
    totals(
      inputs,
      'values: "${inputs.values}", mode: "${inputs.mode}", target: "${inputs.target}", labels: ["${inputs.note}"]',
      '  total: "${steps.sum.output.total}"\n  mode: "${inputs.mode}"\n',
    ),
  );
  assert.equal(project.diagnostics, []);
  const currency = { name: "currency", type: "string", maxLength: 3 };
  assert.equal(flowOf(project).inputs, [
    { name: "values", type: "array", required: true, example: [1, 2], items: { type: "number" } },
    { name: "mode", type: "string", required: false, description: "How hard to try", enum: ["fast"] },
    { name: "target", type: "object", required: false, fields: { required: [currency], optional: [] } },
    { name: "note", type: "string", required: false, maxLength: 20 },
  ]);
  // A task running the workflow takes the same shapes.
  assert.equal(agentOf(project).agent!.tasks[0]!.input?.optional[1], { name: "target", type: "object", fields: { required: [currency], optional: [] } });
  const module = emitComponentModule(agentOf(project), "agent.yaml");
  const input = /export interface TotalsWorkflowInput \{(\n[\s\S]*?)\n\}/.exec(module)?.[1] ?? module;
  assert.match(input, /\n {2}values: Array<number>;/);
  assert.match(input, /\n {2}mode\?: "fast";/);
  assert.match(input, /\n {2}target\?: \{\n {4}currency: string;\n {2}\};/);
  // An enum input flows into an output with its type.
  assert.match(module, /export interface TotalsWorkflowOutput \{\n[\s\S]*?\n {2}mode\?: "fast";/);
});

test("input shapes get a field's checks: keys on the wrong type, enum values, examples", () => {
  const project = load(
    totals(
      '  values: { type: array, items: { type: number }, required: true }\n  mode: { type: string, enum: [fast, 3], items: { type: string } }\n  count: { type: integer, max_length: 2, example: "x" }\n',
      'values: "${inputs.values}", mode: "${inputs.mode}", labels: ["${inputs.count}"]',
    ),
  );
  // `items` on a string, `max_length` on an integer: the meta-schema refuses them before other checks.
  assert.equal(
    found(project).map((d) => [d[0], d[1]]),
    [
      ["MF1209", 6],
      ["MF1209", 7],
    ],
  );
  const checked = load(
    totals(
      '  values: { type: array, items: { type: number }, required: true, example: ["x"] }\n  mode: { type: string, enum: [fast, 3] }\n',
      'values: "${inputs.values}", labels: ["${inputs.mode}"]',
    ),
  );
  assert.equal(
    found(checked).map((d) => [d[0], d[1]]),
    [
      ["MF1308", 5],
      ["MF1309", 6],
    ],
  );
});

test.run();
