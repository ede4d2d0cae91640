/**
 * The skill registry in this process's memory: the embedded default, shared by every agent of the
 * process through the memory store's slot (create.ts). Each call runs to completion without awaiting,
 * so a publish, pin or retire is as atomic here as its Lua script is on Redis. Skills are configuration
 * and never expire; the counts of checks.ts and a byte budget bound what the process holds.
 */
import { ManifoldError } from "../../errors/index.js";
import {
  activeOf,
  checkPublish,
  checkNamespace,
  checkSkillName,
  checkVersion,
  conflict,
  MAX_LIST,
  missingSkill,
  missingVersion,
  oldestRetired,
  resolveLimits,
  retiredVersion,
  summaryOf,
  tooManyNamespaces,
  tooManySkills,
  tooManyVersions,
  versionOf,
  type ResolvedLimits,
  type SkillMeta,
  type SkillStoreLimits,
  type VersionBody,
  type VersionMeta,
} from "./checks.js";
import { tracedSkillStore } from "./telemetry.js";
import type { SkillResource, SkillStore, SkillSummary, SkillVersion, SkillVersionInput } from "./types.js";

/** The embedded registry's default byte budget (instructions, descriptions and resource texts). */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export interface MemorySkillStoreOptions extends SkillStoreLimits {
  /** Past it a publish is LIMIT_EXCEEDED (skills are configuration: nothing is evicted). @defaultValue DEFAULT_MAX_BYTES */
  readonly maxBytes?: number;
  /** For tests: the clock of `published_at` and `retired_at`. @defaultValue Date.now */
  readonly now?: () => number;
}

interface StoredVersion {
  meta: VersionMeta;
  readonly body: VersionBody;
  readonly resources: ReadonlyMap<string, SkillResource>;
  readonly bytes: number;
}

interface StoredSkill {
  readonly namespace: string;
  readonly name: string;
  pin: string | undefined;
  seq: number;
  readonly versions: Map<string, StoredVersion>;
}

const metaOf = (skill: StoredSkill): SkillMeta => ({
  namespace: skill.namespace,
  name: skill.name,
  pin: skill.pin,
  versions: [...skill.versions.values()].map((v) => v.meta),
});

interface State {
  readonly namespaces: Map<string, Map<string, StoredSkill>>;
  readonly limits: ResolvedLimits;
  readonly maxBytes: number;
  readonly at: () => string;
  bytes: number;
}

const find = (state: State, namespace: string, name: string): StoredSkill | undefined => state.namespaces.get(namespace)?.get(name);

/** The skill a new version goes into, made (and counted against the bounds) when it is the first. */
function skillFor({ namespaces, limits }: State, namespace: string, name: string): StoredSkill {
  let skills = namespaces.get(namespace);
  if (skills === undefined) {
    if (namespaces.size >= limits.maxNamespaces) throw tooManyNamespaces(limits.maxNamespaces);
    skills = new Map();
    namespaces.set(namespace, skills);
  }
  let skill = skills.get(name);
  if (skill === undefined) {
    if (skills.size >= limits.maxSkillsPerNamespace) throw tooManySkills(namespace, limits.maxSkillsPerNamespace);
    skill = { namespace, name, pin: undefined, seq: 0, versions: new Map() };
    skills.set(name, skill);
  }
  return skill;
}

/** Makes room for one more version: the oldest retired goes, else LIMIT_EXCEEDED. */
function makeRoom(state: State, skill: StoredSkill): void {
  if (skill.versions.size < state.limits.maxVersions) return;
  const old = oldestRetired([...skill.versions.values()].map((v) => v.meta));
  if (old === undefined) throw tooManyVersions(skill.namespace, skill.name, state.limits.maxVersions);
  state.bytes -= skill.versions.get(old.version)!.bytes;
  skill.versions.delete(old.version);
}

function publish(state: State, input: SkillVersionInput): SkillVersion {
  const checked = checkPublish(input);
  const { namespace, name, version, description } = checked.input;
  const existing = find(state, namespace, name)?.versions.get(version);
  if (existing !== undefined) {
    if (existing.meta.digest !== checked.digest) throw conflict(namespace, name, version);
    return versionOf(metaOf(find(state, namespace, name)!), existing.meta, existing.body);
  }
  const texts = checked.resources.reduce((n, r) => n + (r.text === undefined ? 0 : r.bytes), 0);
  const size = Buffer.byteLength(checked.body.instructions) + Buffer.byteLength(description) + texts;
  if (state.bytes + size > state.maxBytes)
    throw new ManifoldError("LIMIT_EXCEEDED", `the embedded skill registry holds its ${Math.round(state.maxBytes / 1048576)} MiB: configure Redis (REDIS_URL)`);
  const skill = skillFor(state, namespace, name);
  makeRoom(state, skill);
  const meta: VersionMeta = { version, digest: checked.digest, published_at: state.at(), description, seq: ++skill.seq };
  const stored: StoredVersion = {
    meta,
    body: Object.freeze({ ...checked.body, resources: Object.freeze(checked.body.resources.map((r) => Object.freeze({ ...r }))) }),
    resources: new Map(checked.resources.map((r) => [r.path, Object.freeze({ ...r })])),
    bytes: size,
  };
  skill.versions.set(version, stored);
  state.bytes += size;
  return versionOf(metaOf(skill), meta, stored.body);
}

function list({ namespaces }: State, namespace: string | undefined): SkillSummary[] {
  if (namespace !== undefined) checkNamespace(namespace);
  const chosen = namespace === undefined ? [...namespaces.keys()].sort() : namespaces.has(namespace) ? [namespace] : [];
  const found: SkillSummary[] = [];
  for (const ns of chosen) {
    const skills = namespaces.get(ns)!;
    for (const name of [...skills.keys()].sort()) {
      if (found.length >= MAX_LIST) return found;
      const skill = skills.get(name)!;
      if (skill.versions.size > 0) found.push(summaryOf(metaOf(skill)));
    }
  }
  return found;
}

function pin(state: State, namespace: string, name: string, version: string | undefined): SkillSummary {
  checkSkillName(namespace, name);
  const skill = find(state, namespace, name);
  if (skill === undefined || skill.versions.size === 0) throw missingSkill(namespace, name);
  if (version === undefined) skill.pin = undefined;
  else {
    const stored = skill.versions.get(checkVersion(version));
    if (stored === undefined) throw missingVersion(namespace, name, version);
    if (stored.meta.retired_at !== undefined) throw retiredVersion(namespace, name, version);
    skill.pin = version;
  }
  return summaryOf(metaOf(skill));
}

function retire(state: State, namespace: string, name: string, version: string): SkillSummary {
  checkSkillName(namespace, name);
  checkVersion(version);
  const skill = find(state, namespace, name);
  const stored = skill?.versions.get(version);
  if (skill === undefined || stored === undefined) throw missingVersion(namespace, name, version);
  if (stored.meta.retired_at === undefined) stored.meta = { ...stored.meta, retired_at: state.at() };
  if (skill.pin === version) skill.pin = undefined;
  return summaryOf(metaOf(skill));
}

export function createMemorySkillStore({ maxBytes = DEFAULT_MAX_BYTES, now = Date.now, ...limits }: MemorySkillStoreOptions = {}): SkillStore {
  const state: State = { namespaces: new Map(), limits: resolveLimits(limits), maxBytes, at: () => new Date(now()).toISOString(), bytes: 0 };
  return tracedSkillStore({
    kind: "memory",
    publish: async (input) => publish(state, input),
    async get(namespace, name, version) {
      checkSkillName(namespace, name);
      if (version !== undefined) checkVersion(version);
      const skill = find(state, namespace, name);
      if (skill === undefined) return undefined;
      const meta = metaOf(skill);
      const chosen = version ?? activeOf(meta)?.version;
      const stored = chosen === undefined ? undefined : skill.versions.get(chosen);
      return stored === undefined ? undefined : versionOf(meta, stored.meta, stored.body);
    },
    list: async (namespace) => list(state, namespace),
    pin: async (namespace, name, version) => pin(state, namespace, name, version),
    retire: async (namespace, name, version) => retire(state, namespace, name, version),
    async resource(namespace, name, version, path) {
      checkSkillName(namespace, name);
      checkVersion(version);
      return find(state, namespace, name)?.versions.get(version)?.resources.get(path);
    },
    async close() {},
  });
}
