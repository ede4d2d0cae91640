/**
 * Types of values flowing through a workflow: what a reference or a literal is, and whether it fits a
 * capability input. The widening rules (docs/diagnostics.md, "Workflow types"):
 *
 * - the same type fits; `integer` fits `number`; `number` does not fit `integer`;
 * - anything fits `string` only when it is interpolated into text (`"at ${steps.a.output.lat}"`);
 *   a whole-value reference keeps its type, so a number bound whole to a string input is a mismatch;
 * - `any` fits every target and every source fits `any` (checked at run time by the capability);
 * - an untyped source (a free-form output, an object without `fields`, an array without `items`) is
 *   accepted: its shape is checked at run time by the capability's own validation. Not so for a
 *   workflow input (`strict`): the workflow's endpoint validates a call against the input's declared
 *   shape, so an input bound to a typed array or object must declare `items` or `fields` too, or a
 *   bad call would pass that check and fail later as a step's error;
 * - an `enum` source fits an `enum` target when all its values are allowed; a source without `enum`
 *   fits an `enum` target (the value is checked at run time);
 * - objects with declared `fields` on both sides fit when every source field is declared by the
 *   target, every required target field is required in the source, and each common field fits.
 */
import type { FieldSpec, FieldType, FieldsSpec, ValueSpec } from "../../spec/index.js";
import { normaliseValue } from "../normalise.js";
import type { WorkflowInputDocument } from "./types.js";

/** The declared shape of a workflow input, as a value type (without `required`). */
export function inputShape(input: WorkflowInputDocument): ValueSpec {
  return normaliseValue(input);
}

/** Whether a scalar or container has a field type (enum values, literals). */
export function fitsType(value: unknown, type: FieldType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "any":
      return true;
  }
}

/** `number`, `array of string`, `string (one of "a", "b")`: a type in messages. */
export function describeSpec(spec: ValueSpec): string {
  if (spec.type === "array" && spec.items !== undefined) return `array of ${describeSpec(spec.items)}`;
  if (spec.enum !== undefined) return `${spec.type} (one of ${spec.enum.map((v) => JSON.stringify(v)).join(", ")})`;
  return spec.type;
}

/** The JSON word for a literal's type, as messages show what was given. */
export function describeLiteral(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return Number.isInteger(value) ? `the integer ${value}` : `the number ${value}`;
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}

function allFields(fields: FieldsSpec): FieldSpec[] {
  return [...fields.required, ...fields.optional];
}

function withoutName({ name: _name, ...value }: FieldSpec): ValueSpec {
  return value;
}

/** The declared member `name` of `fields` and whether it is required, or undefined. */
export function findField(fields: FieldsSpec, name: string): { readonly spec: ValueSpec; readonly required: boolean } | undefined {
  const required = fields.required.find((f) => f.name === name);
  if (required !== undefined) return { spec: withoutName(required), required: true };
  const optional = fields.optional.find((f) => f.name === name);
  return optional === undefined ? undefined : { spec: withoutName(optional), required: false };
}

export function fieldNames(fields: FieldsSpec): string[] {
  return allFields(fields).map((f) => f.name);
}

/** Why a workflow input's shape is looser than the target's, in `strict` mode. */
const UNDECLARED = (what: "items" | "fields"): string =>
  `the workflow input declares no \`${what}\`; declare them so a call that does not fit is refused before any step runs`;

/**
 * Why a value of type `source` does not fit where `target` is expected, or undefined when it fits.
 * The reason is a clause such as "field `speed` is string, not number". `strict` (the source is a
 * workflow input): an array without `items` or object without `fields` does not fit a target that
 * declares them.
 */
export function mismatch(source: ValueSpec, target: ValueSpec, strict = false): string | undefined {
  // `any` (a shape the format cannot say, e.g. from an MCP tool's JSON Schema) fits and is fitted by
  // everything: the capability's own validation checks the value at run time.
  if (source.type === "any" || target.type === "any") return undefined;
  const sameKind = source.type === target.type || (source.type === "integer" && target.type === "number");
  if (!sameKind) return `${source.type} is not ${target.type}`;
  if (target.enum !== undefined && source.enum !== undefined) {
    const outside = source.enum.filter((v) => !target.enum!.includes(v));
    if (outside.length > 0)
      return `${outside.map((v) => JSON.stringify(v)).join(", ")} ${outside.length === 1 ? "is" : "are"} not among ${target.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (strict && target.type === "array" && target.items !== undefined && source.items === undefined) return UNDECLARED("items");
  if (strict && target.type === "object" && target.fields !== undefined && source.fields === undefined) return UNDECLARED("fields");
  if (target.type === "array" && source.items !== undefined && target.items !== undefined) {
    const inner = mismatch(source.items, target.items, strict);
    if (inner !== undefined) return `items: ${inner}`;
  }
  if (target.type === "object" && source.fields !== undefined && target.fields !== undefined) {
    for (const field of allFields(source.fields)) {
      const declared = findField(target.fields, field.name);
      if (declared === undefined) return `field \`${field.name}\` is not declared by the input`;
      const inner = mismatch(withoutName(field), declared.spec, strict);
      if (inner !== undefined) return `field \`${field.name}\`: ${inner}`;
    }
    for (const field of target.fields.required) {
      const given = findField(source.fields, field.name);
      if (given === undefined) return `required field \`${field.name}\` is missing`;
      if (!given.required) return `required field \`${field.name}\` may be absent`;
    }
  }
  return undefined;
}

/** Why a literal (holding no expression) does not fit `target`, or undefined when it fits. */
export function literalMismatch(value: unknown, target: ValueSpec): string | undefined {
  if (!fitsType(value, target.type)) return `${describeLiteral(value)} is not ${target.type}`;
  if (target.enum !== undefined && !target.enum.includes(value as string | number | boolean)) {
    return `${describeLiteral(value)} is not one of ${target.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (Array.isArray(value) && target.items !== undefined) {
    for (const [i, item] of value.entries()) {
      const inner = literalMismatch(item, target.items);
      if (inner !== undefined) return `item ${i}: ${inner}`;
    }
  }
  if (target.type === "object" && target.fields !== undefined && fitsType(value, "object")) {
    const record = value as Record<string, unknown>;
    for (const [key, member] of Object.entries(record)) {
      const declared = findField(target.fields, key);
      if (declared === undefined) return `member \`${key}\` is not declared`;
      const inner = literalMismatch(member, declared.spec);
      if (inner !== undefined) return `member \`${key}\`: ${inner}`;
    }
    for (const field of target.fields.required) {
      if (!Object.hasOwn(record, field.name)) return `required member \`${field.name}\` is missing`;
    }
  }
  return undefined;
}
