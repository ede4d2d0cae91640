/**
 * What checking a language model's plan costs before dispatch: a 10-step plan (a chain whose steps
 * read the previous step's output through templates, plus literal parameters) against a catalog of
 * 200 capabilities on 20 components. Compared in the same run with the naive alternative, ajv alone
 * on each step's parameters (which catches no hallucinated field reference, wrong template type or
 * cycle), so the ratio is the price of the data-flow analysis.
 *
 *   npx tsx --conditions=source bench/orchestration/plan-check.ts     BENCH_RUNS=5000
 */
import { Ajv } from "ajv";
import { createPlanChecker, type CatalogComponent } from "../../runtime/orchestration/index.js";
import { capabilityWire, fieldsFromSummary, objectSchema, type CapabilitySpec } from "../../runtime/spec/index.js";

const RUNS = Number(process.env["BENCH_RUNS"] ?? 5_000);
const COMPONENTS = 20;
const PER_COMPONENT = 10;

const capability = (name: string): CapabilitySpec => ({
  name,
  key: name,
  description: `capability ${name}`,
  type: "tool",
  internal: false,
  endpoint: `/api/capabilities/${name}`,
  input: {
    required: [
      { name: "value", type: "number" },
      { name: "label", type: "string" },
    ],
    optional: [
      { name: "mode", type: "string", enum: ["fast", "exact"] },
      { name: "tags", type: "array", items: { type: "string" } },
    ],
  },
  output: { required: [{ name: "value", type: "number" }], optional: [{ name: "label", type: "string" }] },
});

export function benchCatalog(): CatalogComponent[] {
  return Array.from({ length: COMPONENTS }, (_, c) => ({
    name: `tool-${c}`,
    kind: "tool" as const,
    description: `tool ${c}`,
    capabilities: Array.from({ length: PER_COMPONENT }, (_, k) => capabilityWire(capability(`op_${c}_${k}`))),
  }));
}

/** Ten steps over ten components: step i reads step i−1's `value`, the rest are literals. */
export function benchPlan(): { steps: unknown[] } {
  return {
    steps: Array.from({ length: 10 }, (_, i) => ({
      step_id: `s${i}`,
      agent_name: `tool-${i * 2}`,
      depends_on: i === 0 ? [] : [`s${i - 1}`],
      metadata: {
        capability: `op_${i * 2}_${i}`,
        parameters: { value: i === 0 ? 1 : `{{s${i - 1}.response.data.value}}`, label: `step ${i}`, mode: "fast", tags: ["a", "b"] },
      },
    })),
  };
}

const catalog = benchCatalog();
const plan = benchPlan();
const checker = createPlanChecker(catalog);
const first = checker(plan, "bench");
if (first.problems.length > 0) throw new Error(`the bench plan must check: ${JSON.stringify(first.problems)}`);

// The alternative: one compiled ajv validator per capability, each step's parameters validated
// with the templated fields left out (ajv cannot know what a template will hold).
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map(
  catalog.flatMap((c) => c.capabilities.map((w) => [`${c.name}/${w.name}`, ajv.compile(objectSchema(fieldsFromSummary(w.input_summary!), "draft-07"))])),
);
const ajvOnly = (value: { steps: unknown[] }): number => {
  let errors = 0;
  for (const step of value.steps as { agent_name: string; metadata: { capability: string; parameters: Record<string, unknown> } }[]) {
    const validate = validators.get(`${step.agent_name}/${step.metadata.capability}`);
    const literal = Object.fromEntries(Object.entries(step.metadata.parameters).map(([k, v]) => [k, typeof v === "string" && v.includes("{{") ? 0 : v]));
    if (validate === undefined || !validate(literal)) errors += 1;
  }
  return errors;
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

for (let i = 0; i < 500; i += 1) {
  checker(plan, "bench");
  ajvOnly(plan);
}
const full: number[] = [];
const naive: number[] = [];
for (let i = 0; i < RUNS; i += 1) {
  let started = performance.now();
  checker(plan, "bench");
  full.push(performance.now() - started);
  started = performance.now();
  ajvOnly(plan);
  naive.push(performance.now() - started);
}
// A fresh checker per catalog change pays for building views and compiling validators once.
const coldStarted = performance.now();
createPlanChecker(benchCatalog())(plan, "bench");
const cold = performance.now() - coldStarted;

const f = median(full);
const n = median(naive);
console.log(`node ${process.version}; 10-step plan, catalog of ${COMPONENTS * PER_COMPONENT} capabilities, median of ${RUNS} runs\n`);
console.log(`${"check".padEnd(34)}${"ms".padStart(10)}`);
console.log(`${"ajv only (the naive alternative)".padEnd(34)}${n.toFixed(4).padStart(10)}`);
console.log(`${"Manifold plan check".padEnd(34)}${f.toFixed(4).padStart(10)}`);
console.log(`${"first check after a catalog change".padEnd(34)}${cold.toFixed(4).padStart(10)}`);
console.log(`\nratio (plan check / ajv only): ${(f / n).toFixed(2)}; aim: plan check under 1 ms`);
