/**
 * `loadWorkflowText`: the YAML workflow engine's way in (parse → kind → meta-schema → semantic checks
 * → data flow), with gen's codes and positions, against a context the caller builds.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isDiagnosticCode } from "../../runtime/manifest/codes.js";
import { loadWorkflowText } from "../../runtime/manifest/load-workflow.js";
import type { CheckContext, ComponentView } from "../../runtime/manifest/dataflow/index.js";

const GEO: ComponentView = {
  kind: "tool",
  capabilities: [
    {
      name: "locate",
      input: { required: [{ name: "q", type: "string" }], optional: [] },
      output: {
        required: [
          { name: "lat", type: "number" },
          { name: "name", type: "string" },
        ],
        optional: [],
      },
    },
  ],
};
const context: CheckContext = { component: (name) => (name === "geo" ? GEO : undefined) };

const flow = (step: string, outputs = '  name: "${steps.a.output.name}"\n') =>
  `kind: workflow\nname: w\nversion: "1"\ninputs:\n  q: { type: string, required: true }\nsteps:\n${step}outputs:\n${outputs}`;
const STEP = '  - name: a\n    tool: geo\n    action: locate\n    inputs: { q: "${inputs.q}" }\n';

function at(text: string): [string, number, number][] {
  return loadWorkflowText("w.yaml", text, context).diagnostics.map((d) => [d.code, d.line, d.column]);
}

test("a valid workflow: no diagnostics and the spec", () => {
  const result = loadWorkflowText("w.yaml", flow(STEP), context);
  assert.equal(result.diagnostics, []);
  assert.equal(result.spec, {
    name: "w",
    version: "1",
    inputs: [{ name: "q", type: "string", required: true }],
    steps: [
      { name: "a", component: "geo", componentKind: "tool", capability: "locate", inputs: { q: "${inputs.q}" }, dependsOn: [], retry: 0, onError: "fail" },
    ],
    outputs: [{ name: "name", value: "${steps.a.output.name}", type: { type: "string" }, required: true }],
  });
});

test("warnings keep the spec; errors withhold it", () => {
  const warned = loadWorkflowText("w.yaml", flow(STEP, '  q: "${inputs.q}"\n'), context);
  assert.equal(
    warned.diagnostics.map((d) => [d.code, d.severity, d.line, d.column]),
    [["MF1413", "warning", 7, 11]],
  );
  assert.ok(warned.spec !== undefined);
  const failed = loadWorkflowText("w.yaml", flow(STEP.replace("locate", "locat")), context);
  assert.equal(
    failed.diagnostics.map((d) => [d.code, d.line, d.column, d.message]),
    [["MF1404", 9, 13, "`geo` has no capability `locat` (did you mean `locate`?); its capabilities: locate"]],
  );
  assert.is(failed.spec, undefined);
});

test("not a workflow, not YAML, not the format: the earlier stage's diagnostics, no spec", () => {
  const tool = loadWorkflowText("t.yaml", "kind: tool\nname: t\ndescription: d\n", context);
  assert.equal([tool.diagnostics.map((d) => [d.code, d.line, d.column]), tool.spec], [[["MF1419", 1, 7]], undefined]);
  assert.match(tool.diagnostics[0]!.message, /expected a workflow manifest \(`kind: workflow`\), got `kind: tool`/);
  assert.equal(at("kind: workflow\nname: [\n"), [["MF1006", 3, 1]]);
  assert.equal(at("kind: wrkflow\n"), [["MF1015", 1, 7]]);
  assert.equal(at(flow(STEP).replace("action: locate", "action: locate\n    retries: 2")), [["MF1201", 10, 5]]);
  assert.equal(at(""), [["MF1012", 1, 1]]);
});

test("duplicate steps are reported once, with the line of the first", () => {
  const result = loadWorkflowText("w.yaml", flow(STEP + STEP), context);
  assert.equal(
    result.diagnostics.map((d) => [d.code, d.line, d.column, d.message]),
    [["MF1314", 11, 11, "step `a` is declared twice (first on line 7)"]],
  );
});

test("positions inside text: the `${` in plain, double- and single-quoted scalars; the value when escapes shift it", () => {
  const KEEP = '  keep: "${steps.a.output}"\n';
  const first = (text: string) => at(text).find((d) => d[0] === "MF1401");
  const output = (value: string) => first(flow(STEP, `  name: ${value}\n${KEEP}`));
  assert.equal(output("at ${inputs.x}"), ["MF1401", 12, 12]);
  assert.equal(output('"at ${inputs.x}"'), ["MF1401", 12, 13]);
  assert.equal(output("'at ${inputs.x}'"), ["MF1401", 12, 13]);
  // `\t` is two characters in the file and one in the value: the offset cannot be trusted, so the value.
  assert.equal(output('"\\tat ${inputs.x}"'), ["MF1401", 12, 9]);
  assert.equal(output("'it''s ${inputs.x}'"), ["MF1401", 12, 9]);
  assert.equal(first(flow(STEP, `  name: |\n    at \${inputs.x}\n${KEEP}`)), ["MF1401", 12, 9]);
  // A multi-line plain scalar folds its line break into a space: the value again.
  assert.equal(first(flow(STEP, `  name: at\n    \${inputs.x}\n${KEEP}`)), ["MF1401", 12, 9]);
  // Columns count UTF-16 units, as editors do: the globe is two, in the value and in the column alike.
  assert.equal(output('"🌍 ${inputs.x}"'), ["MF1401", 12, 13]);
  // Inside a nested value, the offset is into that string.
  assert.equal(first(flow(STEP, `  name: { list: [1, "a \${inputs.x}"] }\n${KEEP}`)), ["MF1401", 12, 24]);
});

test("a BOM does not shift columns, and the file name is used as given", () => {
  const result = loadWorkflowText("dir/flow.yaml", `\uFEFF${flow(STEP, '  name: "${steps.a.output.name} ${steps.b.output}"\n')}`, context);
  assert.equal(
    result.diagnostics.map((d) => [d.file, d.code, d.line, d.column]),
    [["dir/flow.yaml", "MF1402", 12, 33]],
  );
});

test("arbitrary text never throws, and every diagnostic has a table code and a position", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const base = flow(
    STEP + '  - name: b\n    tool: geo\n    action: locate\n    depends_on: [a]\n    inputs: { q: "x ${steps.a.output.lat}" }\n',
    '  all: { a: "${steps.a.output}", b: ["${steps.b.output.name}", 1] }\n',
  );
  const pieces = ["${", "}", "${steps.", "${inputs.", ".output", ":", "-", "[", "]", "{", "\n", "  ", "'", '"', "&x", "*x", "null", "a"];
  for (let round = 0; round < 200; round++) {
    let text = base;
    for (let edit = 0; edit < 3; edit++) {
      const i = Math.floor(next() * text.length);
      text =
        next() < 0.5
          ? text.slice(0, i) + pieces[Math.floor(next() * pieces.length)]! + text.slice(i)
          : text.slice(0, i) + text.slice(i + 1 + Math.floor(next() * 6));
    }
    const result = loadWorkflowText("w.yaml", text, context);
    for (const d of result.diagnostics) {
      assert.ok(isDiagnosticCode(d.code) && d.line >= 1 && d.column >= 1 && d.message.length > 0, JSON.stringify({ d, text }));
    }
    assert.is(
      result.spec !== undefined,
      result.diagnostics.every((d) => d.severity === "warning"),
      text,
    );
  }
});

test.run();
