/**
 * Expressions: whole values keep their JSON type, embedded ones become text, objects and arrays are
 * resolved recursively, absent values are left out; both syntaxes; and what a tool actually receives.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { compileCached, compileValue, createOrchestrator, type ExpressionScope } from "../../runtime/orchestration/index.js";
import type { WorkflowSpec } from "../../runtime/spec/types.js";
import { rejection, startTools, type Tools } from "./support.js";

const outputs: Record<string, unknown> = {
  geo: { lat: 48.85, lon: 2.35, name: "Paris", tags: ["city", "capital"], bbox: { north: 49, south: 48 }, ok: true, none: null },
};
const scope: ExpressionScope = { inputs: { city: "Paris", days: 3, flag: false, list: [1, 2] }, output: (id) => outputs[id] };
const dollar = (value: unknown) => compileValue(value, "dollar").evaluate(scope);
const braces = (value: unknown) => compileValue(value, "braces").evaluate(scope);

const test = suite("expressions");

test("a whole-value reference keeps the JSON type of what it references", () => {
  assert.is(dollar("${inputs.days}"), 3);
  assert.is(dollar("${inputs.flag}"), false);
  assert.equal(dollar("${inputs.list}"), [1, 2]);
  assert.is(dollar("${steps.geo.output.lat}"), 48.85);
  assert.is(dollar("${steps.geo.output.ok}"), true);
  assert.is(dollar("${steps.geo.output.none}"), null);
  assert.equal(dollar("${steps.geo.output.tags}"), ["city", "capital"]);
  assert.equal(dollar("${steps.geo.output}"), outputs["geo"]);
  assert.is(dollar("${steps.geo.output.bbox.north}"), 49, "nested fields");
});

test("embedded references are interpolated as text; objects and arrays as JSON", () => {
  assert.is(dollar("It is ${steps.geo.output.lat}° in ${inputs.city}"), "It is 48.85° in Paris");
  assert.is(dollar("flag=${inputs.flag}, none=${steps.geo.output.none}"), "flag=false, none=null");
  assert.is(dollar("box ${steps.geo.output.bbox}"), 'box {"north":49,"south":48}');
  assert.is(dollar(" ${inputs.days}"), " 3", "a space makes it text");
  assert.is(dollar("${inputs.city}${inputs.days}"), "Paris3", "two expressions are text");
  assert.is(dollar("plain text"), "plain text");
});

test("objects and arrays are resolved at any depth; literals are kept", () => {
  assert.equal(dollar({ a: { b: ["${inputs.days}", "x ${inputs.city}", 7, null, true] }, c: "${steps.geo.output.name}" }), {
    a: { b: [3, "x Paris", 7, null, true] },
    c: "Paris",
  });
});

test("an absent value is left out: the key is omitted, interpolated text is absent, an array slot is null", () => {
  assert.equal(dollar({ known: "${inputs.city}", optional: "${inputs.missing}", skipped: "${steps.never.output.x}" }), { known: "Paris" });
  assert.equal(dollar({ text: "hello ${inputs.missing}" }), {});
  assert.equal(dollar(["${inputs.missing}", 1]), [null, 1]);
  assert.is(dollar("${steps.geo.output.bbox.east}"), undefined, "missing field");
  assert.is(dollar("${steps.geo.output.name.first}"), undefined, "a field of a string");
});

test("the braces syntax reads the same values", () => {
  assert.equal(braces("{{input}}"), scope.inputs, "{{input}} is the whole input");
  assert.is(braces("{{input.days}}"), 3);
  assert.is(braces("{{ input.city }}"), "Paris", "spaces inside the braces are allowed");
  assert.equal(braces("{{geo.response}}"), outputs["geo"]);
  assert.equal(braces("{{geo.response.data}}"), outputs["geo"]);
  assert.is(braces("{{geo.response.data.bbox.south}}"), 48);
  assert.is(braces("{{geo.response.data.tags.1}}"), "capital", "an index into an array");
  assert.is(braces("Hi {{input.city}}, {{geo.response.data.lat}}"), "Hi Paris, 48.85");
  assert.is(braces("${inputs.city}"), "${inputs.city}", "the other syntax is a literal");
  assert.is(dollar("{{input.city}}"), "{{input.city}}");
});

test("malformed expressions are INVALID_WORKFLOW with a pointer to the value", () => {
  const cases: [unknown, "dollar" | "braces", RegExp][] = [
    [{ a: "${inputs}" }, "dollar", /name/],
    [{ a: { b: "x ${steps.geo.lat}" } }, "dollar", /\.output/],
    [{ a: "${foo}" }, "dollar", /not a reference/],
    [{ a: "${inputs.x" }, "dollar", /not closed/],
    [{ a: "{{geo.data.x}}" }, "braces", /\.response/],
    [{ a: "{{geo.response.x}}" }, "braces", /response\.data/],
    [{ a: "{{input" }, "braces", /not closed/],
  ];
  for (const [value, syntax, message] of cases) {
    try {
      compileValue(value, syntax, "/p");
      assert.unreachable(`${JSON.stringify(value)} compiled`);
    } catch (error) {
      const e = error as { code?: string; details?: { pointer: string }[]; message: string };
      assert.is(e.code, "INVALID_WORKFLOW");
      assert.match(e.message, message);
      assert.ok(e.details?.[0]?.pointer.startsWith("/p/a"), e.details?.[0]?.pointer);
    }
  }
});

test("a value is compiled once per object and the result reused", () => {
  const parameters = { lat: "${steps.geo.output.lat}" };
  const first = compileCached(parameters, "dollar");
  assert.is(compileCached(parameters, "dollar"), first);
  assert.equal([...first.steps], ["geo"]);
  assert.not.ok(first.constant);
  const literal = { a: 1 };
  assert.is(compileCached(literal, "dollar").evaluate(scope), literal, "a constant is returned as is, not copied");
});

const tools = suite<{ tools: Tools }>("expressions over HTTP", { tools: undefined as unknown as Tools });
tools.before(async (context) => {
  context.tools = await startTools();
});
tools.after(({ tools }) => tools.close());

const spec = (steps: WorkflowSpec["steps"], outputs: WorkflowSpec["outputs"] = []): WorkflowSpec => ({
  name: "exprs",
  version: "1",
  inputs: [
    { name: "city", type: "string", required: true },
    { name: "n", type: "integer", required: false },
  ],
  steps,
  outputs,
});
const wstep = (name: string, capability: string, inputs: Record<string, unknown>, dependsOn: string[] = []): WorkflowSpec["steps"][number] => ({
  name,
  component: "worker",
  componentKind: "tool",
  capability,
  inputs,
  dependsOn,
  retry: 0,
  onError: "fail",
});

tools("the tool receives typed values, text, nested objects, and no key for an absent value", async ({ tools }) => {
  const orchestrator = createOrchestrator({ components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: false });
  const workflow = spec(
    [
      wstep("sum", "add", { a: 40, b: 2 }),
      wstep(
        "show",
        "echo",
        {
          total: "${steps.sum.output.sum}",
          line: "${inputs.city} has ${steps.sum.output.sum}",
          nested: { city: "${inputs.city}", all: "${steps.sum.output}", list: ["${steps.sum.output.sum}", "${inputs.n}"] },
          maybe: "${inputs.n}",
        },
        ["sum"],
      ),
    ],
    [
      { name: "total", value: "${steps.show.output.total}", required: true },
      { name: "headline", value: "${steps.show.output.line}!", required: true },
      { name: "absent", value: "${inputs.n}", required: false },
      { name: "literal", value: { k: [1, "${inputs.city}"] }, required: true },
    ],
  );
  const result = await orchestrator.runWorkflow(workflow, { city: "Oslo" });
  assert.is(result.status, "completed");
  const echoed = tools.calls.find((c) => c.capability === "echo")!.input;
  assert.equal(echoed, { total: 42, line: "Oslo has 42", nested: { city: "Oslo", all: { sum: 42 }, list: [42, null] } });
  assert.not.ok("maybe" in echoed, "an optional input not given is not sent");
  assert.equal(result.outputs, { total: 42, headline: "Oslo has 42!", literal: { k: [1, "Oslo"] } });
  const bad = await rejection(orchestrator.runWorkflow(workflow, { city: 3, extra: true }));
  assert.is(bad.code, "INVALID_INPUT");
  assert.equal(bad.details?.map((d) => d.pointer).sort(), ["/city", "/extra"]);
});

test.run();
tools.run();
