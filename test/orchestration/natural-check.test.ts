/**
 * The natural-mode plan check: a model's plan against a catalog, with the workflow checker and ajv,
 * before anything is dispatched. Each problem must point at the place in the plan the model wrote.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createPlanChecker, parsePlanText, type CatalogComponent } from "../../runtime/orchestration/index.js";
import { capabilityWire, type FieldsSpec } from "../../runtime/spec/index.js";
import { capability, planStep } from "./support.js";

const fields = (required: FieldsSpec["required"], optional: FieldsSpec["optional"] = []): FieldsSpec => ({ required, optional });

export const CATALOG: CatalogComponent[] = [
  {
    name: "geo",
    kind: "tool",
    description: "geocoding",
    capabilities: [
      capabilityWire(
        capability(
          "locate",
          fields([{ name: "city", type: "string" }]),
          fields([
            { name: "lat", type: "number" },
            { name: "lon", type: "number" },
          ]),
        ),
      ),
      { ...capabilityWire(capability("purge", fields([]))), internal: true },
    ],
  },
  {
    name: "weather",
    kind: "tool",
    description: "weather",
    capabilities: [
      capabilityWire(
        capability(
          "current",
          fields(
            [
              { name: "lat", type: "number" },
              { name: "lon", type: "number" },
            ],
            [{ name: "units", type: "string", enum: ["metric", "imperial"] }],
          ),
          fields([{ name: "temperature", type: "number" }]),
        ),
      ),
    ],
  },
];

const step = planStep;

const GOOD = {
  steps: [
    step("s1", "geo", "locate", { city: "Paris" }),
    step("s2", "weather", "current", { lat: "{{s1.response.data.lat}}", lon: "{{s1.response.data.lon}}", units: "metric" }, ["s1"]),
  ],
};

const check = suite("natural plan check");
const checker = createPlanChecker(CATALOG);

check("a plan that fits the catalog becomes a natural plan whose steps continue past failures", () => {
  const { plan, problems } = checker(GOOD, "weather in Paris");
  assert.equal(problems, []);
  assert.ok(plan !== undefined);
  assert.match(plan.plan_id, /^natural-\d+$/);
  assert.is(plan.original_request, "weather in Paris");
  assert.equal(
    plan.steps.map((s) => [s.step_id, s.agent_name, s.metadata.capability, s.depends_on, s.on_error]),
    [
      ["s1", "geo", "locate", [], "continue"],
      ["s2", "weather", "current", ["s1"], "continue"],
    ],
  );
  // Parameters keep their templates: the executor resolves them.
  assert.is(plan.steps[1]!.metadata.parameters["lat"], "{{s1.response.data.lat}}");
});

check("an unknown agent is a hallucination, with a suggestion, and names nothing else about that step", () => {
  const result = checker({ steps: [step("s1", "weathr", "current", { lat: 1, lon: 2 })] }, "x");
  assert.is(result.plan, undefined);
  assert.equal(result.hallucinated, ["weathr"]);
  assert.equal(result.problems, [
    { pointer: "/steps/0/agent_name", message: "no component is named weathr (did you mean weather?); use only agent_name values from the catalog" },
  ]);
});

check("unknown and internal capabilities", () => {
  const unknown = checker({ steps: [step("s1", "geo", "find", { city: "x" })] }, "x");
  assert.is(unknown.problems[0]?.pointer, "/steps/0/metadata/capability");
  assert.match(unknown.problems[0]!.message, /has no capability `find`.*locate/);
  const internal = checker({ steps: [step("s1", "geo", "purge", {})] }, "x");
  assert.equal(internal.problems, [{ pointer: "/steps/0/metadata/capability", message: "geo.purge is internal: plans may not call it" }]);
});

check("parameters that do not fit the input: missing, undeclared, mistyped literal, value outside the enum", () => {
  const { problems } = checker({ steps: [step("s1", "weather", "current", { lat: "north", units: "kelvin", zoom: 3 })] }, "x");
  const at = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
  assert.match(at["/steps/0/metadata/parameters"] ?? "", /required input `lon`/);
  assert.match(at["/steps/0/metadata/parameters/zoom"] ?? "", /no input `zoom`/);
  assert.match(at["/steps/0/metadata/parameters/lat"] ?? "", /number/);
  assert.match(at["/steps/0/metadata/parameters/units"] ?? "", /`steps\[0\]\.metadata\.parameters\.units`.*"kelvin" is not one of "metric", "imperial"/);
  assert.is(problems.length, 4, JSON.stringify(problems));
});

check("templates are checked symbolically against output summaries: unknown step, absent field, wrong type", () => {
  const { problems } = checker(
    {
      steps: [
        step("s1", "geo", "locate", { city: "Paris" }),
        step("s2", "weather", "current", { lat: "{{s9.response.data.lat}}", lon: "{{s1.response.data.longitude}}" }),
        step("s3", "geo", "locate", { city: "{{s1.response.data.lat}}" }),
      ],
    },
    "x",
  );
  const at = Object.fromEntries(problems.map((p) => [p.pointer, p.message]));
  assert.match(at["/steps/1/metadata/parameters/lat"] ?? "", /s9/);
  assert.match(at["/steps/1/metadata/parameters/lon"] ?? "", /longitude/);
  assert.match(at["/steps/2/metadata/parameters/city"] ?? "", /number/);
  assert.ok(
    problems.every((p) => !p.message.includes("${")),
    "messages speak the plan's {{…}} syntax",
  );
});

check("malformed templates, cycles, duplicate ids and bad shapes", () => {
  const bad = checker(
    { steps: [step("s1", "geo", "locate", { city: "{{input.city}}" }), step("s2", "geo", "locate", { city: "{{s1.response.data.items.0}}" })] },
    "x",
  );
  assert.match(bad.problems.map((p) => p.message).join("\n"), /no inputs[\s\S]*array indexes/);
  const cycle = checker({ steps: [step("a", "geo", "locate", { city: "x" }, ["b"]), step("b", "geo", "locate", { city: "y" }, ["a"])] }, "x");
  assert.match(cycle.problems.map((p) => p.message).join("\n"), /cycle/);
  const dup = checker({ steps: [step("s1", "geo", "locate", { city: "x" }), step("s1", "geo", "locate", { city: "y" })] }, "x");
  assert.equal(dup.problems[0], {
    pointer: "/steps/1/step_id",
    message: "duplicate step id s1: every step needs its own id, and earlier phases' ids are taken",
  });
  const shape = checker({ steps: [{ step_id: "has space", agent_name: 3, metadata: { capability: "locate", parameters: [] } }] }, "x");
  assert.equal(
    shape.problems.map((p) => p.pointer),
    ["/steps/0/step_id", "/steps/0/agent_name", "/steps/0/metadata/parameters"],
  );
  assert.equal(checker({ nope: 1 }, "x").problems, [{ pointer: "/steps", message: "must be an array of steps" }]);
  assert.equal(checker({ steps: Array.from({ length: 51 }, (_, i) => step(`s${i}`, "geo", "locate", { city: "x" })) }, "x").problems[0]?.pointer, "/steps");
});

check("a literal ${ in a parameter is text, not an expression", () => {
  const { problems } = checker({ steps: [step("s1", "geo", "locate", { city: "costs ${5}" })] }, "x");
  assert.equal(problems, []);
});

check("an empty plan is valid: the model needs no capability", () => {
  assert.equal(checker({ steps: [] }, "hello").plan?.steps, []);
});

check.run();

const parse = suite("natural plan text");
parse("JSON, fenced JSON, and what is not a plan", () => {
  assert.equal(parsePlanText('{"steps": []}').value, { steps: [] });
  assert.equal(parsePlanText('```json\n{"steps": []}\n```').value, { steps: [] });
  assert.match(parsePlanText("Sure! Here is the plan").problem ?? "", /not JSON/);
  assert.is(parsePlanText("[1]").problem, "it is not a JSON object");
  assert.is(parsePlanText('{"plan": []}').problem, 'it has no "steps" array');
});
parse.run();
