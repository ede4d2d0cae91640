/**
 * Walking values that may hold `${…}`: every expression is parsed and resolved against the workflow's
 * inputs and steps, and a value bound to a typed capability input is type-checked (whole-value
 * references by the widening rules of value-types.ts, literals exactly, text only where a string fits).
 */
import type { FieldsSpec, ValueSpec } from "../../spec/index.js";
import type { WorkflowCheckCode } from "./codes.js";
import { hasExpression, parseTemplate, type ParsedExpression } from "./expressions.js";
import { displayPath, type DocumentPath } from "./paths.js";
import { closest } from "./suggest.js";
import type { CapabilityView, WorkflowInputDocument, WorkflowStepDocument } from "./types.js";
import { describeSpec, fieldNames, findField, inputShape, literalMismatch, mismatch } from "./value-types.js";

export interface StepEntry {
  readonly index: number;
  readonly doc: WorkflowStepDocument;
  /** Undefined when the component or capability could not be resolved: references into it are untyped. */
  readonly capability?: CapabilityView;
}

export interface Scope {
  readonly inputs: Readonly<Record<string, WorkflowInputDocument>>;
  /** First declaration of each step name. */
  readonly steps: ReadonlyMap<string, StepEntry>;
}

/** What a reference points at. */
export interface Resolved {
  /** Undefined: unknown statically (free-form output, untyped object). */
  readonly type?: ValueSpec;
  /** The value may be absent because the path goes through an optional input or field. */
  readonly optional: boolean;
}

export interface ReportExtra {
  readonly offset?: number;
  readonly at?: "key";
}

export type Report = (code: WorkflowCheckCode, path: DocumentPath, message: string, extra?: ReportExtra) => void;

/** A reference found while walking, with where it was written. */
export interface Found {
  readonly expression: ParsedExpression;
  readonly path: DocumentPath;
  readonly resolved?: Resolved;
}

function didYouMean(name: string, candidates: readonly string[]): string {
  const guess = closest(name, candidates);
  return guess === undefined ? "" : ` (did you mean \`${guess}\`?)`;
}

function outputSpec(fields: FieldsSpec | undefined): ValueSpec | undefined {
  return fields === undefined ? undefined : { type: "object", fields };
}

/** The type of `${…}`, or a reported problem (then undefined). */
export function resolve(expression: ParsedExpression, path: DocumentPath, scope: Scope, report: Report): Resolved | undefined {
  const { reference, offset } = expression;
  const at = `\`\${${expression.source}}\``;
  if (reference.kind === "input") {
    const input = scope.inputs[reference.name];
    if (input === undefined || !Object.hasOwn(scope.inputs, reference.name)) {
      const declared = Object.keys(scope.inputs);
      const list = declared.length === 0 ? "the workflow declares no inputs" : `declared: ${declared.join(", ")}`;
      report("MF1401", path, `${at} names no workflow input${didYouMean(reference.name, declared)}; ${list}`, { offset });
      return undefined;
    }
    return { type: inputShape(input), optional: input.required !== true };
  }
  const step = scope.steps.get(reference.step);
  if (step === undefined) {
    report("MF1402", path, `${at} names no step${didYouMean(reference.step, [...scope.steps.keys()])}`, { offset });
    return undefined;
  }
  if (step.capability === undefined) return { optional: false };
  let current = outputSpec(step.capability.output);
  let optional = false;
  const walked: string[] = [];
  for (const name of reference.fields) {
    if (current === undefined || current.type === "any") return { optional };
    const where = walked.length === 0 ? `the output of \`${step.doc.action}\`` : `\`${walked.join(".")}\``;
    if (current.type !== "object") {
      report("MF1406", path, `${at}: ${where} is ${describeSpec(current)}; it has no field \`${name}\``, { offset });
      return undefined;
    }
    if (current.fields === undefined) return { optional };
    const field = findField(current.fields, name);
    if (field === undefined) {
      const names = fieldNames(current.fields);
      const list = names.length === 0 ? "it declares no fields" : `fields: ${names.join(", ")}`;
      report("MF1406", path, `${at}: ${where} has no field \`${name}\`${didYouMean(name, names)}; ${list}`, { offset });
      return undefined;
    }
    optional ||= !field.required;
    walked.push(name);
    current = field.spec;
  }
  return current === undefined ? { optional } : { type: current, optional };
}

/**
 * Walks `value` (a step input or a workflow output), resolving every expression into `found` and,
 * when `target` is known, reporting what does not fit it.
 */
export function walkValue(value: unknown, target: ValueSpec | undefined, path: DocumentPath, scope: Scope, report: Report, found: Found[]): void {
  const expects = (): string => `\`${displayPath(path)}\` expects ${target === undefined ? "" : describeSpec(target)}`;
  if (typeof value === "string") {
    const template = parseTemplate(value);
    for (const problem of template.problems) report("MF1405", path, problem.message, { offset: problem.offset });
    const resolved = template.expressions.map((expression) => {
      const result = resolve(expression, path, scope, report);
      found.push({ expression, path, ...(result !== undefined && { resolved: result }) });
      return result;
    });
    if (target === undefined || template.problems.length > 0) return;
    if (template.whole) {
      const source = resolved[0]?.type;
      // A workflow input is checked against its declared shape when the workflow is called, so that
      // shape must be as precise as the target's; a step's output is checked by the step it feeds.
      const strict = template.expressions[0]!.reference.kind === "input";
      const reason = source === undefined ? undefined : mismatch(source, target, strict);
      if (reason === undefined) return;
      const from = `from \`\${${template.expressions[0]!.source}}\``;
      const message =
        source!.type === target.type || (source!.type === "integer" && target.type === "number")
          ? `${expects()}, gets ${describeSpec(source!)} ${from}: ${reason}`
          : `${expects()}, gets ${describeSpec(source!)} ${from}`;
      report("MF1409", path, message);
      return;
    }
    if (template.expressions.length > 0) {
      if (target.type !== "string")
        report("MF1409", path, `${expects()}, gets a string (text with \`\${…}\` interpolated); a whole-value reference \`"\${…}"\` keeps its type`);
      return;
    }
  }
  if (target === undefined) {
    if (Array.isArray(value)) value.forEach((item, i) => walkValue(item, undefined, [...path, i], scope, report, found));
    else if (typeof value === "object" && value !== null)
      for (const [key, member] of Object.entries(value)) walkValue(member, undefined, [...path, key], scope, report, found);
    return;
  }
  if (!hasExpression(value)) {
    const reason = literalMismatch(value, target);
    if (reason !== undefined) report("MF1409", path, `${expects()}: ${reason}`);
    return;
  }
  // A container mixing literals and expressions: check its own type here, its members one by one.
  if (Array.isArray(value)) {
    if (target.type !== "array") return report("MF1409", path, `${expects()}, gets an array`);
    value.forEach((item, i) => walkValue(item, target.items, [...path, i], scope, report, found));
    return;
  }
  const record = value as Record<string, unknown>;
  if (target.type !== "object") return report("MF1409", path, `${expects()}, gets an object`);
  for (const [key, member] of Object.entries(record)) {
    const field = target.fields === undefined ? undefined : findField(target.fields, key);
    if (target.fields !== undefined && field === undefined)
      report("MF1409", [...path, key], `\`${displayPath(path)}\` declares no member \`${key}\`${didYouMean(key, fieldNames(target.fields))}`, { at: "key" });
    walkValue(member, field?.spec, [...path, key], scope, report, found);
  }
  for (const field of target.fields?.required ?? []) {
    if (!Object.hasOwn(record, field.name)) report("MF1409", path, `${expects()}: required member \`${field.name}\` is missing`);
  }
}
