/**
 * Output type inference: what `WorkflowSpec.outputs[i]` says about each result, so the workflow's
 * endpoint and client get a typed result.
 *
 * - a whole-value reference has the referenced value's type (`ValueSpec` of the input or output
 *   field); it is unknown (no `type`) for a free-form output or a path inside an untyped object;
 * - text with `${…}` in it is a `string`; it is absent when any value in it is (the executor does not
 *   half-fill a sentence);
 * - a literal has its JSON type (`number` for any number); `null` has no type;
 * - an object is an `object` whose fields are its members when every member's type is known (a
 *   member that may be absent is optional), else a free-form `object`; an array has `items` when
 *   every item has the same known type and none may be absent (an absent item becomes `null`).
 *
 * A value is not `required` when a reference in it goes through an optional input or
 * field, or names a step that may not produce output: one with `on_error: continue`, or one that
 * depends (directly or not) on such a step, since a failure there skips it.
 */
import type { FieldSpec, ValueSpec } from "../../spec/index.js";
import { parseTemplate } from "./expressions.js";
import type { DocumentPath } from "./paths.js";
import { resolve, type Scope } from "./references.js";

export interface Inferred {
  readonly type?: ValueSpec;
  readonly optional: boolean;
}

const ignore = (): void => undefined;

export function inferValue(value: unknown, path: DocumentPath, scope: Scope, skippable: ReadonlySet<string>): Inferred {
  if (typeof value === "string") {
    const template = parseTemplate(value);
    const resolved = template.expressions.map((expression) => {
      const result = resolve(expression, path, scope, ignore);
      const skipped = expression.reference.kind === "step" && skippable.has(expression.reference.step);
      return { type: result?.type, optional: (result?.optional ?? false) || skipped };
    });
    // Text with an absent value in it is absent as a whole (the executor does not half-fill a sentence).
    const optional = resolved.some((r) => r.optional);
    if (!template.whole) return { type: { type: "string" }, optional };
    const type = resolved[0]?.type;
    return type === undefined ? { optional } : { type, optional };
  }
  if (typeof value === "number") return { type: { type: "number" }, optional: false };
  if (typeof value === "boolean") return { type: { type: "boolean" }, optional: false };
  if (Array.isArray(value)) {
    // An absent item becomes null in the array, which no item type describes.
    const items = value.map((item, i) => inferValue(item, [...path, i], scope, skippable)).map((item) => (item.optional ? undefined : item.type));
    const first = items[0];
    const same = first !== undefined && items.every((item) => item !== undefined && JSON.stringify(item) === JSON.stringify(first));
    return { type: same ? { type: "array", items: first } : { type: "array" }, optional: false };
  }
  if (typeof value === "object" && value !== null) {
    const required: FieldSpec[] = [];
    const optional: FieldSpec[] = [];
    for (const [name, member] of Object.entries(value)) {
      const inferred = inferValue(member, [...path, name], scope, skippable);
      if (inferred.type === undefined) return { type: { type: "object" }, optional: false };
      (inferred.optional ? optional : required).push({ name, ...inferred.type });
    }
    return { type: { type: "object", fields: { required, optional } }, optional: false };
  }
  return { optional: false };
}
