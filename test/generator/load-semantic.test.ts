import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText } from "../support/manifests.js";
import { single, where } from "./load-helpers.js";

const load = (text: string) => loadManifestText("m/x.yaml", text);
const HEAD = "kind: tool\nname: t\ndescription: d\ncapabilities:\n";

test("MF1303: a capability declared twice is reported at the second name", () => {
  const d = single(load(`${HEAD}  - { name: a, description: x }\n  - { name: a, description: y }\n`));
  assert.equal([d.code, d.line, d.column], ["MF1303", 6, 13]);
  assert.is(d.message, "capability `a` is declared twice (first on line 5)");
});

test("MF1304: capability names that derive the same camelCase clash", () => {
  const d = single(load(`${HEAD}  - { name: a_1, description: x }\n  - { name: a1, description: y }\n`));
  assert.equal([d.code, d.line, d.column], ["MF1304", 6, 13]);
  assert.is(d.message, "capabilities `a_1` (line 5) and `a1` both become `a1` in TypeScript; rename one");
});

test("MF1305: two capabilities at one endpoint; a default endpoint points at the name", () => {
  const d = single(load(`${HEAD}  - { name: a, description: x, endpoint: /x }\n  - { name: b, description: y, endpoint: /x }\n`));
  assert.equal([d.code, d.line, d.column], ["MF1305", 6, 42]);
  assert.is(d.message, "endpoint /x of `b` is already served by the capability on line 5");
  const implicit = single(load(`${HEAD}  - { name: a, description: x, endpoint: /api/capabilities/b }\n  - { name: b, description: y }\n`));
  assert.equal([implicit.code, implicit.line, implicit.column], ["MF1305", 6, 13]);
});

test("MF1306: endpoints the framework serves are reserved", () => {
  const d = single(load(`${HEAD}  - { name: a, description: x, endpoint: /health }\n`));
  assert.equal([d.code, d.line, d.column], ["MF1306", 5, 42]);
  assert.is(d.message, "endpoint /health of `a` collides with the framework route /health");
  for (const endpoint of ["/api/capabilities", "/openapi.json", "/api/capabilities/a/schema", "/api/capabilities/x/schema/more"]) {
    assert.equal(where(load(`${HEAD}  - { name: a, description: x, endpoint: ${endpoint} }\n`)), [["MF1306", 5, 42]], endpoint);
  }
  // Agent routes are reserved on agents only.
  const agent = "kind: agent\nname: a\ndescription: d\ncapabilities:\n  - { name: a, description: x, endpoint: /query }\n";
  assert.equal(where(load(agent)), [["MF1306", 5, 42]]);
  assert.equal(where(load(agent.replace("/query", "/orchestrate/natural"))), [["MF1306", 5, 42]]);
  assert.equal(where(load(`${HEAD}  - { name: a, description: x, endpoint: /query }\n`)), []);
  assert.equal(where(load(`${HEAD}  - { name: a, description: x, endpoint: /api/capabilities/a/schemas }\n`)), []);
});

test("MF1307: a field name repeated across required and optional", () => {
  const text = `${HEAD}  - name: a\n    description: x\n    input:\n      required: [{ name: lat, type: number }]\n      optional: [{ name: lat, type: string }]\n`;
  const d = single(load(text));
  assert.equal([d.code, d.line, d.column], ["MF1307", 9, 26]);
  assert.is(d.message, "field `lat` is declared twice in `capabilities[0].input` (first on line 8)");
  // Nested object members are their own namespace, checked the same way.
  const nested = `${HEAD}  - name: a\n    description: x\n    output:\n      required:\n        - name: o\n          type: object\n          fields: { required: [{ name: k, type: string }, { name: k, type: string }] }\n`;
  assert.equal(where(load(nested)), [["MF1307", 11, 67]]);
});

test("MF1308: examples must fit type, enum, items and fields", () => {
  const field = (spec: string) => load(`${HEAD}  - name: a\n    description: x\n    input:\n      required:\n        - ${spec}\n`);
  const d = single(field("{ name: lat, type: number, example: north }"));
  assert.equal([d.code, d.line, d.column], ["MF1308", 9, 47]);
  assert.is(d.message, 'example "north" of `lat` does not fit: must be a number');
  assert.equal(where(field("{ name: n, type: integer, example: 1.5 }")), [["MF1308", 9, 46]]);
  const inEnum = single(field("{ name: u, type: string, enum: [metric, imperial], example: kelvin }"));
  assert.is(inEnum.message, 'example "kelvin" of `u` does not fit: must be one of "metric", "imperial"');
  const items = single(field("{ name: l, type: array, items: { type: integer }, example: [1, x] }"));
  assert.equal([items.code, items.line, items.column], ["MF1308", 9, 70]);
  assert.is(items.message, 'example [1,"x"] of `l` does not fit: `[1]` must be an integer');
  const object = single(field("{ name: o, type: object, fields: { required: [{ name: k, type: string }] }, example: { j: 1 } }"));
  assert.is(object.message, 'example {"j":1} of `o` does not fit: it lacks the required member `k`');
  const extra = single(field("{ name: o, type: object, fields: { optional: [{ name: k, type: string }] }, example: { j: 1 } }"));
  assert.is(extra.message, 'example {"j":1} of `o` does not fit: it has a member `j` the field does not declare');
  // An example inside items is checked against the items shape.
  assert.equal(where(field("{ name: l, type: array, items: { type: string, example: 3 } }")), [["MF1308", 9, 67]]);
  // A free-form object takes any members.
  assert.equal(where(field("{ name: o, type: object, example: { any: [1] } }")), []);
});

test("MF1309: enum values must have the field's type", () => {
  const d = single(load(`${HEAD}  - name: a\n    description: x\n    output:\n      optional: [{ name: n, type: integer, enum: [1, 2.5, 3] }]\n`));
  assert.equal([d.code, d.line, d.column], ["MF1309", 8, 54]);
  assert.is(d.message, "enum value 2.5 of `n` is not of its type integer");
});

test("MF1313: a task type declared twice", () => {
  const d = single(load("kind: agent\nname: a\ndescription: d\ntasks:\n  - { type: research, workflow: w }\n  - { type: research, workflow: v }\n"));
  assert.equal([d.code, d.line, d.column], ["MF1313", 6, 13]);
  assert.is(d.message, "task type `research` is declared twice (first on line 5)");
});

test("MF1316: task types that derive the same camelCase clash", () => {
  const text = "kind: agent\nname: a\ndescription: d\ntasks:\n  - { type: run_it }\n  - { type: run__it }\n";
  const d = single(load(text));
  assert.equal([d.code, d.line, d.column], ["MF1316", 6, 13]);
  assert.is(d.message, "task types `run_it` (line 5) and `run__it` both become `runIt` in TypeScript; rename one");
});

test("MF1418: a task timeout or HITL expiry too long to be exact in milliseconds", () => {
  const text =
    "kind: agent\nname: a\ndescription: d\ntasks:\n  - { type: t, timeout: 9999999999999999d }\nhitl:\n  expiry: 99999999999999999999s\n  default_action: reject\n";
  assert.equal(where(load(text)), [
    ["MF1418", 5, 25],
    ["MF1418", 7, 11],
  ]);
  assert.equal(where(load(text.replace("9999999999999999d", "10m").replace("99999999999999999999s", "5m"))), []);
});

test("MF1314: a step name declared twice", () => {
  const text =
    'kind: workflow\nname: w\nversion: "1"\ninputs: {}\noutputs: {}\nsteps:\n  - { name: s, tool: x, action: a }\n  - { name: s, tool: y, action: b }\n';
  const d = single(load(text));
  assert.equal([d.code, d.line, d.column], ["MF1314", 8, 13]);
  assert.is(d.message, "step `s` is declared twice (first on line 7)");
});

test("fields of an agent's task input and output are checked too", () => {
  const text = "kind: agent\nname: a\ndescription: d\ntasks:\n  - type: t\n    input: { required: [{ name: x, type: boolean, example: 1 }] }\n";
  assert.equal(where(load(text)), [["MF1308", 6, 60]]);
});

/** A required field `f` nested `levels` objects deep. */
function nested(levels: number): string {
  let yaml = `${" ".repeat(8 + 6 * levels)}- { name: leaf, type: string }\n`;
  for (let level = levels; level >= 1; level--) {
    const indent = " ".repeat(8 + 6 * (level - 1));
    yaml = `${indent}- name: f\n${indent}  type: object\n${indent}  fields:\n${indent}    required:\n${yaml}`;
  }
  return `${HEAD}  - name: a\n    description: b\n    input:\n      required:\n${yaml}`;
}

test("MF1320: fields nest at most 16 levels; the 17th is reported where it stands (40 gave TS2321 in the generated module)", () => {
  assert.equal(load(nested(15)).diagnostics, [], "15 objects and a leaf: 16 levels");
  for (const levels of [16, 40]) {
    const deep = load(nested(levels));
    assert.equal(where(deep), [["MF1320", 9 + 4 * 16, 8 + 6 * 16 + 3]], `${levels}: one report at level 17, none below it`);
    assert.match(deep.diagnostics[0]!.message, /nested 17 levels deep; fields and items nest at most 16 levels/);
  }
});

test("MF1321: names the generated module imports, and names two parts of a component both derive", () => {
  for (const name of ["client", "component-spec", "handlers", "uses-clients"]) {
    const clash = load(`kind: tool\nname: ${name}\ndescription: d\ncapabilities:\n  - { name: a, description: b }\n`);
    assert.equal(where(clash), [["MF1321", 2, 7]], name);
    assert.match(clash.diagnostics[0]!.message, /a name the generated module imports/);
  }
  const health = load(`${HEAD}  - { name: health, description: b }\n`);
  assert.equal(where(health), [["MF1321", 5, 13]]);
  assert.match(health.diagnostics[0]!.message, /operationId with the framework's GET \/health/);
  const chat = loadManifestText("m/c.yaml", "kind: agent\nname: c\ndescription: d\nchat: true\ncapabilities:\n  - { name: query, description: b }\n");
  assert.equal(where(chat), [["MF1321", 6, 13]]);
  assert.equal(where(loadManifestText("m/c.yaml", "kind: agent\nname: c\ndescription: d\ncapabilities:\n  - { name: query, description: b }\n")), []);
  const agent = `kind: agent
name: packer
description: d
capabilities:
  - { name: packing_task, description: b }
  - { name: research_workflow, description: c }
orchestration: { workflows: [research] }
tasks:
  - { type: packing }
`;
  const clashes = loadManifestText("m/a.yaml", agent);
  assert.equal(
    clashes.diagnostics.filter((d) => d.code === "MF1321").map((d) => [d.line, d.message]),
    [
      [7, "capability `research_workflow` (line 6) and workflow `research` both become `ResearchWorkflowInput` in the generated module; rename one"],
      [9, "capability `packing_task` (line 5) and task type `packing` both become `PackingTaskInput` in the generated module; rename one"],
    ],
  );
});

test.run();
