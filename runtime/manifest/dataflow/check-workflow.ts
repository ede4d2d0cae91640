/**
 * The static data-flow check of one workflow (DESIGN §2): every reference resolves, every required
 * capability input is bound, types agree, the step graph is acyclic. It is pure and positions
 * nothing itself: each issue carries a path into the document (and an offset inside a string), which
 * gen maps to line:column and the YAML engine returns as is.
 *
 * Rules decided here (also in docs/diagnostics.md):
 * - a step that references another step's output depends on it, and the spec's `dependsOn` lists it;
 *   when `depends_on` does not already order the two (directly or through other steps), that is a
 *   warning (MF1411);
 * - a declared input that nothing references is a warning (MF1412); so is a step whose output is
 *   referenced by no step and no workflow output and on which no step depends (MF1413): its result is
 *   thrown away, which is a forgotten output or a leftover step. Reference its output under `outputs`
 *   to keep a step that is run for its effect;
 * - a step calling a component `isBroken` reports nothing more and withholds the spec (the broken
 *   manifest has its own diagnostics).
 */
import { parseDuration } from "../../spec/index.js";
import type { ComponentKind, WorkflowInputSpec, WorkflowOutputSpec, WorkflowSpec, WorkflowStepSpec } from "../../spec/index.js";
import { WORKFLOW_CHECK_CODES } from "./codes.js";
import { dependenciesOf, findCycles, skippableSteps, type Edge } from "./graph.js";
import { inferValue } from "./outputs.js";
import type { DocumentPath } from "./paths.js";
import { walkValue, type Found, type Report, type Scope, type StepEntry } from "./references.js";
import { closest } from "./suggest.js";
import type { CapabilityView, CheckContext, CheckResult, WorkflowDocument, WorkflowIssue, WorkflowStepDocument } from "./types.js";
import { fieldNames, findField, inputShape } from "./value-types.js";

/** Where an edge of the step graph was written. */
interface Where {
  readonly path: DocumentPath;
  readonly offset?: number;
}

interface StepState {
  readonly entry: StepEntry;
  readonly kind?: ComponentKind;
  /** Calls a broken component: no spec, nothing more reported. */
  readonly blocked: boolean;
}

function didYouMean(name: string, candidates: readonly string[]): string {
  const guess = closest(name, candidates);
  return guess === undefined ? "" : ` (did you mean \`${guess}\`?)`;
}

/** The step graph: explicit `depends_on` edges plus those references add, and what is depended on. */
interface StepGraph {
  readonly graph: Map<string, Edge<Where>[]>;
  /** Steps some `depends_on` lists. */
  readonly dependedOn: ReadonlySet<string>;
  /** Whether `depends_on` alone (directly or through other steps) orders `from` after `to`. */
  readonly ordered: (from: string) => ReadonlySet<string>;
}

/** What the bindings and outputs reference. */
interface Usage {
  readonly referenced: ReadonlySet<string>;
  readonly usedInputs: ReadonlySet<string>;
}

export function checkWorkflow(doc: WorkflowDocument, context: CheckContext): CheckResult {
  const issues: WorkflowIssue[] = [];
  const report: Report = (code, path, message, extra = {}) => {
    issues.push({ code, severity: WORKFLOW_CHECK_CODES[code].severity, path, message, ...extra });
  };
  const states = resolveSteps(doc, context, report, issues);
  const scope: Scope = { inputs: doc.inputs, steps: new Map([...states].map(([name, state]) => [name, state.entry])) };
  const stepNames = [...states.keys()];
  const steps = explicitGraph(states, report);
  const usage = noteReferences(doc, states, scope, steps, report);
  reportCycles(stepNames, steps.graph, report);
  reportUnused(doc, states, usage, steps.dependedOn, report);

  const blocked = [...states.values()].some((s) => s.blocked);
  if (blocked || issues.some((i) => i.severity === "error")) return { issues };
  return { issues, spec: workflowSpec(doc, states, scope, steps.graph) };
}

/** Each step's component and capability, in order; a duplicate name is reported and the first declaration kept. */
function resolveSteps(doc: WorkflowDocument, context: CheckContext, report: Report, issues: WorkflowIssue[]): Map<string, StepState> {
  // Duplicate names: the first declaration is the one references resolve to.
  const states = new Map<string, StepState>();
  doc.steps.forEach((step, index) => {
    const first = states.get(step.name);
    if (first !== undefined) {
      issues.push({
        code: "MF1314",
        severity: "error",
        path: ["steps", index, "name"],
        message: `step \`${step.name}\` is declared twice (first as steps[${first.entry.index}])`,
      });
      return;
    }
    states.set(step.name, resolveStep(step, index, context, report));
  });
  return states;
}

/** The `depends_on` edges of every step, first: whether a reference is implied by them needs them all. */
function explicitGraph(states: ReadonlyMap<string, StepState>, report: Report): StepGraph {
  const stepNames = [...states.keys()];
  const graph = new Map<string, Edge<Where>[]>(stepNames.map((name) => [name, []]));
  const dependedOn = new Set<string>();
  for (const [name, { entry }] of states) {
    (entry.doc.depends_on ?? []).forEach((dependency, j) => {
      const path: DocumentPath = ["steps", entry.index, "depends_on", j];
      if (!states.has(dependency)) {
        report("MF1414", path, `step \`${name}\` depends on \`${dependency}\`, which is not a step of this workflow${didYouMean(dependency, stepNames)}`);
        return;
      }
      dependedOn.add(dependency);
      graph.get(name)!.push({ to: dependency, where: { path } });
    });
  }
  const explicit = new Map([...graph].map(([name, edges]) => [name, [...edges]]));
  const closures = new Map<string, ReadonlySet<string>>();
  const ordered = (name: string): ReadonlySet<string> => {
    let closure = closures.get(name);
    if (closure === undefined) closures.set(name, (closure = dependenciesOf(name, explicit)));
    return closure;
  };
  return { graph, dependedOn, ordered };
}

/**
 * Checks every step's bindings and the outputs, and notes what they reference: a reference to another
 * step is a dependency too, added to the graph (with MF1411 when `depends_on` did not already order the two).
 */
function noteReferences(doc: WorkflowDocument, states: ReadonlyMap<string, StepState>, scope: Scope, { graph, ordered }: StepGraph, report: Report): Usage {
  const referenced = new Set<string>();
  const usedInputs = new Set<string>();
  const note = (found: readonly Found[], from: string | undefined): void => {
    for (const { expression, path } of found) {
      const { reference, offset } = expression;
      if (reference.kind === "input") {
        usedInputs.add(reference.name);
        continue;
      }
      if (!states.has(reference.step)) continue;
      referenced.add(reference.step);
      if (from === undefined) continue;
      const edges = graph.get(from)!;
      if (edges.some((e) => e.to === reference.step)) continue;
      edges.push({ to: reference.step, where: { path, offset } });
      // Added either way; worth a warning only when `depends_on` did not already order the two steps.
      if (reference.step === from || ordered(from).has(reference.step)) continue;
      report(
        "MF1411",
        path,
        `step \`${from}\` uses \`\${${expression.source}}\` but does not list \`${reference.step}\` in \`depends_on\`; the dependency is added`,
        { offset },
      );
    }
  };
  for (const [name, state] of states) {
    const { doc: step, index } = state.entry;
    if (step.timeout !== undefined && parseDuration(step.timeout) === undefined) {
      report("MF1418", ["steps", index, "timeout"], `timeout \`${step.timeout}\` of step \`${name}\` is not a duration that fits in milliseconds`);
    }
    const found: Found[] = [];
    checkBindings(state, scope, report, found);
    note(found, name);
  }
  const outputFound: Found[] = [];
  for (const [key, value] of Object.entries(doc.outputs)) walkValue(value, undefined, ["outputs", key], scope, report, outputFound);
  note(outputFound, undefined);
  return { referenced, usedInputs };
}

function reportCycles(stepNames: readonly string[], graph: ReadonlyMap<string, readonly Edge<Where>[]>, report: Report): void {
  for (const cycle of findCycles(stepNames, graph)) {
    // The graph points from a step to what it needs; the message reads in the direction data flows.
    const flow = [...cycle.steps].reverse();
    report(
      "MF1410",
      cycle.where.path,
      `steps depend on each other in a cycle: ${flow.join(" → ")}`,
      cycle.where.offset === undefined ? {} : { offset: cycle.where.offset },
    );
  }
}

/** MF1412 for inputs nothing references, MF1413 for steps whose output nothing uses. */
function reportUnused(
  doc: WorkflowDocument,
  states: ReadonlyMap<string, StepState>,
  { referenced, usedInputs }: Usage,
  dependedOn: ReadonlySet<string>,
  report: Report,
): void {
  for (const name of Object.keys(doc.inputs)) {
    if (!usedInputs.has(name))
      report("MF1412", ["inputs", name], `input \`${name}\` is declared but no step or output references \`\${inputs.${name}}\``, { at: "key" });
  }
  for (const [name, state] of states) {
    if (!referenced.has(name) && !dependedOn.has(name)) {
      report(
        "MF1413",
        ["steps", state.entry.index, "name"],
        `the output of step \`${name}\` is used by no step and no output, and no step depends on it; reference it under \`outputs\` or remove the step`,
      );
    }
  }
}

/** The spec of a workflow that checked without errors. */
function workflowSpec(
  doc: WorkflowDocument,
  states: ReadonlyMap<string, StepState>,
  scope: Scope,
  graph: ReadonlyMap<string, readonly Edge<Where>[]>,
): WorkflowSpec {
  const skippable = skippableSteps([...states.keys()], graph, (name) => states.get(name)!.entry.doc.on_error === "continue");
  const inputs: WorkflowInputSpec[] = Object.entries(doc.inputs).map(([name, input]) => {
    // `required` right after `type`, as before shapes were accepted: embedded specs stay byte-identical.
    const { type, ...shape } = inputShape(input);
    return { name, type, required: input.required ?? false, ...shape };
  });
  const steps: WorkflowStepSpec[] = [...states.values()].map(({ entry, kind }) => stepSpec(entry.doc, kind!, graph));
  const outputs: WorkflowOutputSpec[] = Object.entries(doc.outputs).map(([name, value]) => {
    const inferred = inferValue(value, ["outputs", name], scope, skippable);
    return { name, value, ...(inferred.type !== undefined && { type: inferred.type }), required: !inferred.optional };
  });
  return {
    name: doc.name,
    version: doc.version,
    ...(doc.description !== undefined && { description: doc.description }),
    inputs,
    steps,
    outputs,
  };
}

function resolveStep(step: WorkflowStepDocument, index: number, context: CheckContext, report: Report): StepState {
  const written: ComponentKind = step.tool !== undefined ? "tool" : "agent";
  const name = step.tool ?? step.agent ?? "";
  const componentPath: DocumentPath = ["steps", index, written];
  const unresolved = (blocked: boolean): StepState => ({ entry: { index, doc: step }, blocked });
  if (context.isBroken?.(name) === true) return unresolved(true);
  const component = context.component(name);
  if (component === undefined) {
    const hint = context.componentNames === undefined ? "" : didYouMean(name, context.componentNames());
    report("MF1403", componentPath, `step \`${step.name}\` calls \`${name}\`, but no tool or agent has that name${hint}`);
    return unresolved(false);
  }
  if (component.kind !== written) {
    report(
      "MF1416",
      componentPath,
      `\`${written}: ${name}\` names ${component.kind === "agent" ? "an agent" : "a tool"}; write \`${component.kind}: ${name}\``,
    );
  }
  if (context.allowed !== undefined && !context.allowed.has(name)) {
    report("MF1415", componentPath, `step \`${step.name}\` calls \`${name}\`, which the agent does not list in \`uses\``);
  }
  const capability = component.capabilities.find((c) => c.name === step.action);
  if (capability === undefined) {
    const names = component.capabilities.map((c) => c.name);
    const list = names.length === 0 ? `\`${name}\` has no capabilities` : `its capabilities: ${names.join(", ")}`;
    report("MF1404", ["steps", index, "action"], `\`${name}\` has no capability \`${step.action}\`${didYouMean(step.action, names)}; ${list}`);
    return { entry: { index, doc: step }, kind: component.kind, blocked: false };
  }
  return { entry: { index, doc: step, capability }, kind: component.kind, blocked: false };
}

function checkBindings({ entry }: StepState, scope: Scope, report: Report, found: Found[]): void {
  const { doc: step, index, capability } = entry;
  const given = step.inputs ?? {};
  const declared: CapabilityView["input"] = capability?.input;
  for (const [key, value] of Object.entries(given)) {
    const path: DocumentPath = ["steps", index, "inputs", key];
    const field = declared === undefined ? undefined : findField(declared, key);
    if (declared !== undefined && field === undefined) {
      const names = fieldNames(declared);
      const list = names.length === 0 ? "it takes no inputs" : `its inputs: ${names.join(", ")}`;
      report("MF1408", path, `\`${step.action}\` has no input \`${key}\`${didYouMean(key, names)}; ${list}`, { at: "key" });
    }
    walkValue(value, field?.spec, path, scope, report, found);
  }
  const missing = (declared?.required ?? []).filter((f) => !Object.hasOwn(given, f.name)).map((f) => `\`${f.name}\``);
  if (missing.length > 0) {
    const path: DocumentPath = step.inputs === undefined ? ["steps", index, "name"] : ["steps", index, "inputs"];
    report(
      "MF1407",
      path,
      `step \`${step.name}\` does not bind the required input${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of \`${step.action}\``,
    );
  }
}

function stepSpec(step: WorkflowStepDocument, kind: ComponentKind, graph: ReadonlyMap<string, readonly Edge<Where>[]>): WorkflowStepSpec {
  const dependsOn = [...new Set((graph.get(step.name) ?? []).map((e) => e.to))].sort();
  const timeoutMs = step.timeout === undefined ? undefined : parseDuration(step.timeout);
  return {
    name: step.name,
    component: (step.tool ?? step.agent)!,
    componentKind: kind,
    capability: step.action,
    inputs: step.inputs ?? {},
    dependsOn,
    ...(timeoutMs !== undefined && { timeoutMs }),
    retry: step.retry ?? 0,
    onError: step.on_error ?? "fail",
  };
}
