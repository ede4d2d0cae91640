/**
 * One Agent Skills folder (https://agentskills.io/specification) → the `SkillVersionInput` the
 * registry publishes, with its digest: `SKILL.md` (front matter and instructions, format-front-matter.ts)
 * and the files beside it as resources (text when small UTF-8, else listed by size). Pure over a small
 * file-system view (`ManifestFiles`), so gen and the runtime read a folder the same way.
 *
 * Refused, so that what is embedded is exactly the folder's own files: symbolic links and special
 * files anywhere in it, and instructions that point outside it. Bounded, so a stray folder cannot bloat
 * the generated spec: the limits below are at least as strict as the registry's (a skill gen accepts
 * always publishes).
 */
import { posix } from "node:path";
import type { DiagnosticCode, ManifestFiles, Position } from "../manifest/index.js";
import { decodeUtf8, DIAGNOSTIC_CODES, describeFsError } from "../manifest/served.js";
import { skillDigest } from "./digest.js";
import { parseSkillFile } from "./format-front-matter.js";
import { skillReferences } from "./format-references.js";
import { isResourcePath, MAX_INSTRUCTIONS_BYTES, MAX_RESOURCE_BYTES, MAX_RESOURCE_PATH_CHARS } from "./store/checks.js";
import type { SkillResource, SkillVersionInput } from "./store/types.js";

export const SKILL_FILE = "SKILL.md";

export const SKILL_LIMITS = {
  skillFileBytes: 64 * 1024,
  instructionsBytes: MAX_INSTRUCTIONS_BYTES,
  /** A bigger file is listed `{path, bytes}` without its text. */
  resourceTextBytes: MAX_RESOURCE_BYTES,
  /** `SKILL.md` included. */
  files: 64,
  /** The instructions and every resource's text together. */
  textBytes: 512 * 1024,
  /** Folders below the skill's own. */
  depth: 4,
  resourcePathChars: MAX_RESOURCE_PATH_CHARS,
} as const;

/** A skill as gen embeds it: what the registry publishes, and the content digest it compares. */
export interface BundledSkill extends SkillVersionInput {
  readonly digest: string;
}

/** A problem with the folder; `at` is absent for the folder as a whole (the manifest's entry is where to point). */
export interface SkillProblem {
  readonly code: DiagnosticCode;
  readonly at?: { readonly file: string; readonly position: Position; readonly text?: string };
  readonly message: string;
}

export interface SkillFolder {
  /** Absent when an error was found (warnings keep it). */
  readonly skill?: BundledSkill;
  readonly problems: readonly SkillProblem[];
}

interface Entry {
  /** Relative to the skill folder, `/` separators. */
  readonly path: string;
  readonly bytes: number;
}

const hasErrors = (problems: readonly SkillProblem[]) => problems.some((p) => DIAGNOSTIC_CODES[p.code].severity === "error");
const kib = (bytes: number) => `${Math.ceil(bytes / 1024)} KiB`;

/** `folder`: as diagnostics show it (relative to the cwd, `/` separators); its last part is the skill's name. */
export function readSkillFolder(files: ManifestFiles, folder: string, namespace: string): SkillFolder {
  const problems: SkillProblem[] = [];
  const entries = listFolder(files, folder, problems);
  if (entries === undefined) return { problems };
  const skillFile = `${folder}/${SKILL_FILE}`;
  const main = entries.find((e) => e.path === SKILL_FILE);
  if (main === undefined) {
    const other = entries.find((e) => e.path.toLowerCase() === "skill.md");
    const hint = other === undefined ? "" : ` (found \`${other.path}\`: the name is upper-case SKILL.md)`;
    problems.push({ code: "MF1502", message: `skill folder ${folder} has no ${SKILL_FILE}${hint}` });
    return { problems };
  }
  const text = readText(files, skillFile, main.bytes, SKILL_LIMITS.skillFileBytes, problems);
  if (text === undefined) return { problems };
  const parsed = parseSkillFile(text, posix.basename(folder));
  const at = (position: Position) => ({ file: skillFile, position, text });
  problems.push(...parsed.problems.map((p) => ({ code: p.code, at: at(p.position), message: p.message })));
  const instructionBytes = Buffer.byteLength(parsed.instructions);
  if (instructionBytes > SKILL_LIMITS.instructionsBytes) {
    const message = `the instructions are ${kib(instructionBytes)}; a skill's instructions may be at most ${kib(SKILL_LIMITS.instructionsBytes)} (move detail into references/ files)`;
    problems.push({ code: "MF1509", at: at({ line: parsed.instructionsLine, column: 1 }), message });
  }
  const resources = readResources(files, folder, entries, instructionBytes, problems);
  checkReferences(parsed.instructions, parsed.instructionsLine, entries, at, problems);
  if (parsed.fields === undefined || hasErrors(problems)) return { problems };
  const { name, version, description, license } = parsed.fields;
  const content = { instructions: parsed.instructions, resources };
  const skill: BundledSkill = {
    namespace,
    name,
    version,
    description,
    ...(license !== undefined && { license }),
    ...content,
    digest: skillDigest(content),
  };
  return { skill, problems };
}

/** Every file under `folder` (hidden ones skipped), or undefined when the folder itself cannot be read. */
function listFolder(files: ManifestFiles, folder: string, problems: SkillProblem[]): Entry[] | undefined {
  try {
    const info = files.stat(folder);
    if (info === undefined) return void problems.push({ code: "MF1501", message: `skill folder ${folder} does not exist` });
    if (info.kind === "link") {
      return void problems.push({ code: "MF1507", message: `skill folder ${folder} is a symbolic link; name the folder itself (links may point anywhere)` });
    }
    if (info.kind !== "folder")
      return void problems.push({ code: "MF1501", message: `${folder} is not a folder; a skill is a folder holding a ${SKILL_FILE}` });
  } catch (error) {
    return void problems.push({ code: "MF1501", message: `skill folder ${folder} cannot be read: ${describeFsError(error)}` });
  }
  const entries: Entry[] = [];
  const walk = (relative: string, depth: number): boolean => {
    const here = relative === "" ? folder : `${folder}/${relative}`;
    for (const name of files.list(here)) {
      // Hidden files (`.DS_Store`, `.git`) are not part of a skill, as hidden folders hold no manifests.
      if (name.startsWith(".")) continue;
      const path = relative === "" ? name : `${relative}/${name}`;
      const info = files.stat(`${folder}/${path}`);
      if (info === undefined) continue;
      if (info.kind === "link" || info.kind === "other") {
        const what = info.kind === "link" ? "a symbolic link" : "not a regular file";
        problems.push({ code: "MF1507", message: `${folder}/${path} is ${what}; a skill embeds only its own regular files` });
      } else if (info.kind === "folder") {
        if (depth >= SKILL_LIMITS.depth) {
          problems.push({ code: "MF1509", message: `${folder}/${path} is nested more than ${SKILL_LIMITS.depth} folders deep in its skill` });
        } else if (!walk(path, depth + 1)) {
          return false;
        }
      } else if (entries.push({ path, bytes: info.bytes }) > SKILL_LIMITS.files) {
        problems.push({ code: "MF1509", message: `skill folder ${folder} holds more than ${SKILL_LIMITS.files} files` });
        return false;
      }
    }
    return true;
  };
  try {
    walk("", 0);
  } catch (error) {
    problems.push({ code: "MF1501", message: `skill folder ${folder} cannot be read: ${describeFsError(error)}` });
    return undefined;
  }
  return entries;
}

/** A UTF-8 file within `maxBytes`, or undefined with the problem reported (SKILL.md: its own codes). */
function readText(files: ManifestFiles, file: string, bytes: number, maxBytes: number, problems: SkillProblem[]): string | undefined {
  const tooLarge = (size: number) => problems.push({ code: "MF1509", message: `${file} is ${kib(size)}; it may be at most ${kib(maxBytes)}` });
  if (bytes > maxBytes) return void tooLarge(bytes);
  let read: Uint8Array;
  try {
    read = files.read(file, maxBytes);
  } catch (error) {
    return void problems.push({ code: "MF1502", message: `${file} cannot be read: ${describeFsError(error)}` });
  }
  if (read.length > maxBytes) return void tooLarge(read.length);
  const decoded = decodeUtf8(read);
  if (!decoded.ok) return void problems.push({ code: "MF1502", at: { file, position: decoded.position }, message: `${file} is not valid UTF-8` });
  return decoded.text;
}

function readResources(files: ManifestFiles, folder: string, entries: readonly Entry[], instructionBytes: number, problems: SkillProblem[]): SkillResource[] {
  let textBytes = instructionBytes;
  const resources: SkillResource[] = [];
  for (const { path, bytes } of entries) {
    if (path === SKILL_FILE) continue;
    // The registry's rule: a file named with a control character or a backslash would be refused at publish.
    if (!isResourcePath(path)) {
      problems.push({
        code: "MF1509",
        message: `${JSON.stringify(`${folder}/${path}`)}: a resource path may be at most ${SKILL_LIMITS.resourcePathChars} characters, without control characters or '\\'`,
      });
      continue;
    }
    const text = bytes > SKILL_LIMITS.resourceTextBytes ? undefined : readResourceText(files, `${folder}/${path}`, problems);
    if (text === undefined) {
      resources.push({ path, bytes });
      continue;
    }
    const size = Buffer.byteLength(text);
    textBytes += size;
    resources.push({ path, bytes: size, text });
  }
  if (textBytes > SKILL_LIMITS.textBytes) {
    problems.push({
      code: "MF1509",
      message: `skill folder ${folder} holds ${kib(textBytes)} of text; a skill may hold at most ${kib(SKILL_LIMITS.textBytes)}`,
    });
  }
  // Listing order is code-unit order per folder; the spec wants one order over the whole skill.
  return resources.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A small UTF-8 file's text (line ends normalised, so a CRLF checkout keeps the digest); undefined for binary data. */
function readResourceText(files: ManifestFiles, file: string, problems: SkillProblem[]): string | undefined {
  let read: Uint8Array;
  try {
    read = files.read(file, SKILL_LIMITS.resourceTextBytes);
  } catch (error) {
    problems.push({ code: "MF1501", message: `${file} cannot be read: ${describeFsError(error)}` });
    return undefined;
  }
  if (read.length > SKILL_LIMITS.resourceTextBytes) return undefined;
  const decoded = decodeUtf8(read);
  if (!decoded.ok || decoded.text.includes("\u0000")) return undefined;
  return decoded.text.replace(/\r\n?/g, "\n");
}

type At = (position: Position) => NonNullable<SkillProblem["at"]>;

/** Links out of the folder are errors; a path inside it that does not exist is a warning (the skill still works). */
function checkReferences(instructions: string, firstLine: number, entries: readonly Entry[], at: At, problems: SkillProblem[]): void {
  const paths = new Set(entries.map((e) => e.path));
  const folders = new Set(
    entries.flatMap((e) =>
      e.path
        .split("/")
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
    ),
  );
  for (const reference of skillReferences(instructions)) {
    const position = at({ line: firstLine + reference.line - 1, column: reference.column });
    if (reference.outside !== undefined) {
      const why = reference.outside === "absolute" ? "is an absolute path" : "leaves the skill folder";
      problems.push({ code: "MF1507", at: position, message: `\`${reference.target}\` ${why}; a skill may reference only files inside its own folder` });
    } else if (reference.path !== undefined) {
      const path = reference.path.replace(/\/$/, "");
      if (!paths.has(path) && !folders.has(path)) {
        problems.push({ code: "MF1508", at: position, message: `\`${reference.target}\` does not exist in the skill folder` });
      }
    }
  }
}
