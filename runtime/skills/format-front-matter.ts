/**
 * One `SKILL.md` (https://agentskills.io/specification): YAML front matter between `---` lines, then
 * Markdown instructions. Pure over the file's text, so gen and the runtime check a skill the same way.
 *
 * Read from the front matter: `name` and `description` (required), `version` (top level, else
 * `metadata.version`) and `license`. Every other key (`allowed-tools`, `compatibility`, a vendor's own)
 * is allowed and left out of the index: existing packs load unchanged.
 */
import { createRequire } from "node:module";
import type { Document, YAMLMap } from "yaml";
import type { DiagnosticCode, Position } from "../manifest/index.js";
import { longerThan, MAX_DESCRIPTION_CHARS, MAX_LICENSE_CHARS, SKILL_VERSION } from "./store/checks.js";

/**
 * The Agent Skills name rule: lower-case letters and digits in words joined by single hyphens (within
 * the registry's, which also takes a double or trailing hyphen). The other rules are the registry's
 * own, so a skill gen embeds always publishes.
 */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SKILL_NAME_CHARS = 64;
export { MAX_DESCRIPTION_CHARS, MAX_LICENSE_CHARS };
/** The registry's version rule (a short token; semver ones are ordered as semver). */
export const SKILL_VERSION_PATTERN = SKILL_VERSION;
/** The version of a skill whose front matter names none. */
export const DEFAULT_SKILL_VERSION = "0.0.0";
/** Aliases front matter may expand (an alias bomb needs thousands). */
const MAX_ALIAS_COUNT = 100;

/** A problem in the file, at a 1-based position of its text. */
export interface SkillFileProblem {
  readonly code: DiagnosticCode;
  readonly position: Position;
  readonly message: string;
}

/** What the index keeps of the front matter. */
export interface SkillFields {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly license?: string;
}

export interface ParsedSkillFile {
  /** Absent when the front matter has an error. */
  readonly fields?: SkillFields;
  /** The Markdown after the front matter: leading blank lines and trailing white space removed, `\n` line ends. */
  readonly instructions: string;
  /** The line of the file the instructions' first line is on (to place problems found in them). */
  readonly instructionsLine: number;
  readonly problems: readonly SkillFileProblem[];
  /** Where `name` is written, for a problem with it found later (it differs from the folder's name). */
  readonly namePosition: Position;
}

const FENCE = /^---[ \t]*$/;
const START: Position = { line: 1, column: 1 };

/**
 * `folderName`, when given, is what `name` must equal (MF1505). Line ends are normalised first (a CRLF
 * checkout must not change a skill's digest); positions still count lines as editors do.
 */
export function parseSkillFile(raw: string, folderName?: string): ParsedSkillFile {
  const lines = raw.replace(/\r\n?/g, "\n").split("\n");
  const close = lines.findIndex((line, i) => i > 0 && FENCE.test(line));
  if (!FENCE.test(lines[0] ?? "") || close < 0) {
    const message = FENCE.test(lines[0] ?? "")
      ? "the front matter opened on line 1 is never closed: end it with a `---` line before the instructions"
      : "SKILL.md must open with YAML front matter: a `---` line, `name:` and `description:`, and another `---` line";
    return { instructions: "", instructionsLine: 1, problems: [problem("MF1503", START, message)], namePosition: START };
  }
  let first = close + 1;
  while (first < lines.length && lines[first]!.trim() === "") first++;
  const instructions = lines.slice(first).join("\n").trimEnd();
  const front = readFrontMatter(lines.slice(1, close).join("\n"));
  const instructionsLine = first + 1;
  if (front.map === undefined) return { instructions, instructionsLine, problems: front.problems, namePosition: START };
  const fields = readFields(front.map, front.at, folderName);
  return {
    ...(fields.value !== undefined && { fields: fields.value }),
    instructions,
    instructionsLine,
    problems: fields.problems,
    namePosition: fields.namePosition,
  };
}

function problem(code: DiagnosticCode, position: Position, message: string): SkillFileProblem {
  return { code, position, message };
}

/**
 * Where the value of `key` starts in the whole file (its key when the value is empty; the mapping's
 * start when `key` is absent): the front matter starts on line 2.
 */
type Locator = (key?: string) => Position;

interface FrontMatter {
  readonly map?: Record<string, unknown>;
  readonly at: Locator;
  readonly problems: readonly SkillFileProblem[];
}

/** yaml (about 70 modules, CommonJS) loads with the first skill file read, not with every agent that has skills. */
const require = createRequire(import.meta.url);
const yaml = (): typeof import("yaml") => require("yaml") as typeof import("yaml");

function readFrontMatter(text: string): FrontMatter {
  const { isMap, isScalar, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, stringKeys: true, logLevel: "error" });
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return line === 0 ? { line: 2, column: 1 } : { line: line + 1, column: col };
  };
  const at = locator(document, position);
  const errors = document.errors.map((error) => {
    const key = /^[^:\n]{1,64}(?=:)/.exec(text.slice(error.pos[0]))?.[0]?.trim();
    const twice = key === undefined ? "a key is written twice" : `\`${key}\` is written twice`;
    const what = error.code === "DUPLICATE_KEY" ? twice : error.message.split("\n")[0]!.replace(/^./, (c) => c.toLowerCase());
    return problem("MF1503", position(error.pos[0]), `the front matter is not valid YAML: ${what}`);
  });
  if (errors.length > 0) return { at, problems: errors };
  const contents = document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    return { at, problems: [problem("MF1503", { line: 2, column: 1 }, "the front matter is empty: it needs at least `name:` and `description:`")] };
  }
  if (!isMap(contents))
    return { at, problems: [problem("MF1503", at(), "the front matter must be a mapping of keys to values (`name: …`, `description: …`)")] };
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch {
    return { at, problems: [problem("MF1503", at(), "the front matter expands too many aliases or nests too deeply")] };
  }
  return { map: value as Record<string, unknown>, at, problems: [] };
}

function locator(document: Document.Parsed, position: (offset: number) => Position): Locator {
  const { isMap, isScalar } = yaml();
  return (key) => {
    const contents = document.contents as YAMLMap | null;
    const pair = key === undefined || !isMap(contents) ? undefined : contents.items.find((p) => isScalar(p.key) && p.key.value === key);
    const node = (pair?.value ?? pair?.key ?? contents) as { range?: [number, number, number] | null } | null;
    return node?.range == null ? { line: 2, column: 1 } : position(node.range[0]);
  };
}

interface Fields {
  readonly value?: SkillFields;
  readonly problems: readonly SkillFileProblem[];
  readonly namePosition: Position;
}

/** `a string`, `a list`: a value's YAML type for messages. */
function typeOf(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "a mapping" : `a ${typeof value}`;
}

function readFields(map: Record<string, unknown>, at: Locator, folderName: string | undefined): Fields {
  const problems: SkillFileProblem[] = [];
  const report = (code: DiagnosticCode, key: string | undefined, message: string) => problems.push(problem(code, at(key), message));
  const text: Text = (label, value, rule, key = label) => {
    if (typeof value === "string") return value;
    const hint = typeof value === "number" || typeof value === "boolean" ? `; quote it to keep it text: "${String(value)}"` : "";
    report("MF1504", key, `\`${label}\` must be ${rule}, got ${typeOf(value)}${hint}`);
    return undefined;
  };

  const name = readName(map, folderName, report, text);
  const description = map["description"] === undefined ? undefined : text("description", map["description"], "a string");
  if (!Object.hasOwn(map, "description")) report("MF1504", undefined, "the front matter has no `description`: say what the skill does and when to use it");
  else if (description !== undefined && description.trim() === "") report("MF1504", "description", "`description` must not be empty");
  else if (description !== undefined && longerThan(description, MAX_DESCRIPTION_CHARS))
    report("MF1504", "description", `\`description\` is ${[...description].length} characters; it may be at most ${MAX_DESCRIPTION_CHARS}`);

  const version = readVersion(map, report, text);
  const license = map["license"] === undefined ? undefined : text("license", map["license"], "a string");
  if (license !== undefined && longerThan(license, MAX_LICENSE_CHARS))
    report("MF1504", "license", `\`license\` may be at most ${MAX_LICENSE_CHARS} characters`);

  const valid = problems.length === 0 && name !== undefined && description !== undefined;
  return {
    ...(valid && { value: { name, version: version ?? DEFAULT_SKILL_VERSION, description: description.trim(), ...(license !== undefined && { license }) } }),
    problems,
    namePosition: at("name"),
  };
}

type Report = (code: DiagnosticCode, key: string | undefined, message: string) => void;
/** The string at `label`, or a problem reported at `key` (where `label` is written: `metadata.version` is under `metadata`). */
type Text = (label: string, value: unknown, rule: string, key?: string) => string | undefined;

function readName(map: Record<string, unknown>, folderName: string | undefined, report: Report, text: Text): string | undefined {
  if (!Object.hasOwn(map, "name")) {
    report("MF1504", undefined, `the front matter has no \`name\`${folderName === undefined ? "" : `: write \`name: ${folderName}\` (the folder's name)`}`);
    return undefined;
  }
  const name = text("name", map["name"], "a string");
  if (name === undefined) return undefined;
  if (name.length > MAX_SKILL_NAME_CHARS || !SKILL_NAME_PATTERN.test(name)) {
    report(
      "MF1504",
      "name",
      `\`name\` ${JSON.stringify(name.slice(0, 80))} is invalid: 1 to ${MAX_SKILL_NAME_CHARS} lower-case letters and digits, in words joined by single '-'`,
    );
    return undefined;
  }
  if (folderName !== undefined && name !== folderName) {
    report("MF1505", "name", `\`name\` is \`${name}\` but the skill's folder is \`${folderName}\`; they must be the same`);
  }
  return name;
}

function readVersion(map: Record<string, unknown>, report: Report, text: Text): string | undefined {
  const metadata = map["metadata"];
  if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))) {
    report("MF1504", "metadata", `\`metadata\` must be a mapping of keys to strings, got ${typeOf(metadata)}`);
    return undefined;
  }
  const nested = (metadata as Record<string, unknown> | undefined)?.["version"];
  const [key, value] = map["version"] !== undefined ? ["version", map["version"]] : ["metadata", nested];
  if (value === undefined) return undefined;
  const version = text(key === "version" ? "version" : "metadata.version", value, "a string", key);
  if (version === undefined) return undefined;
  if (!SKILL_VERSION_PATTERN.test(version)) {
    report("MF1504", key, `version ${JSON.stringify(version.slice(0, 80))} is invalid: 1 to 64 letters, digits, '.', '+' or '-' (e.g. 1.2.0)`);
    return undefined;
  }
  return version;
}
