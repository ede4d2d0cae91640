/**
 * A value-only reader for the plain subset of YAML most manifests are written in: block mappings with
 * identifier keys, block sequences, one-line flow collections, plain scalars, one-line quoted scalars and
 * comments. It answers the value the yaml package gives for such a text (core schema, unique keys), and
 * undefined for anything outside the subset (tags, anchors, block scalars, multi-line scalars, tabs, odd
 * numbers, unusual keys, anything the parser would warn about or reject), which the caller then parses
 * with the full parser. The yaml package's lexer, CST and document tree took 2.3–2.7 s in each of gen's two
 * parse workers for 1.6 MB of manifests (cold, profiled); this walks each line once.
 */

/** Thrown (and caught in plainYamlValue) wherever the text leaves the subset. */
class OutsideSubset extends Error {}
const OUTSIDE = new OutsideSubset();

function outside(): never {
  throw OUTSIDE;
}

interface Line {
  indent: number;
  text: string;
}

/** Deeper than this, the full parser decides (it reports nesting it cannot follow). */
const MAX_DEPTH = 64;
// Characters the subset never holds: tabs, CR, other controls, C1 controls (NEL), the BOM, line separators.
const UNUSUAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
// Up to 256 characters: the parser refuses an implicit block key longer than 1,024.
const KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,255}/;
// Keys the core schema reads as something other than a string, or that name Object.prototype's slot.
const SPECIAL_KEY = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|__proto__)$/;
const INT = /^-?(?:0|[1-9][0-9]{0,14})$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
// The core schema's other non-string plain scalars, as the yaml package tests them (octal, decimal and hex
// integers, infinities and NaN, floats with and without an exponent): read only in the forms above.
const CORE_NUMBER =
  /^(?:0o[0-7]+|[-+]?[0-9]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/;
// A plain scalar cannot start with an indicator (a dash only when a space or the end follows it).
const INDICATOR_START = /^(?:[?:,[\]{}#&*!|>'"%@`]|-(?: |$))/;

/** The plain scalar `text` (trimmed) as the core schema reads it. */
function plainScalar(text: string): unknown {
  switch (text) {
    case "~":
    case "null":
    case "Null":
    case "NULL":
      return null;
    case "true":
    case "True":
    case "TRUE":
      return true;
    case "false":
    case "False":
    case "FALSE":
      return false;
  }
  if (INT.test(text) || DECIMAL.test(text)) {
    const n = Number(text);
    return Object.is(n, -0) ? outside() : n;
  }
  return CORE_NUMBER.test(text) || INDICATOR_START.test(text) ? outside() : text;
}

const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "/": "/", n: "\n", t: "\t" };

/** A one-line quoted scalar starting at `start`: its value and the offset after its closing quote. */
function quoted(s: string, start: number): [string, number] {
  const quote = s[start]!;
  let out = "";
  let i = start + 1;
  for (;;) {
    const close = s.indexOf(quote, i);
    const backslash = quote === '"' ? s.indexOf("\\", i) : -1;
    if (close < 0) outside();
    if (backslash >= 0 && backslash < close) {
      out += s.slice(i, backslash) + (ESCAPES[s[backslash + 1]!] ?? outside());
      i = backslash + 2;
    } else if (quote === "'" && s[close + 1] === "'") {
      out += `${s.slice(i, close)}'`;
      i = close + 2;
    } else {
      return [out + s.slice(i, close), close + 1];
    }
  }
}

const skipSpaces = (s: string, i: number): number => {
  while (s.charCodeAt(i) === 32) i++;
  return i;
};

/** A value inside a flow collection at `i`: the value and the offset after it. */
function flowValue(s: string, i: number, depth: number): [unknown, number] {
  const c = s[i];
  if (c === "{" || c === "[") return flowCollection(s, i, depth + 1);
  if (c === '"' || c === "'") return quoted(s, i);
  let end = i;
  while (end < s.length && !",[]{}:#".includes(s[end]!)) end++;
  const text = s.slice(i, end).trimEnd();
  if (text === "") outside();
  return [plainScalar(text), end];
}

/** A one-line flow mapping or sequence opening at `start`: its value and the offset after its close. */
function flowCollection(s: string, start: number, depth: number): [unknown, number] {
  if (depth > MAX_DEPTH) outside();
  const isMap = s[start] === "{";
  const close = isMap ? "}" : "]";
  const map: Record<string, unknown> = {};
  const seq: unknown[] = [];
  let i = skipSpaces(s, start + 1);
  if (s[i] === close) return [isMap ? map : seq, i + 1];
  for (;;) {
    if (isMap) {
      const key = KEY.exec(s.slice(i))?.[0];
      if (key === undefined || SPECIAL_KEY.test(key) || Object.hasOwn(map, key) || s[i + key.length] !== ":" || s[i + key.length + 1] !== " ") outside();
      const [value, end] = flowValue(s, skipSpaces(s, i + key.length + 1), depth);
      map[key] = value;
      i = skipSpaces(s, end);
    } else {
      const [value, end] = flowValue(s, i, depth);
      seq.push(value);
      i = skipSpaces(s, end);
    }
    if (s[i] === close) return [isMap ? map : seq, i + 1];
    if (s[i] !== ",") outside();
    i = skipSpaces(s, i + 1);
    // A trailing comma, or an empty entry: the full parser decides.
    if (s[i] === close || s[i] === ",") outside();
  }
}

/** After a value on its line: nothing, or spaces then a comment. */
function restOfLine(s: string, i: number): void {
  if (i === s.length) return;
  const j = skipSpaces(s, i);
  if (j === s.length || (j > i && s[j] === "#")) return;
  outside();
}

/** A value written on the same line as its key or dash (not empty, not a comment). */
function inlineValue(s: string, depth: number): unknown {
  const c = s[0];
  if (c === "{" || c === "[") {
    const [value, end] = flowCollection(s, 0, depth + 1);
    restOfLine(s, end);
    return value;
  }
  if (c === '"' || c === "'") {
    const [value, end] = quoted(s, 0);
    restOfLine(s, end);
    return value;
  }
  const comment = s.indexOf(" #");
  const text = (comment < 0 ? s : s.slice(0, comment)).trimEnd();
  // `a: b: c` and `a: b:` are errors to the parser; `- a` here would be a sequence where none may start.
  if (text.includes(": ") || text.endsWith(":")) outside();
  return plainScalar(text);
}

const isEmptyOrComment = (s: string): boolean => s === "" || s[0] === "#";
const isDash = (s: string): boolean => s[0] === "-" && (s.length === 1 || s[1] === " ");

class Reader {
  private readonly lines: Line[];
  private at = 0;

  constructor(text: string) {
    this.lines = [];
    for (const raw of text.split("\n")) {
      const indent = skipSpaces(raw, 0);
      const rest = raw.slice(indent).trimEnd();
      if (isEmptyOrComment(rest)) continue;
      // Directives and document markers: the full parser decides.
      if (indent === 0 && (rest[0] === "%" || rest.startsWith("---") || rest.startsWith("..."))) outside();
      this.lines.push({ indent, text: rest });
    }
  }

  top(): Record<string, unknown> {
    const first = this.lines[0];
    if (first === undefined || isDash(first.text)) outside();
    const value = this.mapping(first.indent, 1);
    if (this.at !== this.lines.length) outside();
    return value;
  }

  /** The block node whose first line is the current one (indented `indent`). */
  private block(indent: number, depth: number): unknown {
    if (depth > MAX_DEPTH) outside();
    return isDash(this.lines[this.at]!.text) ? this.sequence(indent, depth) : this.mapping(indent, depth);
  }

  /** What follows a key or dash with nothing after it on its line: a deeper block, or null. */
  private nested(indent: number, depth: number, sequenceMayAlign: boolean): unknown {
    const next = this.lines[this.at];
    if (next === undefined) return null;
    if (next.indent > indent) return this.block(next.indent, depth + 1);
    // A mapping's value may be a sequence at the key's own indent.
    if (sequenceMayAlign && next.indent === indent && isDash(next.text)) return this.sequence(indent, depth + 1);
    return null;
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.indent < indent) break;
      if (line.indent > indent) outside();
      const key = KEY.exec(line.text)?.[0];
      if (key === undefined || SPECIAL_KEY.test(key) || Object.hasOwn(map, key) || line.text[key.length] !== ":") outside();
      const rest = line.text.slice(key.length + 1);
      if (rest !== "" && rest[0] !== " ") outside();
      const value = rest.trimStart();
      this.at++;
      if (isEmptyOrComment(value)) map[key] = this.nested(indent, depth, true);
      else {
        map[key] = inlineValue(value, depth);
        this.noContinuation(indent);
      }
    }
    return map;
  }

  private sequence(indent: number, depth: number): unknown[] {
    const seq: unknown[] = [];
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.indent !== indent || !isDash(line.text)) {
        if (line.indent > indent) outside();
        break;
      }
      const offset = skipSpaces(line.text, 1);
      const rest = line.text.slice(offset);
      if (isEmptyOrComment(rest)) {
        this.at++;
        seq.push(this.nested(indent, depth, false));
      } else if (isDash(rest) || (KEY.exec(rest) !== null && /^[A-Za-z_][A-Za-z0-9_-]*:(?: |$)/.test(rest))) {
        // `- key: value` or `- - x`: a block node starting on the dash's line, at the column after it.
        this.lines[this.at] = { indent: indent + offset, text: rest };
        seq.push(this.block(indent + offset, depth + 1));
      } else {
        this.at++;
        seq.push(inlineValue(rest, depth));
        this.noContinuation(indent);
      }
    }
    return seq;
  }

  /** A deeper line after a value on one line would continue it (a multi-line scalar) or be an error. */
  private noContinuation(indent: number): void {
    const next = this.lines[this.at];
    if (next !== undefined && next.indent > indent) outside();
  }
}

/**
 * The value the yaml package (core schema, unique keys) gives `text`, when `text` is a mapping in the
 * plain subset with no diagnostic to report; otherwise undefined. `text` as the parser is given it.
 */
export function plainYamlValue(text: string): Record<string, unknown> | undefined {
  if (UNUSUAL.test(text)) return undefined;
  try {
    return new Reader(text).top();
  } catch {
    // Outside the subset, or a surprise (a stack overflow): the full parser decides.
    return undefined;
  }
}
