/** Narrowing helpers for parsed YAML, which arrives as `unknown`, and the one text order. */

/**
 * Code-unit order, independent of the locale: everything the manifest layer sorts (and the files gen
 * writes from it) must sort the same on every machine.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The YAML word for a value's type, as users see it in their file. */
export function describeType(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  return `a ${typeof value}`;
}

/** A value as it reads in a message: strings quoted, long values cut. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean (true or false)",
  object: "a mapping",
  array: "a list",
  null: "null",
};

/** `a string`, `an integer or a string`: a JSON Schema `type` in the user's words. */
export function expectedType(type: unknown): string {
  const types = Array.isArray(type) ? type.map(String) : [String(type)];
  return types.map((t) => EXPECTED[t] ?? t).join(" or ");
}
