/**
 * A language model's plan, checked against the live catalog before anything is dispatched, with the
 * same data-flow checker gen runs on workflow manifests: the plan is read as a workflow document
 * (`{{s.response.data.f}}` becomes `${steps.s.output.f}`), so unknown components (hallucinations),
 * unknown capabilities, unbound or undeclared inputs, references to unknown steps or to fields absent
 * from output summaries, type mismatches and cycles are found by one implementation. ajv then checks
 * the literal parameters against each capability's input schema for what the checker does not model
 * (enum values, nested shapes). Every problem has a JSON pointer into the plan and a sentence the model
 * can act on.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { escapeToken } from "../../component/index.js";
import { unfenceAnswer } from "../../llm/index.js";
import { checkWorkflow, closest, type CheckContext, type ComponentView, type WorkflowIssue } from "../../manifest/dataflow/index.js";
import { fieldsFromSummary, objectSchema, type CapabilityWire } from "../../spec/index.js";
import type { CatalogComponent } from "../catalog.js";
import { newPlanId, type Plan, type PlanStep } from "../plan.js";
import { lazyAjv } from "../../util/index.js";

/** Most steps a model may plan; a longer plan is a problem sent back, not a run. */
export const MAX_PLAN_STEPS = 50;
/** Most bytes of a plan's text: a longer answer is not parsed (the provider keeps no more of it). */
export const MAX_PLAN_BYTES = 64 * 1024;
/** Deepest nesting of a plan's JSON (the plan itself takes 4 levels), and most values in it. */
export const MAX_PLAN_DEPTH = 32;
export const MAX_PLAN_VALUES = 10_000;

/** Why a text is not a plan, as a fixed word (event attributes never quote the model). */
export type ParseReason = "not_json" | "not_object" | "no_steps" | "too_large" | "too_deep";

const UNPARSED = Symbol("unparsed plan");

/** What a proposal holds when the model's answer was not a plan at all: the checker reports `problem`. */
export function unparsedPlan(problem: string): Record<string, unknown> {
  return { [UNPARSED]: problem };
}

/**
 * Why `value` is too deep or too big to check, or undefined. Iterative: the checks after it recurse
 * (convertValue, ajv), and a plan nested 5,000 deep used to end in a RangeError and a 500.
 */
export function jsonTooLarge(value: unknown, { maxDepth = MAX_PLAN_DEPTH, maxValues = MAX_PLAN_VALUES } = {}): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  let values = 0;
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if ((values += 1) > maxValues) return `it has more than ${maxValues} values`;
    if (depth > maxDepth) return `it is nested deeper than ${maxDepth} levels`;
    if (typeof item === "object" && item !== null) for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return undefined;
}
const STEP_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface PlanProblem {
  /** JSON pointer into the model's plan. */
  readonly pointer: string;
  readonly message: string;
}

export interface PlanCheck {
  /** Present when there is no problem: the plan ready to run (mode natural, steps continue past failures). */
  readonly plan?: Plan;
  readonly problems: readonly PlanProblem[];
  /** Component names the plan used that no catalog entry has. */
  readonly hallucinated: readonly string[];
}

export type PlanChecker = (value: unknown, request: string) => PlanCheck;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The model's text as JSON: a fenced block (```json … ```) is unwrapped, since many models add one
 * even when asked not to. Anything else than an object with a `steps` array is a parse problem.
 */
export function parsePlanText(text: string): { readonly value?: Record<string, unknown>; readonly problem?: string; readonly reason?: ParseReason } {
  if (Buffer.byteLength(text) > MAX_PLAN_BYTES) return { problem: `it is longer than ${MAX_PLAN_BYTES} bytes; write a shorter plan`, reason: "too_large" };
  let value: unknown;
  try {
    // Not parseJsonAnswer: the correction prompt quotes the parser's own reason back to the model.
    value = JSON.parse(unfenceAnswer(text));
  } catch (error) {
    return { problem: `it is not JSON (${(error as Error).message.slice(0, 200)})`, reason: "not_json" };
  }
  if (!isObject(value)) return { problem: "it is not a JSON object", reason: "not_object" };
  const tooLarge = jsonTooLarge(value);
  if (tooLarge !== undefined) return { problem: tooLarge, reason: "too_deep" };
  // A clarification (a question for the user) is an answer without steps (phase-plan.ts checks it).
  if (!Array.isArray(value["steps"]) && !isObject(value["clarification"])) return { problem: 'it has no "steps" array', reason: "no_steps" };
  return { value };
}

/** `{{s.response.data.a}}` → `${steps.s.output.a}`; a reason when the template cannot be read that way. */
function toDollar(source: string): string | { readonly problem: string } {
  const parts = source.trim().split(".");
  const [head, second, third, ...rest] = parts;
  if (head === "input") return { problem: `{{${source}}}: a plan has no inputs; put the value in the parameter itself` };
  if (head === undefined || second !== "response" || (third !== undefined && third !== "data"))
    return { problem: `{{${source}}} is not a step reference: write {{<step_id>.response.data.<field>}}` };
  if (rest.some((part) => /^\d+$/.test(part))) return { problem: `{{${source}}}: array indexes are not supported; reference the whole field` };
  return `\${${["steps", head, "output", ...rest].join(".")}}`;
}

/**
 * A parameter value with its templates in the checker's syntax. A literal `${` in the model's text
 * is defused first: in a plan it is text, while the checker would read it as an expression.
 */
function convertValue(value: unknown, pointer: string, problems: PlanProblem[], templated: Set<string>): unknown {
  if (typeof value === "string") {
    if (!value.includes("{{")) return value.replaceAll("${", "$\u200b{");
    templated.add(pointer);
    let out = "";
    let from = 0;
    const text = value.replaceAll("${", "$\u200b{");
    for (;;) {
      const open = text.indexOf("{{", from);
      if (open === -1) break;
      const close = text.indexOf("}}", open + 2);
      if (close === -1) {
        problems.push({ pointer, message: "a {{ is not closed" });
        return "";
      }
      const converted = toDollar(text.slice(open + 2, close));
      if (typeof converted !== "string") {
        problems.push({ pointer, message: converted.problem });
        return "";
      }
      out += text.slice(from, open) + converted;
      from = close + 2;
    }
    return out + text.slice(from);
  }
  if (Array.isArray(value)) return value.map((item, i) => convertValue(item, `${pointer}/${i}`, problems, templated));
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, convertValue(item, `${pointer}/${escapeToken(key)}`, problems, templated)]));
  return value;
}

/** The checker's path as a pointer into the model's plan (its `action` is our `capability`, and so on). */
function pointerOf(issue: WorkflowIssue): string {
  const [first, index, field, ...rest] = issue.path;
  if (first !== "steps" || typeof index !== "number") return "";
  const at = `/steps/${index}`;
  const tail = rest.map((p) => `/${escapeToken(String(p))}`).join("");
  switch (field) {
    case "inputs":
      return `${at}/metadata/parameters${tail}`;
    case "action":
      return `${at}/metadata/capability`;
    case "tool":
    case "agent":
      return `${at}/agent_name`;
    case "depends_on":
      return `${at}/depends_on${tail}`;
    case "name":
      return `${at}/step_id`;
    default:
      return at;
  }
}

/** The checker speaks workflow manifests; the model wrote a plan. */
function inPlanTerms(message: string): string {
  return message
    .replace(/`\$\{steps\.([A-Za-z0-9_]+)\.output((?:\.[A-Za-z0-9_]+)*)\}`/g, (_m, step: string, fields: string) => `\`{{${step}.response.data${fields}}}\``)
    .replace(/`steps\[(\d+)\]\.inputs\./g, "`steps[$1].metadata.parameters.")
    .replaceAll("$\u200b{", "${")
    .replaceAll("`depends_on`", "depends_on")
    .replace(/^`(tool|agent): ([^`]+)` names/, "$2 names");
}

interface CatalogIndex {
  readonly context: CheckContext;
  readonly byName: ReadonlyMap<string, CatalogComponent>;
  readonly validators: Map<CapabilityWire, ValidateFunction | null>;
}

function indexCatalog(catalog: readonly CatalogComponent[]): CatalogIndex {
  const byName = new Map(catalog.map((component) => [component.name, component]));
  const views = new Map<string, ComponentView>();
  const view = (name: string): ComponentView | undefined => {
    let found = views.get(name);
    if (found === undefined) {
      const component = byName.get(name);
      if (component === undefined) return undefined;
      found = {
        kind: component.kind,
        capabilities: component.capabilities.map((wire) => ({
          name: wire.name,
          ...(wire.input_summary === undefined ? {} : { input: fieldsFromSummary(wire.input_summary) }),
          ...(wire.output_summary === undefined ? {} : { output: fieldsFromSummary(wire.output_summary) }),
        })),
      };
      views.set(name, found);
    }
    return found;
  };
  return { byName, context: { component: view, componentNames: () => [...byName.keys()] }, validators: new Map() };
}

// ajv made (and loaded) when a plan or step is first checked: an agent that starts loads none of it.
const ajv = lazyAjv({ allErrors: true, strict: false });

/**
 * A checker for one catalog (the full one: internal capabilities are named as such, not as unknown).
 * Views and validators are built on first use and kept with the checker, so checking a plan against
 * a catalog that did not change costs only the plan's own steps.
 */
export function createPlanChecker(catalog: readonly CatalogComponent[]): PlanChecker {
  const index = indexCatalog(catalog);
  return (value, request) => checkPlanValue(index, value, request);
}

function validatorOf({ validators }: CatalogIndex, wire: CapabilityWire): ValidateFunction | null {
  let validate = validators.get(wire);
  if (validate === undefined) {
    validate = wire.input_summary === undefined ? null : ajv().compile(objectSchema(fieldsFromSummary(wire.input_summary), "draft-07"));
    validators.set(wire, validate);
  }
  return validate;
}

/** One plan being checked: what it found so far. */
interface Checking {
  readonly problems: PlanProblem[];
  readonly hallucinated: Set<string>;
  /** The plan's steps as they will run. */
  readonly steps: PlanStep[];
  /** The plan read as a workflow document, for the data-flow checker. */
  readonly documentSteps: Record<string, unknown>[];
  /** Pointers of parameters holding templates (checked symbolically, not by ajv). */
  readonly templated: Set<string>;
  /** ajv's findings on literal parameters, reported unless the checker said the same. */
  readonly literal: PlanProblem[];
  readonly ids: Set<string>;
}

function checkPlanValue(index: CatalogIndex, value: unknown, request: string): PlanCheck {
  const unparsed = isObject(value) ? (value as { [UNPARSED]?: string })[UNPARSED] : undefined;
  if (unparsed !== undefined) return { problems: [{ pointer: "", message: `the answer is not a JSON plan: ${unparsed}` }], hallucinated: [] };
  // Plans reach the checker from elsewhere than parsePlanText too: the same bound before anything recurses.
  const tooLarge = jsonTooLarge(value);
  if (tooLarge !== undefined) return { problems: [{ pointer: "", message: `the plan cannot be checked: ${tooLarge}` }], hallucinated: [] };
  const raw = isObject(value) ? value["steps"] : undefined;
  if (!Array.isArray(raw)) return { problems: [{ pointer: "/steps", message: "must be an array of steps" }], hallucinated: [] };
  if (raw.length > MAX_PLAN_STEPS)
    return { problems: [{ pointer: "/steps", message: `has ${raw.length} steps; at most ${MAX_PLAN_STEPS}` }], hallucinated: [] };
  const checking: Checking = { problems: [], hallucinated: new Set(), steps: [], documentSteps: [], templated: new Set(), literal: [], ids: new Set() };
  raw.forEach((step: unknown, i) => checkStep(index, checking, step, `/steps/${i}`));
  addDataflowProblems(index, checking);
  const unique = uniqueProblems(checking.problems);
  if (unique.length > 0) return { problems: unique, hallucinated: [...checking.hallucinated] };
  return { plan: { plan_id: newPlanId("natural"), original_request: request, mode: "natural", steps: checking.steps }, problems: [], hallucinated: [] };
}

interface StepFields {
  readonly id: string;
  readonly name: string;
  readonly capability: string;
  readonly parameters: Record<string, unknown>;
  readonly dependsOn: string[];
}

/** The step's own shape: its fields, or undefined when one is malformed (each one reported). */
function stepFields(checking: Checking, step: unknown, at: string): StepFields | undefined {
  if (!isObject(step)) {
    checking.problems.push({ pointer: at, message: "must be an object" });
    return undefined;
  }
  const id = step["step_id"];
  const agentName = step["agent_name"];
  const metadata = isObject(step["metadata"]) ? step["metadata"] : {};
  const capability = metadata["capability"];
  const parameters = metadata["parameters"] ?? {};
  const dependsOn = step["depends_on"] ?? [];
  let ok = true;
  const problem = (pointer: string, message: string): void => {
    ok = false;
    checking.problems.push({ pointer, message });
  };
  if (typeof id !== "string" || !STEP_ID.test(id)) problem(`${at}/step_id`, "must be an identifier of letters, digits and underscores (s1, s2, …)");
  else if (id === "input") problem(`${at}/step_id`, "input is reserved; use another id");
  else if (checking.ids.has(id)) problem(`${at}/step_id`, `duplicate step id ${id}: every step needs its own id, and earlier phases' ids are taken`);
  if (typeof agentName !== "string" || agentName === "") problem(`${at}/agent_name`, "must be the name of a component from the catalog");
  if (typeof capability !== "string" || capability === "") problem(`${at}/metadata/capability`, "must be the name of a capability from the catalog");
  if (!isObject(parameters)) problem(`${at}/metadata/parameters`, "must be an object");
  if (!Array.isArray(dependsOn) || !dependsOn.every((d) => typeof d === "string")) problem(`${at}/depends_on`, "must be an array of step ids");
  if (!ok) return undefined;
  return {
    id: id as string,
    name: agentName as string,
    capability: capability as string,
    parameters: parameters as Record<string, unknown>,
    dependsOn: dependsOn as string[],
  };
}

function checkStep(index: CatalogIndex, checking: Checking, step: unknown, at: string): void {
  const fields = stepFields(checking, step, at);
  if (fields === undefined) return;
  const { id, name, capability, parameters, dependsOn } = fields;
  checking.ids.add(id);
  const component = index.byName.get(name);
  const wire = component?.capabilities.find((c) => c.name === capability);
  if (component === undefined) {
    checking.hallucinated.add(name);
    const guess = closest(name, [...index.byName.keys()]);
    checking.problems.push({
      pointer: `${at}/agent_name`,
      message: `no component is named ${name}${guess === undefined ? "" : ` (did you mean ${guess}?)`}; use only agent_name values from the catalog`,
    });
  } else if (wire?.internal === true) {
    checking.problems.push({ pointer: `${at}/metadata/capability`, message: `${name}.${capability} is internal: plans may not call it` });
  }
  // Every well-formed step goes to the checker, so references to it resolve; one calling an
  // unknown component is "broken" there: reported once above, nothing more about it.
  checking.documentSteps.push({
    name: id,
    [component?.kind ?? "tool"]: name,
    action: capability,
    inputs: convertValue(parameters, `${at}/metadata/parameters`, checking.problems, checking.templated),
    depends_on: dependsOn,
  });
  checking.steps.push({ step_id: id, agent_name: name, depends_on: dependsOn, metadata: { capability, parameters }, on_error: "continue" });
  if (wire !== undefined && !wire.internal) checkLiterals(index, checking, wire, parameters, at);
}

/** Literal values against the input schema; templated ones are the checker's (symbolically). */
function checkLiterals(index: CatalogIndex, checking: Checking, wire: CapabilityWire, parameters: Record<string, unknown>, at: string): void {
  const validate = validatorOf(index, wire);
  if (validate === null || validate(parameters)) return;
  for (const error of validate.errors ?? []) {
    const pointer = `${at}/metadata/parameters${pointerOfAjv(error)}`;
    if (error.instancePath === "" && (error.keyword === "required" || error.keyword === "additionalProperties")) continue;
    if ([...checking.templated].some((t) => pointer === t || pointer.startsWith(`${t}/`))) continue;
    checking.literal.push({ pointer, message: ajvMessage(error) });
  }
}

/** The plan as a workflow document through the data-flow checker; then ajv's findings on places it did not report. */
function addDataflowProblems({ context }: CatalogIndex, checking: Checking): void {
  const checked = checkWorkflow(
    { kind: "workflow", name: "plan", version: "1", inputs: {}, steps: checking.documentSteps as never, outputs: {} },
    { ...context, isBroken: (name) => checking.hallucinated.has(name) },
  );
  const reported = new Set<string>();
  for (const issue of checked.issues) {
    if (issue.severity !== "error") continue;
    const pointer = pointerOf(issue);
    checking.problems.push({ pointer, message: inPlanTerms(issue.message) });
    reported.add(pointer);
  }
  // ajv may find a literal the checker already called mistyped: one sentence per place is enough.
  for (const found of checking.literal) if (!reported.has(found.pointer)) checking.problems.push(found);
}

function uniqueProblems(problems: readonly PlanProblem[]): PlanProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.pointer}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function pointerOfAjv(error: ErrorObject): string {
  if (error.keyword === "required") return `${error.instancePath}/${escapeToken(String(error.params["missingProperty"]))}`;
  if (error.keyword === "additionalProperties") return `${error.instancePath}/${escapeToken(String(error.params["additionalProperty"]))}`;
  return error.instancePath;
}

function ajvMessage(error: ErrorObject): string {
  if (error.keyword === "required") return "is required";
  if (error.keyword === "additionalProperties") return "is not an allowed property";
  if (error.keyword === "enum") return `must be one of ${(error.params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  return error.message ?? `violates ${error.keyword}`;
}
