/**
 * The `${…}` grammar as the checker reads it:
 *
 *   ${inputs.<name>}                      a declared workflow input
 *   ${steps.<step>.output}                a step's whole output
 *   ${steps.<step>.output.<field>.<…>}    a field of it, through nested `fields`
 *
 * A string that is exactly one expression is a whole-value reference and keeps the referenced JSON
 * type; expressions inside a longer string are interpolated as text. There is no escape for a
 * literal `${`: no input of the format needs one.
 */

import { closest } from "./suggest.js";

export type Reference =
  | { readonly kind: "input"; readonly name: string }
  | { readonly kind: "step"; readonly step: string; readonly fields: readonly string[] };

export interface ParsedExpression {
  /** Index of the `${` in the string. */
  readonly offset: number;
  /** The text between `${` and `}`. */
  readonly source: string;
  readonly reference: Reference;
}

export interface ExpressionProblem {
  readonly offset: number;
  readonly message: string;
}

export interface ParsedTemplate {
  readonly expressions: readonly ParsedExpression[];
  readonly problems: readonly ExpressionProblem[];
  /** The whole string is one expression (and nothing else): the value keeps its type. */
  readonly whole: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const GRAMMAR = "expressions are `${inputs.<name>}`, `${steps.<step>.output}` or `${steps.<step>.output.<field>}`";

function parseReference(source: string): Reference | string {
  const parts = source.split(".");
  const [head, second, third] = parts;
  if (source.trim() !== source || source === "") return `\`\${${source}}\` is not a reference: ${GRAMMAR} (no spaces inside \`\${…}\`)`;
  if (parts.some((p) => !NAME.test(p))) return `\`\${${source}}\` is not a reference: ${GRAMMAR}`;
  if (head === "inputs") {
    if (second === undefined) return "`${inputs}` needs the input's name: `${inputs.<name>}`";
    if (parts.length > 2) return `\`\${${source}}\`: a workflow input is referenced whole, as \`\${inputs.${second}}\``;
    return { kind: "input", name: second };
  }
  if (head === "steps") {
    if (second === undefined) return "`${steps}` needs a step and `.output`: `${steps.<step>.output}`";
    if (third !== "output") {
      // `${steps.s.outputs.x}` meant `.output.x`; `${steps.s.x}` meant `.output.x`.
      const rest = third !== undefined && closest(third, ["output"]) !== undefined ? parts.slice(3) : parts.slice(2);
      return `\`\${${source}}\` must go through \`.output\`: \`\${${["steps", second, "output", ...rest].join(".")}}\``;
    }
    return { kind: "step", step: second, fields: parts.slice(3) };
  }
  return `\`\${${source}}\` is not a reference: ${GRAMMAR}`;
}

/** Every `${…}` of `text`, with what is wrong with the malformed ones. */
export function parseTemplate(text: string): ParsedTemplate {
  const expressions: ParsedExpression[] = [];
  const problems: ExpressionProblem[] = [];
  let from = 0;
  for (;;) {
    const offset = text.indexOf("${", from);
    if (offset === -1) break;
    const close = text.indexOf("}", offset + 2);
    if (close === -1) {
      problems.push({ offset, message: "`${` is not closed: add the `}`" });
      break;
    }
    const source = text.slice(offset + 2, close);
    if (source.includes("${")) {
      problems.push({ offset, message: "`${` is not closed before the next `${`: add the `}`" });
      from = offset + 2;
      continue;
    }
    const reference = parseReference(source);
    if (typeof reference === "string") problems.push({ offset, message: reference });
    else expressions.push({ offset, source, reference });
    from = close + 1;
  }
  const whole = problems.length === 0 && expressions.length === 1 && expressions[0]!.offset === 0 && expressions[0]!.source.length + 3 === text.length;
  return { expressions, problems, whole };
}

/** Whether a value (at any depth) holds a `${`. */
export function hasExpression(value: unknown): boolean {
  if (typeof value === "string") return value.includes("${");
  if (Array.isArray(value)) return value.some(hasExpression);
  if (typeof value === "object" && value !== null) return Object.values(value).some(hasExpression);
  return false;
}
