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

/**
 * One scripted answer: a JSON object (a plan may use the step shorthand), or `raw` text. It is given
 * only to a request whose whole prompt (every message, system included) contains `when`, does not
 * contain `when_not`, and contains every `requires` fact.
 */
export type ModelEntry = Record<string, unknown> & {
  readonly when?: string;
  readonly when_not?: string;
  readonly requires?: readonly string[];
  readonly raw?: string;
};

export interface ExpectedCall {
  readonly tool: string;
  readonly capability: string;
  /** A subset of what the tool received (deep equality on each given key). */
  readonly params?: Record<string, unknown>;
  /** Exactly this many 2xx calls of `tool.capability`, whatever their parameters. */
  readonly times?: number;
  /** At most this many 2xx calls of `tool.capability` (a duplicate side effect is a failure). */
  readonly at_most?: number;
}

export interface Scenario {
  readonly name: string;
  readonly category: Category;
  /** The real-model failure it models, in a sentence or two. */
  readonly description: string;
  readonly tools: readonly string[];
  readonly request: string;
  readonly model: {
    /** The answer to the first planning request of a run (nothing has run yet): the first entry whose guards fit. */
    readonly first_plan: readonly ModelEntry[];
    /** Later planning requests (regenerations after a refused plan, continuations), each entry given once. */
    readonly routing_plan?: readonly ModelEntry[];
    readonly error_analysis?: readonly ModelEntry[];
    readonly micro_resolution?: readonly ModelEntry[];
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
    /** Facts the user must be told; mandatory for a completed scenario. */
    readonly answer_contains?: readonly string[];
  };
}

const GUARDS = { when: { type: "string", minLength: 1 }, when_not: { type: "string", minLength: 1 }, raw: { type: "string" } };
const FACTS = { type: "array", minItems: 1, items: { type: "string", minLength: 1 } };
const FIRST = { type: "object", properties: { ...GUARDS, requires: FACTS } };
/** Every answer after the first plan depends on what the orchestrator sent: its facts are mandatory. */
const FOLLOW_UP = { type: "object", required: ["requires"], properties: { ...GUARDS, requires: FACTS } };
const COUNT = { type: "integer", minimum: 0 };
const CALL = {
  type: "object",
  required: ["tool", "capability"],
  additionalProperties: false,
  properties: { tool: { type: "string" }, capability: { type: "string" }, params: { type: "object" }, times: COUNT, at_most: COUNT },
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
      required: ["first_plan"],
      additionalProperties: false,
      properties: {
        first_plan: { type: "array", minItems: 1, items: FIRST },
        routing_plan: { type: "array", items: FOLLOW_UP },
        error_analysis: { type: "array", items: FOLLOW_UP },
        micro_resolution: { type: "array", items: FOLLOW_UP },
        synthesis: {
          type: "object",
          required: ["text"],
          additionalProperties: false,
          properties: { text: { type: "string" }, requires: FACTS },
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
        answer_contains: { type: "array", items: { type: "string", minLength: 1 } },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(SCENARIO_SCHEMA);

const guarded = (entry: ModelEntry): boolean => entry.when !== undefined || entry.when_not !== undefined || (entry.requires?.length ?? 0) > 0;

/** What the schema cannot say: an entry no request can reach, or a fact the user's request alone supplies. */
function entryProblems(scenario: Omit<Scenario, "name">): string[] {
  const problems: string[] = [];
  const lists = Object.entries(scenario.model).filter(([kind]) => kind !== "synthesis") as [string, readonly ModelEntry[]][];
  for (const [kind, entries] of lists) {
    const open = entries.findIndex((entry) => !guarded(entry));
    if (open !== -1 && open < entries.length - 1) problems.push(`/model/${kind}/${open + 1}: unreachable, the entry before it has no guard`);
    entries.forEach((entry, i) => {
      for (const fact of entry.requires ?? [])
        if (scenario.request.includes(fact)) problems.push(`/model/${kind}/${i}: requires "${fact}", which the user's request already says`);
    });
  }
  return problems;
}

/** The problems of one parsed scenario file: its schema, then what the schema cannot say (tool names, reachability, judging). */
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
  problems.push(...entryProblems(scenario));
  for (const fact of scenario.model.synthesis?.requires ?? [])
    if (scenario.request.includes(fact)) problems.push(`/model/synthesis: requires "${fact}", which the user's request already says`);
  if (scenario.expect.status !== "needs_input" && (scenario.expect.answer_contains?.length ?? 0) === 0)
    problems.push("/expect: a completed scenario needs answer_contains (what the user must be told)");
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
