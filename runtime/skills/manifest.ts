/**
 * The skills feature's part of the manifest format: the agent's `skills:` list, its schema fragment,
 * its types, its checks and its normaliser.
 *
 * ```yaml
 * skills:
 *   - ./skills/packing-advice                          # a folder beside the manifest (namespace: the agent's name)
 *   - { path: ./skills/local-customs, namespace: travel }
 *   - { namespace: travel }                            # every skill the registry holds under `travel`
 * ```
 *
 * Folder skills are read at gen time (format.ts) and embedded whole in the agent's spec (index,
 * instructions and resources), so a deployed agent is self-contained: it publishes them to the
 * registry when it starts. Checks and normalising read each folder once per load (cached by the
 * manifest object both see).
 */
import { posix } from "node:path";
import type { FeatureCheckContext, ManifestFeature, ManifestFiles, NormaliseContext, RawAgent } from "../manifest/index.js";
import { type BundledSkill, readSkillFolder, type SkillFolder } from "./format.js";

/** One entry of `skills:` as written. */
export type RawSkillEntry = string | { readonly path?: string; readonly namespace?: string };

/** The agent's skills: the registry namespaces it draws from and the folder skills it ships. */
export interface SkillsSpec {
  /** Registry namespaces, in the order the manifest names them (its folder skills' namespaces included), each once. */
  readonly namespaces: readonly string[];
  /** The folder skills, in manifest order, embedded whole; the agent publishes them at start. */
  readonly bundled: readonly BundledSkill[];
}

declare module "../manifest/index.js" {
  interface RawAgentFeatures {
    readonly skills?: readonly RawSkillEntry[];
  }
}
declare module "../spec/index.js" {
  interface AgentFeatureSpecs {
    /** Agent Skills the planner may follow (the manifest's `skills:`); absent without one. */
    readonly skills?: SkillsSpec;
  }
}

export type { BundledSkill } from "./format.js";

/** Entries an agent may list (folders and namespaces together). */
export const MAX_SKILL_ENTRIES = 50;

export const skillsSchema: ManifestFeature["schema"] = {
  property: {
    description: "Agent Skills (https://agentskills.io) the planner may follow: skill folders beside the manifest, or registry namespaces.",
    type: "array",
    uniqueItems: true,
    items: { $ref: "#/definitions/skillEntry" },
  },
  definitions: {
    skillEntry: {
      title: "skill",
      description:
        "A skill folder (holding a SKILL.md) relative to this manifest, as a path or `{path, namespace}`; or `{namespace}`: every skill the registry holds under it.",
      type: ["string", "object"],
      if: { type: "string" },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
      then: { $ref: "#/definitions/skillPath" },
      else: {
        title: "skill",
        additionalProperties: false,
        minProperties: 1,
        properties: {
          path: { $ref: "#/definitions/skillPath" },
          namespace: { description: "The registry namespace (default for a folder: the agent's name).", $ref: "#/definitions/componentName" },
        },
      },
    },
    skillPath: {
      description: "A folder relative to this manifest, with `/` separators.",
      type: "string",
      minLength: 1,
      maxLength: 1024,
      pattern: "^(?![/\\\\]|[A-Za-z]:)[^\\\\]+$",
      patternErrorMessage: "a skill folder is a path relative to the manifest, with '/' separators (e.g. ./skills/packing-advice)",
    },
  },
};

interface Resolved {
  readonly namespace: string;
  /** The folder as diagnostics show it; absent for a namespace entry. */
  readonly folder?: string;
}

function resolveEntry(entry: RawSkillEntry, agent: string, manifestFile: string): Resolved {
  const path = typeof entry === "string" ? entry : entry.path;
  const namespace = (typeof entry === "string" ? undefined : entry.namespace) ?? agent;
  if (path === undefined) return { namespace };
  return { namespace, folder: posix.normalize(posix.join(posix.dirname(manifestFile), path)).replace(/\/$/, "") };
}

// One read per folder and load: check and normalise see the same manifest object.
const reads = new WeakMap<RawAgent, { readonly files: ManifestFiles; readonly folders: Map<string, SkillFolder> }>();

function readFolder(raw: RawAgent, files: ManifestFiles, { folder, namespace }: Required<Resolved>): SkillFolder {
  let cache = reads.get(raw);
  if (cache?.files !== files) {
    cache = { files, folders: new Map() };
    reads.set(raw, cache);
  }
  const key = `${namespace}\u0000${folder}`;
  const found = cache.folders.get(key) ?? readSkillFolder(files, folder, namespace);
  cache.folders.set(key, found);
  return found;
}

/** Each entry with its index, up to the bound (entries past it are reported, not read). */
function entries(raw: RawAgent, file: string): { readonly index: number; readonly resolved: Resolved }[] {
  return (raw.skills ?? []).slice(0, MAX_SKILL_ENTRIES).map((entry, index) => ({ index, resolved: resolveEntry(entry, raw.name, file) }));
}

export function checkSkills(raw: RawAgent, { report, reportAt, lineOf, file, files }: FeatureCheckContext): void {
  if (raw.skills === undefined) return;
  if (raw.skills.length > MAX_SKILL_ENTRIES) {
    report("MF1509", ["skills", MAX_SKILL_ENTRIES], `an agent lists at most ${MAX_SKILL_ENTRIES} skills; this is entry ${MAX_SKILL_ENTRIES + 1}`);
  }
  // Without the files beside the manifest (text alone), folders are not read: gen and serving read them.
  if (files === undefined) return;
  const seen = new Map<string, number>();
  for (const { index, resolved } of entries(raw, file)) {
    if (resolved.folder === undefined) continue;
    const { skill, problems } = readFolder(raw, files, { namespace: resolved.namespace, folder: resolved.folder });
    for (const { code, at, message } of problems) {
      if (at === undefined) report(code, ["skills", index], message);
      else reportAt(code, at, message);
    }
    if (skill === undefined) continue;
    const key = `${skill.namespace}/${skill.name}`;
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else report("MF1506", ["skills", index], `skill \`${key}\` is already listed (line ${lineOf(["skills", first])}); a namespace holds one skill of a name`);
  }
}

/** Skills whose folders have errors are left out (gen stops on them); a duplicate keeps the first. */
export function normaliseSkills(raw: RawAgent, { file, files }: NormaliseContext): { skills?: SkillsSpec } {
  if (raw.skills === undefined) return {};
  const resolved = entries(raw, file).map((e) => e.resolved);
  const namespaces = [...new Set(resolved.map((r) => r.namespace))];
  const bundled = new Map<string, BundledSkill>();
  for (const { folder, namespace } of resolved) {
    if (folder === undefined || files === undefined) continue;
    const { skill } = readFolder(raw, files, { folder, namespace });
    const key = skill === undefined ? undefined : `${skill.namespace}/${skill.name}`;
    if (skill !== undefined && key !== undefined && !bundled.has(key)) bundled.set(key, skill);
  }
  return { skills: { namespaces, bundled: [...bundled.values()] } };
}
