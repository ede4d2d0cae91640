/**
 * The skill registry on Redis. Each skill is three hashes under its own hash tag `{<namespace>/<name>}`
 * (so skills spread over a Cluster while one skill's scripts touch one slot): `skill:meta` (each
 * version's metadata, the pin, the publish counter), `skill:body` (each version's instructions and
 * resource listing) and `skill:res` (each resource's text, one field per `<version>\n<path>`, so
 * reading one resource loads no other). The index (the namespaces, and each namespace's skill names)
 * is under the store namespace's tag, bounded, written before a skill's first version. Publish, pin
 * and retire are Lua compare-and-sets (lua/); reads pick the active version from the metadata.
 * Skills are configuration: no TTL.
 */
import { defineLuaScript, runScript, type RedisStore } from "../../store/index.js";
import {
  activeOf,
  checkPublish,
  checkNamespace,
  checkSkillName,
  checkVersion,
  conflict,
  isResourcePath,
  MAX_LIST,
  missingSkill,
  missingVersion,
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

const lua = (file: string) => defineLuaScript("skills", new URL(`./lua/${file}`, import.meta.url));
const INDEX_ADD = lua("index-add-2.lua");
const PUBLISH = lua("publish-3.lua");
const PIN = lua("pin-1.lua");
const RETIRE = lua("retire-1.lua");

export interface RedisSkillStoreOptions extends SkillStoreLimits {
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
  /** For tests: the clock of `published_at` and `retired_at`. @defaultValue Date.now */
  readonly now?: () => number;
}

interface Keys {
  readonly namespaces: string;
  index(namespace: string): string;
  skill(namespace: string, name: string): { readonly meta: string; readonly body: string; readonly res: string };
}

function keysOf({ keys }: RedisStore): Keys {
  return {
    namespaces: keys.shared("skills", "namespaces"),
    index: (namespace) => keys.shared("skills", "index", namespace),
    skill: (namespace, name) => {
      const tag = `${namespace}/${name}`;
      return { meta: keys.tagged(tag, "skill", "meta"), body: keys.tagged(tag, "skill", "body"), res: keys.tagged(tag, "skill", "res") };
    },
  };
}

/** The metadata hash (HGETALL, as an object or the flat array a script returns) as a SkillMeta; undefined when the skill has no version. */
function metaOf(namespace: string, name: string, hash: Record<string, string> | readonly string[]): SkillMeta | undefined {
  const fields: Record<string, string> = Array.isArray(hash) ? {} : (hash as Record<string, string>);
  if (Array.isArray(hash)) for (let i = 0; i + 1 < hash.length; i += 2) fields[hash[i]!] = hash[i + 1]!;
  const versions: VersionMeta[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (!field.startsWith("s:")) continue;
    const version = field.slice(2);
    const stored = JSON.parse(value) as Omit<VersionMeta, "seq" | "retired_at">;
    const retired = fields[`t:${version}`];
    versions.push({ ...stored, seq: Number(fields[`q:${version}`] ?? "0"), ...(retired === undefined ? {} : { retired_at: retired }) });
  }
  if (versions.length === 0) return undefined;
  return { namespace, name, pin: fields["pin"], versions };
}

interface Skills {
  readonly client: RedisStore["client"];
  readonly keys: Keys;
  readonly limits: ResolvedLimits;
  readonly now: () => number;
}

async function readMeta({ client, keys }: Skills, namespace: string, name: string): Promise<SkillMeta | undefined> {
  return metaOf(namespace, name, await client.hgetall(keys.skill(namespace, name).meta));
}

async function readVersion(skills: Skills, meta: SkillMeta, version: string): Promise<SkillVersion | undefined> {
  const found = meta.versions.find((v) => v.version === version);
  if (found === undefined) return undefined;
  const body = await skills.client.hget(skills.keys.skill(meta.namespace, meta.name).body, version);
  // Dropped (an old retired version) between the two reads: as if it had not been found.
  return body === null ? undefined : versionOf(meta, found, JSON.parse(body) as VersionBody);
}

async function index({ client, keys, limits }: Skills, namespace: string, name: string): Promise<void> {
  const outcome = await runScript(
    client,
    INDEX_ADD,
    [keys.namespaces, keys.index(namespace)],
    [namespace, name, limits.maxNamespaces, limits.maxSkillsPerNamespace],
  );
  if (outcome === "namespaces") throw tooManyNamespaces(limits.maxNamespaces);
  if (outcome === "skills") throw tooManySkills(namespace, limits.maxSkillsPerNamespace);
}

async function publish(skills: Skills, input: SkillVersionInput): Promise<SkillVersion> {
  const checked = checkPublish(input);
  const { namespace, name, version, description } = checked.input;
  // Indexed first: a skill whose write then failed is listed by name only (list skips it), never a skill missing from the index.
  await index(skills, namespace, name);
  const key = skills.keys.skill(namespace, name);
  const published_at = new Date(skills.now()).toISOString();
  const outcome = (await runScript(
    skills.client,
    PUBLISH,
    [key.meta, key.body, key.res],
    [
      version,
      checked.digest,
      JSON.stringify({ version, digest: checked.digest, published_at, description }),
      JSON.stringify(checked.body),
      skills.limits.maxVersions,
      ...checked.resources.flatMap((r) => [r.path, JSON.stringify(r)]),
    ],
  )) as [string, number?];
  if (outcome[0] === "conflict") throw conflict(namespace, name, version);
  if (outcome[0] === "limit") throw tooManyVersions(namespace, name, skills.limits.maxVersions);
  const meta = await readMeta(skills, namespace, name);
  const stored = meta === undefined ? undefined : await readVersion(skills, meta, version);
  if (stored !== undefined) return stored;
  // Only a concurrent publish past the bound dropping it right away could get here: answer what was written.
  const written: VersionMeta = { version, digest: checked.digest, published_at, description, seq: Number(outcome[1] ?? 0) };
  return versionOf({ namespace, name, pin: undefined, versions: [written] }, written, checked.body);
}

async function list(skills: Skills, namespace: string | undefined): Promise<SkillSummary[]> {
  const { client, keys } = skills;
  if (namespace !== undefined) checkNamespace(namespace);
  const namespaces = namespace === undefined ? (await client.smembers(keys.namespaces)).sort() : [namespace];
  const found: SkillSummary[] = [];
  for (const ns of namespaces) {
    const names = (await client.smembers(keys.index(ns))).sort().slice(0, MAX_LIST - found.length);
    // One read per skill, concurrently: on a Cluster each skill is in a slot of its own, so no pipeline.
    const metas = await Promise.all(names.map((name) => readMeta(skills, ns, name)));
    for (const meta of metas) if (meta !== undefined) found.push(summaryOf(meta));
    if (found.length >= MAX_LIST) break;
  }
  return found;
}

/** A pin or retire script's outcome: the summary after it, or the error it stands for. */
function settled(namespace: string, name: string, version: string | undefined, outcome: [string, string[]?]): SkillSummary {
  const [status, hash] = outcome;
  if (status === "no_skill") throw missingSkill(namespace, name);
  if (status === "missing") throw missingVersion(namespace, name, version ?? "");
  if (status === "retired") throw retiredVersion(namespace, name, version ?? "");
  const meta = metaOf(namespace, name, hash ?? []);
  if (meta === undefined) throw missingSkill(namespace, name);
  return summaryOf(meta);
}

export function createRedisSkillStore(store: RedisStore, { ownsStore = false, now = Date.now, ...limits }: RedisSkillStoreOptions = {}): SkillStore {
  const skills: Skills = { client: store.client, keys: keysOf(store), limits: resolveLimits(limits), now };
  const { client, keys } = skills;
  return tracedSkillStore({
    kind: "redis",
    publish: (input) => publish(skills, input),
    async get(namespace, name, version) {
      checkSkillName(namespace, name);
      if (version !== undefined) checkVersion(version);
      const meta = await readMeta(skills, namespace, name);
      const chosen = meta === undefined ? undefined : (version ?? activeOf(meta)?.version);
      return chosen === undefined ? undefined : readVersion(skills, meta!, chosen);
    },
    list: (namespace) => list(skills, namespace),
    async pin(namespace, name, version) {
      checkSkillName(namespace, name);
      if (version !== undefined) checkVersion(version);
      const outcome = await runScript(client, PIN, [keys.skill(namespace, name).meta], [version ?? ""]);
      return settled(namespace, name, version, outcome as [string, string[]?]);
    },
    async retire(namespace, name, version) {
      checkSkillName(namespace, name);
      checkVersion(version);
      const outcome = await runScript(client, RETIRE, [keys.skill(namespace, name).meta], [version, new Date(now()).toISOString()]);
      return settled(namespace, name, version, outcome as [string, string[]?]);
    },
    async resource(namespace, name, version, path) {
      checkSkillName(namespace, name);
      checkVersion(version);
      if (!isResourcePath(path)) return undefined;
      const stored = await client.hget(keys.skill(namespace, name).res, `${version}\n${path}`);
      return stored === null ? undefined : (JSON.parse(stored) as SkillResource);
    },
    async close() {
      if (ownsStore) await store.close();
    },
  });
}
