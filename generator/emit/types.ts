import type { FieldsSpec, ValueSpec } from "../../runtime/spec/types.js";
import { docComment, propertyKey } from "./ts-text.js";

/** The TypeScript type of one value. Objects with declared fields become inline object types. */
export function valueType(value: ValueSpec, indent: string): string {
  if (value.enum !== undefined && value.enum.length > 0) return value.enum.map((v) => JSON.stringify(v)).join(" | ");
  switch (value.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "any":
      return "unknown";
    case "array":
      return value.items === undefined ? "unknown[]" : `Array<${valueType(value.items, indent)}>`;
    case "object":
      return value.fields === undefined ? "Record<string, unknown>" : objectType(value.fields, indent);
  }
}

/** `{ a: T; b?: U }` over several lines, each member with its description as a doc comment. */
export function objectType(fields: FieldsSpec, indent: string): string {
  const inner = `${indent}  `;
  const members = [...fields.required.map((f) => ({ field: f, optional: false })), ...fields.optional.map((f) => ({ field: f, optional: true }))].map(
    ({ field, optional }) => `${docComment(field.description, inner)}${inner}${propertyKey(field.name)}${optional ? "?" : ""}: ${valueType(field, inner)};\n`,
  );
  // Declared but empty: nothing may be sent, which `{}` (any non-null value) would not say.
  if (members.length === 0) return "Record<string, never>";
  return `{\n${members.join("")}${indent}}`;
}
