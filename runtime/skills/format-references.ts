/**
 * The files a skill's instructions point at: Markdown links and images (`[checklist](references/packing.md)`,
 * reference definitions `[id]: path`), and bare relative paths in the text (`scripts/fetch.py`,
 * `references/forms.md`, `./template.txt`, `../other/SKILL.md`). Gen checks them against the folder;
 * the runtime resolves the same references when it reads resources on demand.
 *
 * Bare paths are recognised only when they start with `./`, `../` or one of the format's folders
 * (`scripts/`, `references/`, `assets/`): prose is full of `/api/…` routes and `a/b` alternatives that
 * are not files. Fenced code blocks are skipped (their paths belong to the example, not the skill).
 */
import { posix } from "node:path";

export interface SkillReference {
  /** As written (a link's target without its `#fragment` or `?query`). */
  readonly target: string;
  /** The path inside the skill folder (`references/packing.md`); absent when the target leaves it. */
  readonly path?: string;
  /** Why the target is outside the folder: an absolute path, or one that climbs out with `../`. */
  readonly outside?: "absolute" | "parent";
  /** 1-based, in the instructions' text. */
  readonly line: number;
  readonly column: number;
}

// `[text](target "title")` and `![alt](<target with spaces>)`. No part may run over a bracket, `<` or
// parenthesis that opens another: each match attempt then stops at the next one, so a line of many
// `[` or `](` (instructions come from whoever publishes) is scanned in linear time, not quadratic.
const LINK = /!?\[[^[\]\n]*\]\(\s*(<[^<>\n]*>|[^\s()<>]+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)/dg;
// `[id]: target "title"`, alone on its line (up to three spaces of indent).
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$/dgm;
const BARE = /(?<![\w./~@:-])((?:\.\.?\/)+[\w-][\w./-]*|(?:scripts|references|assets)\/[\w-][\w./-]*)/g;
/**
 * A URL (`https:`, `mailto:`, `data:`), a protocol-relative URL, or an anchor in the same page: not a
 * file. A one-letter scheme is a drive (`C:/…`), which is a path, absolute.
 */
const NOT_A_FILE = /^(?:[a-zA-Z][a-zA-Z0-9+.-]+:|\/\/|#)/;
const FENCE = /^ {0,3}(```|~~~)/;

/** Every file reference in `instructions`, in text order; one per place. */
export function skillReferences(instructions: string): SkillReference[] {
  const found: SkillReference[] = [];
  let inFence: string | undefined;
  instructions.split("\n").forEach((text, index) => {
    const fence = FENCE.exec(text)?.[1];
    if (fence !== undefined && (inFence === undefined || inFence === fence)) {
      inFence = inFence === undefined ? fence : undefined;
      return;
    }
    if (inFence !== undefined) return;
    found.push(...lineReferences(text, index + 1));
  });
  return found;
}

function lineReferences(text: string, line: number): SkillReference[] {
  const found: SkillReference[] = [];
  // Link targets are blanked out of the line before the bare-path scan, so each place counts once.
  let rest = text;
  for (const pattern of [LINK, DEFINITION]) {
    for (const match of text.matchAll(pattern)) {
      const written = match[1]!;
      const start = match.indices?.[1]?.[0] ?? match.index;
      rest = `${rest.slice(0, match.index)}${" ".repeat(match[0].length)}${rest.slice(match.index + match[0].length)}`;
      const target = written.startsWith("<") ? written.slice(1, -1).trim() : written;
      if (NOT_A_FILE.test(target)) continue;
      const reference = toReference(decode(target.replace(/[?#].*$/, "")), line, start + 1);
      if (reference !== undefined) found.push(reference);
    }
  }
  for (const match of rest.matchAll(BARE)) {
    // A sentence's full stop or a trailing separator is not part of the path.
    const target = match[1]!.replace(/[.]+$/, "");
    const reference = toReference(target, line, match.index + 1);
    if (reference !== undefined) found.push(reference);
  }
  return found.sort((a, b) => a.column - b.column);
}

function decode(target: string): string {
  try {
    return decodeURIComponent(target);
  } catch {
    return target;
  }
}

function toReference(target: string, line: number, column: number): SkillReference | undefined {
  if (target === "" || target === "." || target === "./") return undefined;
  if (target.startsWith("/") || /^[A-Za-z]:[\\/]/.test(target) || target.startsWith("\\")) return { target, outside: "absolute", line, column };
  const normalised = posix.normalize(target.replace(/\\/g, "/"));
  if (normalised === ".." || normalised.startsWith("../")) return { target, outside: "parent", line, column };
  return { target, path: normalised.replace(/^\.\//, ""), line, column };
}
