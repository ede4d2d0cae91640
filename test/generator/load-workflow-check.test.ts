/**
 * `checkWorkflow` on its own, the way the YAML workflow engine calls it at run time: a document that
 * passed the meta-schema and a hand-built `CheckContext` (no manifests, no files). Issues carry paths
 * and offsets, not positions.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  checkWorkflow,
  parseTemplate,
  type CheckContext,
  type ComponentView,
  type WorkflowDocument,
  type WorkflowStepDocument,
} from "../../runtime/manifest/dataflow/index.js";
import type { FieldsSpec } from "../../runtime/spec/types.js";

const fields = (required: FieldsSpec["required"], optional: FieldsSpec["optional"] = []): FieldsSpec => ({ required, optional });

const CATALOG: Readonly<Record<string, ComponentView>> = {
  geo: {
    kind: "tool",
    capabilities: [
      {
        name: "locate",
        input: fields(
          [{ name: "q", type: "string" }],
          [
            { name: "limit", type: "integer" },
            { name: "tags", type: "array", items: { type: "string" } },
          ],
        ),
        output: fields(
          [
            { name: "lat", type: "number" },
            { name: "count", type: "integer" },
            { name: "place", type: "object", fields: fields([{ name: "city", type: "string" }], [{ name: "zip", type: "string" }]) },
          ],
          [
            { name: "label", type: "string", enum: ["a", "b"] },
            { name: "meta", type: "object" },
          ],
        ),
      },
    ],
  },
  sink: {
    kind: "tool",
    capabilities: [
      {
        name: "put",
        input: fields(
          [{ name: "x", type: "number" }],
          [
            { name: "s", type: "string" },
            { name: "mode", type: "string", enum: ["a", "b", "c"] },
            { name: "where", type: "object", fields: fields([{ name: "city", type: "string" }]) },
            { name: "n", type: "integer" },
          ],
        ),
      },
      { name: "any" },
    ],
  },
  helper: { kind: "agent", capabilities: [{ name: "help", output: fields([{ name: "text", type: "string" }]) }] },
};

const context: CheckContext = { component: (name) => CATALOG[name], componentNames: () => Object.keys(CATALOG) };

function workflow(
  steps: readonly WorkflowStepDocument[],
  outputs: Record<string, unknown> = {},
  inputs: WorkflowDocument["inputs"] = { q: { type: "string", required: true } },
): WorkflowDocument {
  return { kind: "workflow", name: "w", version: "1", inputs, steps, outputs };
}

const locate: WorkflowStepDocument = { name: "a", tool: "geo", action: "locate", inputs: { q: "${inputs.q}" } };
const put = (inputs: Record<string, unknown>, extra: Partial<WorkflowStepDocument> = {}): WorkflowStepDocument => ({
  name: "b",
  tool: "sink",
  action: "put",
  depends_on: ["a"],
  inputs,
  ...extra,
});

/** [code, path, offset?] of each issue, the shape tests compare. */
function found(doc: WorkflowDocument, ctx: CheckContext = context): unknown[] {
  return checkWorkflow(doc, ctx).issues.map((i) => (i.offset === undefined ? [i.code, i.path.join(".")] : [i.code, i.path.join("."), i.offset]));
}

test("a clean workflow has no issues and a spec; issues withhold it only when one is an error", () => {
  const doc = workflow([locate, put({ x: "${steps.a.output.lat}" })], { lat: "${steps.b.output}" });
  const clean = checkWorkflow(doc, context);
  assert.equal(clean.issues, []);
  assert.equal(
    clean.spec?.steps.map((s) => s.name),
    ["a", "b"],
  );
  const warned = checkWorkflow(workflow([locate, put({ x: "${steps.a.output.lat}" }, { depends_on: [] })], { out: "${steps.b.output}" }), context);
  assert.equal(
    warned.issues.map((i) => [i.code, i.severity]),
    [["MF1411", "warning"]],
  );
  assert.equal(warned.spec?.steps[1]?.dependsOn, ["a"]);
  const broken = checkWorkflow(workflow([locate, put({ x: "${steps.a.output.nope}" })], { o: "${steps.b.output}" }), context);
  assert.is(broken.spec, undefined);
  assert.equal(
    broken.issues.map((i) => [i.code, i.severity, i.path, i.offset]),
    [["MF1406", "error", ["steps", 1, "inputs", "x"], 0]],
  );
});

test("offsets point at the `${` inside a longer text; an undeclared key is flagged as a key", () => {
  assert.equal(found(workflow([locate, put({ x: 1, s: "at ${steps.a.output.lat} and ${inputs.nope}" })], { o: "${steps.b.output}" })), [
    ["MF1401", "steps.1.inputs.s", 29],
  ]);
  const issue = checkWorkflow(workflow([locate, put({ x: 1, y: 2 })], { o: "${steps.b.output}" }), context).issues[0];
  assert.equal([issue?.code, issue?.at, issue?.path], ["MF1408", "key", ["steps", 1, "inputs", "y"]]);
});

test("allowed: a step calling a component outside the agent's uses is MF1415 at the step", () => {
  const doc = workflow([locate, put({ x: "${steps.a.output.lat}" })], { o: "${steps.b.output}" });
  assert.equal(found(doc, { ...context, allowed: new Set(["geo"]) }), [["MF1415", "steps.1.tool"]]);
  assert.equal(found(doc, { ...context, allowed: new Set(["geo", "sink"]) }), []);
});

test("isBroken: a step calling a broken component reports nothing more, but withholds the spec", () => {
  const doc = workflow([locate, { ...put({ x: "${steps.a.output.lat}" }), tool: "gone" }], { o: "${steps.b.output.whatever}" });
  assert.equal(found(doc), [["MF1403", "steps.1.tool"]]);
  const result = checkWorkflow(doc, { ...context, isBroken: (name) => name === "gone" });
  assert.equal([result.issues, result.spec], [[], undefined]);
});

test("unknown component without componentNames: no suggestion, still a clear message", () => {
  const issue = checkWorkflow(workflow([{ ...locate, tool: "ge" }], { o: "${steps.a.output}" }), { component: (name) => CATALOG[name] }).issues[0];
  assert.equal([issue?.code, issue?.message], ["MF1403", "step `a` calls `ge`, but no tool or agent has that name"]);
});

test("the checker reports duplicate step names itself (MF1314) when called directly", () => {
  assert.equal(found(workflow([locate, { ...locate }], { o: "${steps.a.output}" })), [["MF1314", "steps.1.name"]]);
});

test("cycles are named once each, in data-flow order, starting at the first step written", () => {
  const step = (name: string, needs: string): WorkflowStepDocument => ({ name, tool: "sink", action: "any", inputs: { v: `\${steps.${needs}.output}` } });
  const result = checkWorkflow(workflow([step("a", "c"), step("b", "a"), step("c", "b"), step("d", "e"), step("e", "d")], { o: "${inputs.q}" }), context);
  const cycles = result.issues.filter((i) => i.code === "MF1410").map((i) => i.message);
  assert.equal(cycles, ["steps depend on each other in a cycle: a → b → c → a", "steps depend on each other in a cycle: d → e → d"]);
});

test("a long chain is checked without deep recursion", () => {
  const steps: WorkflowStepDocument[] = [
    locate,
    ...Array.from({ length: 3000 }, (_, i) => ({
      name: `s${i}`,
      tool: "sink",
      action: "any",
      inputs: { v: `\${steps.${i === 0 ? "a" : `s${i - 1}`}.output}` },
    })),
  ];
  const result = checkWorkflow(workflow(steps, { o: "${steps.s2999.output}" }), context);
  assert.equal(
    result.issues.map((i) => i.code).filter((c) => c !== "MF1411"),
    [],
  );
  assert.equal(result.spec?.steps[3000]?.dependsOn, ["s2998"]);
});

test("a dependency already implied through depends_on is added without a warning", () => {
  const c: WorkflowStepDocument = { name: "c", tool: "sink", action: "put", depends_on: ["b"], inputs: { x: "${steps.a.output.lat}" } };
  const result = checkWorkflow(workflow([locate, put({ x: 1 }), c], { o: "${steps.c.output}" }), context);
  assert.equal(result.issues, []);
  assert.equal(result.spec?.steps[2]?.dependsOn, ["a", "b"]);
});

test("types: widening and enums", () => {
  const ok = (inputs: Record<string, unknown>) => found(workflow([locate, put(inputs)], { o: "${steps.b.output}" }));
  assert.equal(ok({ x: "${steps.a.output.count}" }), [], "integer → number");
  assert.equal(ok({ x: 1, n: "${steps.a.output.lat}" }), [["MF1409", "steps.1.inputs.n"]], "number → integer");
  assert.equal(ok({ x: 1, mode: "${steps.a.output.label}" }), [], "enum ⊆ enum");
  assert.equal(ok({ x: 1, mode: "${inputs.q}" }), [], "no enum → enum: checked at run time");
  assert.equal(ok({ x: 1, s: "${steps.a.output.meta}" }), [["MF1409", "steps.1.inputs.s"]], "object → string");
  assert.equal(ok({ x: "${steps.a.output.meta.anything}" }), [], "below a free-form object: untyped, accepted");
  assert.equal(ok({ x: 1, s: "n=${steps.a.output.count}" }), [], "interpolated into a string");
});

test("types: objects with fields, and literals (nested, with expressions inside)", () => {
  const check = (inputs: Record<string, unknown>) =>
    checkWorkflow(workflow([locate, put(inputs)], { o: "${steps.b.output}" }), context).issues.map((i) => [i.code, i.path.join("."), i.message]);
  // place has an optional zip the target does not declare.
  assert.equal(check({ x: 1, where: "${steps.a.output.place}" }), [
    [
      "MF1409",
      "steps.1.inputs.where",
      "`steps[1].inputs.where` expects object, gets object from `${steps.a.output.place}`: field `zip` is not declared by the input",
    ],
  ]);
  assert.equal(check({ x: 1, where: { city: "${steps.a.output.place.city}" } }), []);
  assert.equal(
    check({ x: 1, where: { city: "${steps.a.output.lat}" } }).map((c) => c[1]),
    ["steps.1.inputs.where.city"],
  );
  assert.equal(
    check({ x: 1, where: { city: "x", street: "${inputs.q}" } }).map((c) => [c[0], c[1]]),
    [["MF1409", "steps.1.inputs.where.street"]],
  );
  assert.equal(
    check({ x: 1, where: { zip: "${inputs.q}" } }).map((c) => c[2]),
    ["`steps[1].inputs.where` declares no member `zip`", "`steps[1].inputs.where` expects object: required member `city` is missing"],
  );
  assert.equal(
    check({ x: "1" }).map((c) => c[2]),
    ['`steps[1].inputs.x` expects number: the string "1" is not number'],
  );
  assert.equal(
    check({ x: 2.5, n: 2.5 }).map((c) => c[2]),
    ["`steps[1].inputs.n` expects integer: the number 2.5 is not integer"],
  );
  assert.equal(
    check({ x: 1, mode: ["${inputs.q}"] }).map((c) => c[2]),
    ['`steps[1].inputs.mode` expects string (one of "a", "b", "c"), gets an array'],
  );
  assert.equal(
    check({ x: null }).map((c) => c[2]),
    ["`steps[1].inputs.x` expects number: null is not number"],
  );
});

test("outputs: type inference and required-ness", () => {
  const steps: WorkflowStepDocument[] = [{ ...locate, on_error: "continue" }, put({ x: 1 }), { name: "c", agent: "helper", action: "help", inputs: {} }];
  const outputs = {
    lat: "${steps.a.output.lat}",
    skipped: "${steps.b.output}",
    text: "${steps.c.output.text}",
    label: "${steps.c.output}",
    optionalInput: "${inputs.note}",
    requiredInput: "${inputs.q}",
    interpolated: "at ${steps.a.output.lat}",
    text2: "${inputs.q} and ${steps.c.output.text}",
    number: 3,
    flag: true,
    nothing: null,
    mixed: [1, "a"],
    same: [1, 2],
    maybe: ["${inputs.q}", "${inputs.note}"],
    empty: [],
    record: { lat: "${steps.a.output.lat}", q: "${inputs.q}" },
    loose: { any: "${steps.b.output}" },
  };
  const spec = checkWorkflow(workflow(steps, outputs, { q: { type: "string", required: true }, note: { type: "string", description: "d" } }), context).spec;
  const byName = Object.fromEntries((spec?.outputs ?? []).map((o) => [o.name, [o.type, o.required]]));
  assert.equal(byName, {
    // a may fail and carry on; b depends on a, so it may be skipped.
    lat: [{ type: "number" }, false],
    skipped: [undefined, false],
    text: [{ type: "string" }, true],
    label: [{ type: "object", fields: fields([{ name: "text", type: "string" }]) }, true],
    optionalInput: [{ type: "string", description: "d" }, false],
    requiredInput: [{ type: "string" }, true],
    // Absent as a whole when a value in it is absent.
    interpolated: [{ type: "string" }, false],
    text2: [{ type: "string" }, true],
    number: [{ type: "number" }, true],
    flag: [{ type: "boolean" }, true],
    nothing: [undefined, true],
    mixed: [{ type: "array" }, true],
    same: [{ type: "array", items: { type: "number" } }, true],
    maybe: [{ type: "array" }, true],
    empty: [{ type: "array" }, true],
    record: [{ type: "object", fields: fields([{ name: "q", type: "string" }], [{ name: "lat", type: "number" }]) }, true],
    loose: [{ type: "object" }, true],
  });
  assert.equal(spec?.outputs[0]?.value, "${steps.a.output.lat}");
});

test("expressions: the grammar, and malformed ones with what to write", () => {
  const problems = (text: string) => parseTemplate(text).problems.map((p) => [p.offset, p.message]);
  assert.equal(parseTemplate("${inputs.a}").whole, true);
  assert.equal(parseTemplate(" ${inputs.a}").whole, false);
  assert.equal(parseTemplate("${inputs.a}${inputs.b}").whole, false);
  assert.equal(parseTemplate("${steps.s.output.a.b}").expressions[0]?.reference, { kind: "step", step: "s", fields: ["a", "b"] });
  assert.equal(parseTemplate("no expressions at all, $ { } {}").expressions, []);
  assert.equal(problems("${steps.s}"), [[0, "`${steps.s}` must go through `.output`: `${steps.s.output}`"]]);
  assert.equal(problems("x ${steps.s.outputs.lat}"), [[2, "`${steps.s.outputs.lat}` must go through `.output`: `${steps.s.output.lat}`"]]);
  assert.equal(problems("${steps.s.lat}"), [[0, "`${steps.s.lat}` must go through `.output`: `${steps.s.output.lat}`"]]);
  assert.match(String(problems("${foo}")[0]?.[1]), /^`\$\{foo\}` is not a reference: expressions are/);
  assert.match(String(problems("${ inputs.a }")[0]?.[1]), /no spaces inside/);
  assert.equal(problems("${inputs.a.b}"), [[0, "`${inputs.a.b}`: a workflow input is referenced whole, as `${inputs.a}`"]]);
  assert.equal(problems("${inputs}"), [[0, "`${inputs}` needs the input's name: `${inputs.<name>}`"]]);
  assert.equal(problems("${}").length, 1);
  assert.equal(problems("a ${inputs.a"), [[2, "`${` is not closed: add the `}`"]]);
  assert.equal(problems("${inputs.a ${inputs.b}"), [[0, "`${` is not closed before the next `${`: add the `}`"]]);
  assert.equal(
    parseTemplate("${inputs.a ${inputs.b}").expressions.map((e) => e.offset),
    [11],
  );
});

test("depends_on naming an unknown step, and a timeout too long to represent", () => {
  assert.equal(found(workflow([locate, put({ x: 1 }, { depends_on: ["a", "zz"], timeout: "9007199254740993ms" })], { o: "${steps.b.output}" })), [
    ["MF1414", "steps.1.depends_on.1"],
    ["MF1418", "steps.1.timeout"],
  ]);
});

test("unused: inputs nothing references, steps nothing uses", () => {
  const doc = workflow([locate, put({ x: 1 }, { depends_on: [] })], {}, { q: { type: "string" }, spare: { type: "number" } });
  assert.equal(
    checkWorkflow(doc, context).issues.map((i) => [i.code, i.path.join("."), i.at]),
    [
      ["MF1412", "inputs.spare", "key"],
      ["MF1413", "steps.0.name", undefined],
      ["MF1413", "steps.1.name", undefined],
    ],
  );
});

test.run();
