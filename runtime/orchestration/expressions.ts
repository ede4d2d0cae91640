/**
 * Expressions in step parameters and workflow outputs, compiled once into functions of the run's
 * values, so that starting a step costs no parsing.
 *
 * Two syntaxes reach the same references:
 *
 * | `dollar` (manifests, YAML)          | `braces` (defineWorkflow, planners) | value                          |
 * |-------------------------------------|-------------------------------------|--------------------------------|
 * | `${inputs.x}`                       | `{{x}}` or `{{input.x}}` (`{{input}}`: all) | a workflow input       |
 * | `${steps.s.output}`                 | `{{s.response}}`, `{{s.response.data}}` | step `s`'s whole output     |
 * | `${steps.s.output.a.b}`             | `{{s.response.data.a.b}}`           | a field inside it              |
 *
 * A string that is exactly one expression keeps the referenced JSON type; expressions inside a
 * longer string are interpolated as text (strings as they are, other values as JSON). A reference to
 * something absent (an optional input not given, a skipped or failed step, a missing field) is
 * `undefined`: the object key holding it is omitted, an interpolated string holding it is absent as
 * a whole (a half-filled sentence would be worse), and an array element becomes `null`.
 */
import { escapeToken } from "../component/index.js";
import { ManifoldError, type ErrorDetail } from "../errors/index.js";
import { parseTemplate } from "../manifest/dataflow/index.js";

export type ExpressionSyntax = "dollar" | "braces" | "none";

/** What expressions read while a plan runs. */
export interface ExpressionScope {
  readonly inputs: unknown;
  /** The output of a step that completed; undefined for one that has not (or failed, or was skipped). */
  output(step: string): unknown;
}

export interface Reference {
  /** `inputs` for a workflow input (or all of them), else the step id. */
  readonly step: string | undefined;
  /** Field names below the input object or the step output. */
  readonly path: readonly string[];
}

/** A compiled value: a constant is returned as is (not copied), anything else is built per call. */
export type Compiled = (scope: ExpressionScope) => unknown;

export interface CompiledValue {
  readonly evaluate: Compiled;
  /** Steps the value reads, for implicit dependencies. */
  readonly steps: ReadonlySet<string>;
  /** True when the value holds no expression. */
  readonly constant: boolean;
}

interface Piece {
  readonly text?: string;
  readonly reference?: Reference;
}

/** Thrown while compiling: INVALID_WORKFLOW pointing at the value. */
function malformed(pointer: string, message: string): ManifoldError {
  const details: ErrorDetail[] = [{ pointer, message }];
  return new ManifoldError("INVALID_WORKFLOW", `malformed expression at ${pointer === "" ? "/" : pointer}: ${message}`, { details });
}

function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    if (Array.isArray(current)) {
      const index = /^\d+$/.test(key) ? Number(key) : -1;
      current = index >= 0 ? current[index] : undefined;
    } else {
      current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
    }
  }
  return current;
}

function read(reference: Reference, scope: ExpressionScope): unknown {
  const root = reference.step === undefined ? scope.inputs : scope.output(reference.step);
  return reference.path.length === 0 ? root : walk(root, reference.path);
}

const FIELD = /^[A-Za-z0-9_-]+$/;

/** `input`, `input.a.b`, `<input name>`, `<step>.response`, `<step>.response.data`, `<step>.response.data.a.b`. */
function parseBraces(source: string, pointer: string): Reference {
  const parts = source.trim().split(".");
  if (parts.some((part) => !FIELD.test(part)))
    throw malformed(pointer, `{{${source}}} is not a reference: use {{<input>}}, {{input}}, {{input.<field>}} or {{<step>.response.data.<field>}}`);
  const [head, second, third, ...rest] = parts as [string, ...string[]];
  if (head === "input") return { step: undefined, path: parts.slice(1) };
  // The spec's `{{<input_name>}}`: one bare name is a workflow input (a step is only ever read through `.response`).
  if (second === undefined) return { step: undefined, path: [head] };
  if (second !== "response") throw malformed(pointer, `{{${source}}} must go through .response: {{${head}.response.data…}}`);
  if (third === undefined) return { step: head, path: [] };
  if (third !== "data") throw malformed(pointer, `{{${source}}}: a step's output is {{${head}.response.data…}}`);
  return { step: head, path: rest };
}

function piecesOfBraces(text: string, pointer: string): Piece[] {
  const pieces: Piece[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf("{{", from);
    if (open === -1) break;
    const close = text.indexOf("}}", open + 2);
    if (close === -1) throw malformed(pointer, "{{ is not closed: add the }}");
    if (open > from) pieces.push({ text: text.slice(from, open) });
    pieces.push({ reference: parseBraces(text.slice(open + 2, close), pointer) });
    from = close + 2;
  }
  if (from < text.length) pieces.push({ text: text.slice(from) });
  return pieces;
}

function piecesOfDollar(text: string, pointer: string): Piece[] {
  const parsed = parseTemplate(text);
  const problem = parsed.problems[0];
  if (problem !== undefined) throw malformed(pointer, problem.message);
  const pieces: Piece[] = [];
  let from = 0;
  for (const { offset, source, reference } of parsed.expressions) {
    if (offset > from) pieces.push({ text: text.slice(from, offset) });
    pieces.push({ reference: reference.kind === "input" ? { step: undefined, path: [reference.name] } : { step: reference.step, path: reference.fields } });
    from = offset + source.length + 3;
  }
  if (from < text.length) pieces.push({ text: text.slice(from) });
  return pieces;
}

/** Interpolated text of a value: strings as they are, everything else as JSON. */
function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function compileString(text: string, syntax: ExpressionSyntax, pointer: string, steps: Set<string>): Compiled | undefined {
  const marker = syntax === "dollar" ? "${" : "{{";
  if (syntax === "none" || !text.includes(marker)) return undefined;
  const pieces = syntax === "dollar" ? piecesOfDollar(text, pointer) : piecesOfBraces(text, pointer);
  for (const piece of pieces) if (piece.reference?.step !== undefined) steps.add(piece.reference.step);
  const [first] = pieces;
  if (pieces.length === 1 && first?.reference !== undefined) {
    const reference = first.reference;
    return (scope) => read(reference, scope);
  }
  return (scope) => {
    let out = "";
    for (const piece of pieces) {
      if (piece.reference === undefined) {
        out += piece.text!;
        continue;
      }
      const value = read(piece.reference, scope);
      if (value === undefined) return undefined;
      out += asText(value);
    }
    return out;
  };
}

function compileAny(value: unknown, syntax: ExpressionSyntax, pointer: string, steps: Set<string>): Compiled | undefined {
  if (typeof value === "string") return compileString(value, syntax, pointer, steps);
  if (Array.isArray(value)) {
    const items = value.map((item, i) => compileAny(item, syntax, `${pointer}/${i}`, steps));
    if (items.every((item) => item === undefined)) return undefined;
    return (scope) => items.map((item, i) => (item === undefined ? value[i] : (item(scope) ?? null)));
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([key, item]) => [key, item, compileAny(item, syntax, `${pointer}/${escapeToken(key)}`, steps)] as const);
    if (entries.every(([, , compiled]) => compiled === undefined)) return undefined;
    return (scope) => {
      const out: Record<string, unknown> = {};
      for (const [key, item, compiled] of entries) {
        const resolved = compiled === undefined ? item : compiled(scope);
        if (resolved !== undefined) out[key] = resolved;
      }
      return out;
    };
  }
  return undefined;
}

/**
 * Compiles a JSON value (parameters, outputs) once. Throws INVALID_WORKFLOW for a malformed
 * expression, with `pointer` (a JSON pointer prefix) locating it.
 */
export function compileValue(value: unknown, syntax: ExpressionSyntax, pointer = ""): CompiledValue {
  const steps = new Set<string>();
  const compiled = compileAny(value, syntax, pointer, steps);
  return compiled === undefined ? { evaluate: () => value, steps, constant: true } : { evaluate: compiled, steps, constant: false };
}

const caches: Record<ExpressionSyntax, WeakMap<object, CompiledValue>> = { dollar: new WeakMap(), braces: new WeakMap(), none: new WeakMap() };

/**
 * compileValue, remembered per object: a workflow's step parameters are the same objects on every
 * run (the plan is rebuilt, its parameters are not), so each is parsed once per process.
 */
export function compileCached(value: object, syntax: ExpressionSyntax, pointer = ""): CompiledValue {
  const cache = caches[syntax];
  let compiled = cache.get(value);
  if (compiled === undefined) {
    compiled = compileValue(value, syntax, pointer);
    cache.set(value, compiled);
  }
  return compiled;
}
