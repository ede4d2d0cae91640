/**
 * The resources an active skill's instructions reference, read on demand: the references gen checks
 * (Markdown links, bare `./…`, `references/…`, `scripts/…`, `assets/…` paths outside fenced code) that
 * name a file of that version. Only text is read into the prompt, each resource at most
 * RESOURCE_SHOWN_BYTES (the rest cut with a note), all of them within what the instructions left of
 * the budget; a resource that would not fit is not read at all.
 */
import { cutUtf8 } from "../llm/index.js";
import { ATTR, SKILLS_SPAN } from "../telemetry/index.js";
import { RESOURCE_SHOWN_BYTES } from "./context-settings.js";
import { inSpan, skillAttributes } from "./context-telemetry.js";
import { skillReferences } from "./format-references.js";
import type { SkillStore, SkillVersion } from "./store/types.js";

/** Resources one request reads at most, over all its active skills. */
export const MAX_RESOURCES_READ = 8;
/** Room a resource needs besides its heading to be worth reading: less, and it is not read. */
const MIN_SHOWN_BYTES = 128;

/** The paths `instructions` reference (as gen checks them) that are files of the version, in order of first mention. */
export function referencedPaths(instructions: string, files: ReadonlySet<string>): string[] {
  const paths = skillReferences(instructions).flatMap((reference) => (reference.path === undefined ? [] : [reference.path]));
  return [...new Set(paths)].filter((path) => files.has(path) && path !== "SKILL.md");
}

/** One resource as the section shows it: its heading and its text (cut past `shown` bytes, with a note). */
export function resourceBlock(path: string, text: string, shown: number): string {
  const total = Buffer.byteLength(text);
  if (total <= shown) return `#### Resource ${path}\n\n${text.trimEnd()}`;
  const cut = cutUtf8(text, shown).text;
  return `#### Resource ${path}\n\n${cut}\n[… cut: ${Buffer.byteLength(cut)} of ${total} bytes shown]`;
}

/** Bytes of a resource block around its text: heading and the cut note. */
const blockOverhead = (path: string): number => Buffer.byteLength(`#### Resource ${path}\n\n\n[… cut: 999999 of 999999 bytes shown]`) + 2;

export interface ResolvedResources {
  /** Per active skill (by index in `skills`), its resource blocks in order. */
  readonly blocks: readonly string[][];
  /** Per active skill, the paths read into the prompt. */
  readonly read: readonly string[][];
}

/**
 * Reads the referenced text resources of `skills` while `room` bytes last, one at a time in order
 * (skill by skill), each through a `skills.registry.resource` span naming it.
 */
export async function resolveResources(store: SkillStore, skills: readonly SkillVersion[], room: number): Promise<ResolvedResources> {
  const blocks: string[][] = skills.map(() => []);
  const read: string[][] = skills.map(() => []);
  let left = room;
  let reads = 0;
  for (const [i, skill] of skills.entries()) {
    const files = new Set(skill.resources.map((r) => r.path));
    for (const path of referencedPaths(skill.instructions, files)) {
      const overhead = blockOverhead(path);
      if (reads >= MAX_RESOURCES_READ || left < overhead + MIN_SHOWN_BYTES) return { blocks, read };
      reads += 1;
      const resource = await inSpan(SKILLS_SPAN.REGISTRY_RESOURCE, { ...skillAttributes(skill), [ATTR.SKILL_RESOURCE]: path }, () =>
        store.resource(skill.namespace, skill.name, skill.version, path),
      );
      // A binary file is listed, never read into a prompt.
      if (resource?.text === undefined) continue;
      const block = resourceBlock(path, resource.text, Math.min(RESOURCE_SHOWN_BYTES, left - overhead));
      blocks[i]!.push(block);
      read[i]!.push(path);
      left -= Buffer.byteLength(block) + 2;
    }
  }
  return { blocks, read };
}
