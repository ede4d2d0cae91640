/**
 * Secrets a manifest's author wrote where they should not (a credential in a deployment's `env`, a
 * password in a URL) are refused by a diagnostic; the diagnostic must not then print them into a CI
 * log. Masking works on the text line by line, not on the YAML tree, so a file that does not parse
 * is masked too.
 */

/** A setting with one of these words in its name holds a credential: it belongs in a deployment's Secret, never in a ConfigMap (MF1318). */
export const SECRET_NAME = /(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE)(_|$)/;

export const MASK = "****";

/** `apiKey`, `api-key`, `api.key` and `API_KEY` all name a key. */
function isSecretKey(key: string): boolean {
  return SECRET_NAME.test(
    key
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .toUpperCase()
      .replace(/[-.]/g, "_"),
  );
}

/** `scheme://user:password@` keeps the user; `scheme://token@` hides the token. */
const USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)([^\s:/@]*)(:[^\s/@]+)?@/gi;

/** A half-open range of a line's characters to hide. */
type Range = readonly [start: number, end: number];

function urlRanges(line: string): Range[] {
  const ranges: Range[] = [];
  for (const match of line.matchAll(USERINFO)) {
    const [, scheme, user, password] = match as unknown as [string, string, string, string | undefined];
    const userStart = match.index + scheme.length;
    if (password !== undefined) ranges.push([userStart + user.length + 1, userStart + user.length + password.length]);
    else if (user !== "") ranges.push([userStart, userStart + user.length]);
  }
  return ranges;
}

/** A mapping key (plain or quoted) followed by `:` and a space or the line's end. */
const KEY = /(^|[\s{,[-])(["']?)([A-Za-z0-9_.-]+)\2[ \t]*:(?=[ \t]|$)[ \t]*/g;

/** Where the value starting at `start` ends: its closing quote, else `,`/`}` in a flow mapping, else a comment or the line's end. */
function valueEnd(line: string, start: number, inFlow: boolean): { end: number; open: boolean } {
  const quote = line[start];
  if (quote === '"' || quote === "'") {
    for (let i = start + 1; i < line.length; i++) {
      if (quote === '"' && line[i] === "\\") i++;
      else if (line[i] === quote) {
        if (quote === "'" && line[i + 1] === "'") i++;
        else return { end: i + 1, open: false };
      }
    }
    return { end: line.length, open: true };
  }
  const stop = inFlow ? line.slice(start).search(/[,}\]]|\s#/) : line.slice(start).search(/\s#/);
  return { end: stop === -1 ? line.length : start + stop, open: false };
}

/**
 * The values of a line's secret keys. `continues`: the last one goes on over the next lines (a block
 * scalar `|`/`>`, an empty value, an unclosed quote).
 */
function keyRanges(line: string): { ranges: Range[]; continues: boolean } {
  const ranges: Range[] = [];
  let continues = false;
  for (const match of line.matchAll(KEY)) {
    const start = match.index + match[0].length;
    if (!isSecretKey(match[3]!) || ranges.some(([from, to]) => start >= from && start < to)) continue;
    const before = line.slice(0, match.index);
    const inFlow = before.split("{").length > before.split("}").length;
    const { end, open } = valueEnd(line, start, inFlow);
    const value = line.slice(start, end).trimEnd();
    const block = /^[|>][-+0-9]*$/.test(value);
    continues = open || block || value === "";
    if (value !== "" && !block) ranges.push([start, start + value.length]);
  }
  return { ranges, continues };
}

/** How a masked line's columns move: each hidden range became MASK. */
export type LineEdits = readonly Range[];

function applyRanges(line: string, ranges: Range[], found: string[]): { text: string; edits: LineEdits } {
  const sorted = ranges.filter(([a, b]) => b > a).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  let text = "";
  let from = 0;
  for (const [a, b] of merged) {
    found.push(line.slice(a, b).replace(/^["']|["']$/g, ""));
    text += `${line.slice(from, a)}${MASK}`;
    from = b;
  }
  return { text: text + line.slice(from), edits: merged };
}

/** The column (1-based) of the original line, on its masked copy: inside a hidden value, the mask's start. */
export function maskedColumn(column: number, edits: LineEdits | undefined): number {
  let shift = 0;
  for (const [a, b] of edits ?? []) {
    if (column - 1 >= b) shift += b - a - MASK.length;
    else if (column - 1 > a) return a + 1 - shift;
  }
  return column - shift;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

export interface MaskedSource {
  readonly text: string;
  /** The values it hid (so a message that quotes one can be masked too). */
  readonly values: readonly string[];
  /** By 1-based line number, the ranges hidden on it. */
  readonly edits: ReadonlyMap<number, LineEdits>;
}

/** The text with every secret value replaced by `****`. A value that continues on more-indented lines masks those lines. */
export function maskSecrets(text: string): MaskedSource {
  const found: string[] = [];
  const edits = new Map<number, LineEdits>();
  const lines = text.split(/(\r\n|\r|\n)/);
  let blockIndent: number | undefined;
  for (let i = 0; i < lines.length; i += 2) {
    const line = lines[i]!;
    if (blockIndent !== undefined && (line.trim() === "" || indentOf(line) > blockIndent)) {
      if (line.trim() === "") continue;
      const masked = applyRanges(line, [[indentOf(line), line.length]], found);
      lines[i] = masked.text;
      edits.set(i / 2 + 1, masked.edits);
      continue;
    }
    blockIndent = undefined;
    const keys = keyRanges(line);
    const masked = applyRanges(line, [...urlRanges(line), ...keys.ranges], found);
    lines[i] = masked.text;
    if (masked.edits.length > 0) edits.set(i / 2 + 1, masked.edits);
    if (keys.continues) blockIndent = indentOf(line);
  }
  // Short values would mask ordinary words in messages; a secret worth the name is longer.
  return { text: lines.join(""), values: found.filter((v) => v.length >= 4), edits };
}

/** `message` with every one of `values` replaced by `****`. */
export function maskMessage(message: string, values: readonly string[]): string {
  let out = message;
  for (const value of [...values].sort((a, b) => b.length - a.length)) out = out.split(value).join(MASK);
  return out;
}
