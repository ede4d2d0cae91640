/**
 * A scenario file (`scenarios/<name>.yaml`): the tools it needs, the user's request, the scripted
 * model's answers by request kind (the json_schema `name` of the request, DESIGN §5.3; synthesis is
 * text), and what counts as success. Loaded and checked here, so a malformed file fails loudly
 * rather than skewing the numbers.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { TOOLS } from "./tools/index.js";

export const CATEGORIES = ["wrong_format", "units", "enum_casing", "missing_lookup", "hallucinated_field", "second_phase", "missing_input"] as const;
export type Category = (typeof CATEGORIES)[number];

/** The kinds of structured request the scripted model answers (DESIGN §5.3), plus `synthesis` (text). */
export const KINDS = ["routing_plan", "error_analysis", "micro_resolution"] as const;
export type Kind = (typeof KINDS)[number];

/** One scripted answer: a JSON object (a plan may use the step shorthand), or `raw` text; `when` restricts it to requests whose last message contains that text. */
export type ModelEntry = Record<string, unknown> & { readonly when?: string; readonly raw?: string };

export interface ExpectedCall {
  readonly tool: string;
  readonly capability: string;
  /** A subset of what the tool received (deep equality on each given key). */
  readonly params?: Record<string, unknown>;
}

export interface Scenario {
  readonly name: string;
  readonly category: Category;
  /** The real-model failure it models, in a sentence or two. */
  readonly description: string;
  readonly tools: readonly string[];
  readonly request: string;
  readonly model: Partial<Record<Kind, readonly ModelEntry[]>> & {
    /** The final answer; said only when every `requires` text is in the synthesis prompt (the step results), else an apology. */
    readonly synthesis?: { readonly text: string; readonly requires?: readonly string[] };
  };
  readonly expect: {
    /** `needs_input`: the run ended with a clarification. @defaultValue completed */
    readonly status?: "completed" | "needs_input";
    /** Calls the tools must have answered with 2xx. */
    readonly calls?: readonly ExpectedCall[];
    /** `tool.capability` that must never have answered 2xx. */
    readonly never?: readonly string[];
    readonly answer_contains?: readonly string[];
  };
}

const ENTRY = { type: "object", properties: { when: { type: "string" }, raw: { type: "string" } } };
const CALL = {
  type: "object",
  required: ["tool", "capability"],
  additionalProperties: false,
  properties: { tool: { type: "string" }, capability: { type: "string" }, params: { type: "object" } },
};

export const SCENARIO_SCHEMA = {
  type: "object",
  required: ["category", "description", "tools", "request", "model", "expect"],
  additionalProperties: false,
  properties: {
    category: { enum: [...CATEGORIES] },
    description: { type: "string", minLength: 10 },
    tools: { type: "array", minItems: 1, items: { type: "string" } },
    request: { type: "string", minLength: 1 },
    model: {
      type: "object",
      required: ["routing_plan"],
      additionalProperties: false,
      properties: {
        routing_plan: { type: "array", minItems: 1, items: ENTRY },
        error_analysis: { type: "array", items: ENTRY },
        micro_resolution: { type: "array", items: ENTRY },
        synthesis: {
          type: "object",
          required: ["text"],
          additionalProperties: false,
          properties: { text: { type: "string" }, requires: { type: "array", items: { type: "string" } } },
        },
      },
    },
    expect: {
      type: "object",
      additionalProperties: false,
      minProperties: 1,
      properties: {
        status: { enum: ["completed", "needs_input"] },
        calls: { type: "array", items: CALL },
        never: { type: "array", items: { type: "string", pattern: "^[a-z0-9-]+\\.[a-z0-9_]+$" } },
        answer_contains: { type: "array", items: { type: "string" } },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(SCENARIO_SCHEMA);

/** The problems of one parsed scenario file: its schema, then what the schema cannot say (tool names). */
export function scenarioProblems(value: unknown): string[] {
  if (!validate(value)) return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? e.keyword}`);
  const scenario = value as Omit<Scenario, "name">;
  const problems: string[] = [];
  for (const tool of scenario.tools) if (TOOLS[tool] === undefined) problems.push(`/tools: no bench tool ${tool}`);
  for (const call of scenario.expect.calls ?? []) {
    const capability = TOOLS[call.tool]?.spec.capabilities.find((c) => c.name === call.capability);
    if (!scenario.tools.includes(call.tool) || capability === undefined)
      problems.push(`/expect/calls: ${call.tool}.${call.capability} is not among the scenario's tools`);
  }
  const succeeds = (scenario.expect.calls?.length ?? 0) + (scenario.expect.answer_contains?.length ?? 0) > 0;
  if (scenario.expect.status !== "needs_input" && !succeeds) problems.push("/expect: a completed scenario needs calls or answer_contains to judge it by");
  return problems;
}

export const SCENARIO_DIR = new URL("./scenarios/", import.meta.url).pathname;

/** Every scenario file, sorted by name; throws naming each malformed file. */
export async function loadScenarios(dir = SCENARIO_DIR): Promise<Scenario[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".yaml")).sort();
  const scenarios: Scenario[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const value: unknown = parse(await readFile(join(dir, file), "utf8"));
    const found = scenarioProblems(value);
    if (found.length > 0) problems.push(...found.map((p) => `${file}: ${p}`));
    else scenarios.push({ name: basename(file, ".yaml"), ...(value as Omit<Scenario, "name">) });
  }
  if (problems.length > 0) throw new Error(`malformed scenarios:\n${problems.join("\n")}`);
  return scenarios;
}
