import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadManifestText } from "../support/manifests.js";
import { single, where } from "./load-helpers.js";

const load = (text: string) => loadManifestText("m/x.yaml", text);

/** A tool whose one capability is `capability` (lines from 5 on, indented under `  - `). */
const tool = (capability: string) => `kind: tool\nname: t\ndescription: d\ncapabilities:\n  - name: a\n    description: b\n${capability}`;

/** A workflow whose steps are `steps` (from line 7 on). */
const workflow = (steps: string, head = "") => `kind: workflow\nname: w\nversion: "1"\n${head}inputs: {}\noutputs: {}\nsteps:\n${steps}`;

test("MF1201: an unknown key is reported at the key, naming the allowed keys", () => {
  const d = single(load(tool("    summary: y\n")));
  assert.equal([d.code, d.line, d.column], ["MF1201", 7, 5]);
  assert.is(
    d.message,
    "unknown key `summary` in capability at `capabilities[0]`; allowed keys: name, description, type, internal, effects, endpoint, input, output",
  );
});

test("MF1201: a misspelt key gets a suggestion, and the key it was meant to be is missing", () => {
  const project = load("kind: tool\nname: t\ndescription: d\ncapabilites: []\n");
  assert.equal(where(project), [
    ["MF1202", 1, 1],
    ["MF1201", 4, 1],
  ]);
  assert.match(
    project.diagnostics[1]!.message,
    /unknown key `capabilites` in tool manifest \(did you mean `capabilities`\?\); allowed keys: kind, name, description, version, port, mcp, capabilities$/,
  );
  // Keys of the other kinds are unknown on a tool.
  assert.equal(where(load(tool("uses: [x]\n"))), [["MF1201", 7, 1]]);
});

test("MF1201: an unquoted comma in a flow mapping gets an explanation", () => {
  const d = single(load(tool("    input:\n      required:\n        - { name: days, type: integer, description: Number of days, 1 to 7 }\n")));
  assert.equal([d.code, d.line, d.column], ["MF1201", 9, 69]);
  assert.match(
    d.message,
    /^unknown key `1 to 7` in field at `capabilities\[0\]\.input\.required\[0\]`; allowed keys: .*; a comma inside `\{ … \}` ends a value, so quote text that contains one$/,
  );
});

test("MF1202: a missing key is reported at the mapping that lacks it", () => {
  const d = single(load("# header\nkind: tool\nname: t\ndescription: d\n"));
  assert.equal([d.code, d.line, d.column], ["MF1202", 2, 1]);
  assert.is(d.message, "tool manifest is missing required key `capabilities`");
  const field = single(load(tool("    input:\n      required:\n        - { name: lat }\n")));
  assert.equal([field.code, field.line, field.column], ["MF1202", 9, 11]);
  assert.is(field.message, "field at `capabilities[0].input.required[0]` is missing required key `type`");
});

test("MF1202: a step needs tool or agent, said once", () => {
  const d = single(load(workflow("  - name: s\n    action: go\n")));
  assert.equal([d.code, d.line, d.column], ["MF1202", 7, 5]);
  assert.is(d.message, "a step needs `tool` or `agent`");
});

test("MF1203: a wrong type is reported at the value, with what was expected and found", () => {
  const d = single(load(tool("    internal: yes\n")));
  assert.equal([d.code, d.line, d.column], ["MF1203", 7, 15]);
  assert.is(d.message, "`capabilities[0].internal` must be a boolean (true or false), got a string");
  const version = single(load(workflow("  - { name: s, tool: x, action: go }\n").replace('version: "1"', "version: 1.0")));
  assert.equal([version.code, version.line, version.column], ["MF1203", 3, 10]);
  assert.is(version.message, '`version` must be a string, got an integer; quote it to keep it text: "1.0"');
  // An empty value points at its key.
  assert.equal(where(load("kind: tool\nname: t\ndescription:\ncapabilities: [{ name: a, description: b }]\n")), [["MF1203", 3, 1]]);
});

test("MF1204: a value outside its enum names the allowed values and a likely fix", () => {
  const d = single(load(tool("    type: tol\n")));
  assert.equal([d.code, d.line, d.column], ["MF1204", 7, 11]);
  assert.is(d.message, '`capabilities[0].type` must be one of tool, reasoning, orchestrator; got "tol" (did you mean "tool"?)');
  assert.equal(where(load(tool("    output:\n      required: [{ name: x, type: strng }]\n"))), [["MF1204", 8, 35]]);
});

test("MF1205: a name, endpoint, duration or map key that breaks its pattern says the rule", () => {
  const d = single(load("kind: tool\nname: Weather_Service\ndescription: d\ncapabilities: [{ name: a, description: b }]\n"));
  assert.equal([d.code, d.line, d.column], ["MF1205", 2, 7]);
  assert.match(d.message, /^`name` "Weather_Service" is invalid: a component or workflow name is a DNS label/);
  assert.equal(where(load(tool("    endpoint: api/a\n"))), [["MF1205", 7, 15]]);
  assert.equal(where(load(workflow("  - { name: s, tool: x, action: go, timeout: 10 minutes }\n"))), [["MF1205", 7, 46]]);
  const key = single(load(workflow("  - { name: s, tool: x, action: go }\n").replace("inputs: {}", "inputs:\n  bad-name: { type: string }")));
  assert.equal([key.code, key.line, key.column], ["MF1205", 5, 3]);
  assert.match(key.message, /^key `bad-name` in `inputs` is invalid: a field name is/);
});

test("MF1206: a number out of range", () => {
  const d = single(load("kind: tool\nname: t\ndescription: d\nport: 70000\ncapabilities: [{ name: a, description: b }]\n"));
  assert.equal([d.code, d.line, d.column], ["MF1206", 4, 7]);
  assert.is(d.message, "`port` must be at most 65535, got 70000");
  assert.equal(where(load(workflow("  - { name: s, tool: x, action: go, retry: -1 }\n"))), [["MF1206", 7, 44]]);
});

test("MF1207: an empty list or string where content is required", () => {
  const d = single(load("kind: tool\nname: t\ndescription: d\ncapabilities: []\n"));
  assert.equal([d.code, d.line, d.column], ["MF1207", 4, 15]);
  assert.is(d.message, "`capabilities` must not be empty");
  assert.equal(where(load('kind: tool\nname: t\ndescription: ""\ncapabilities: [{ name: a, description: b }]\n')), [["MF1207", 3, 14]]);
});

test("MF1208: a repeated list item is reported at the repeat", () => {
  const d = single(load("kind: agent\nname: a\ndescription: d\nuses: [x, y, x]\n"));
  assert.equal([d.code, d.line, d.column], ["MF1208", 4, 14]);
  assert.is(d.message, '`uses` lists "x" more than once');
});

test("MF1209: keys that conflict with another are reported at the key, once", () => {
  const items = single(load(tool("    input:\n      required:\n        - { name: x, type: string, items: { type: string } }\n")));
  assert.equal([items.code, items.line, items.column], ["MF1209", 9, 36]);
  assert.is(items.message, "`items` is only allowed when `type` is array");
  const fields = single(load(tool("    output:\n      optional:\n        - name: x\n          type: array\n          fields: {}\n")));
  assert.equal([fields.code, fields.line, fields.column], ["MF1209", 11, 11]);
  const both = single(load(workflow("  - name: s\n    tool: x\n    agent: y\n    action: go\n")));
  assert.equal([both.code, both.line, both.column], ["MF1209", 9, 5]);
  assert.is(both.message, "a step calls exactly one of `tool` or `agent`, not both");
  const task = single(load("kind: agent\nname: a\ndescription: d\ntasks:\n  - type: t\n    workflow: w\n    input: {}\n"));
  assert.equal([task.code, task.line, task.column], ["MF1209", 7, 5]);
});

test("a wrong type is not also reported as a bad enum or pattern value", () => {
  assert.equal(where(load("kind: tool\nname: 42\ndescription: d\ncapabilities: [{ name: a, description: b, type: [tool] }]\n")), [
    ["MF1203", 2, 7],
    ["MF1204", 4, 49],
  ]);
});

test("every problem in a file is reported, in file order", () => {
  const text = "kind: agent\nname: A\ndescription: d\nport: 0\nchat: maybe\nhitl: { expiry: 5 minutes }\n";
  assert.equal(where(load(text)), [
    ["MF1205", 2, 7],
    ["MF1206", 4, 7],
    ["MF1203", 5, 7],
    ["MF1202", 6, 7],
    ["MF1205", 6, 17],
  ]);
});

test("field, input and step-input names every JavaScript object already has are refused where they stand", () => {
  // `constructor` as an optional field became required (ajv read Object.prototype's); `__proto__` could never be sent.
  const tool = load(
    "kind: tool\nname: t\ndescription: d\ncapabilities:\n  - name: a\n    description: b\n    input:\n      optional:\n        - { name: constructor, type: string }\n        - { name: __proto__, type: string }\n        - { name: toString, type: string }\n",
  );
  assert.equal(where(tool), [
    ["MF1205", 9, 19],
    ["MF1205", 10, 19],
    ["MF1205", 11, 19],
  ]);
  assert.match(tool.diagnostics[0]!.message, /not a name every JavaScript object already has/);
  const workflow = load(
    "kind: workflow\nname: w\nversion: '1'\ninputs:\n  constructor: { type: string }\nsteps:\n  - name: s\n    tool: t\n    action: a\n    inputs: { __proto__: x }\noutputs: {}\n",
  );
  assert.equal(where(workflow), [
    ["MF1205", 5, 3],
    ["MF1205", 10, 15],
  ]);
  // Ordinary names that merely contain them are fine.
  assert.equal(
    where(
      load(
        "kind: tool\nname: t\ndescription: d\ncapabilities:\n  - name: a\n    description: b\n    input:\n      optional:\n        - { name: constructor_id, type: string }\n",
      ),
    ),
    [],
  );
});

test("max_length: a string's longest value, in the JSON Schema as maxLength; refused on other types; an example longer than it is MF1308", () => {
  const field = (line: string) =>
    load(`kind: tool\nname: t\ndescription: d\ncapabilities:\n  - name: a\n    description: b\n    input:\n      required:\n        - ${line}\n`);
  const ok = field("{ name: city, type: string, max_length: 20, example: Paris }");
  assert.equal(ok.diagnostics, []);
  assert.is(ok.manifests[0]!.component!.capabilities[0]!.input!.required[0]!.maxLength, 20);
  const onNumber = field("{ name: n, type: integer, max_length: 20 }");
  assert.equal(where(onNumber), [["MF1209", 9, 37]]);
  assert.match(onNumber.diagnostics[0]!.message, /`max_length` is only allowed when `type` is string/);
  assert.equal(
    where(field("{ name: city, type: string, max_length: 3, example: Paris }")).map(([code]) => code),
    ["MF1308"],
  );
  assert.equal(
    where(field("{ name: city, type: string, max_length: 0 }")).map(([code]) => code),
    ["MF1206"],
  );
});

test.run();
