/**
 * What both skill store adapters share: the bounds and name rules a publish is checked against
 * (before anything is written, so a refused publish leaves no trace), the version order that picks
 * the active version, and the summary a skill's metadata makes. The adapters differ only in where the
 * metadata lives; the rules are these.
 */
import { ManifoldError, type ErrorDetail } from "../../errors/index.js";
import { skillDigest } from "../digest.js";
import type { SkillResource, SkillSummary, SkillVersion, SkillVersionInput } from "./types.js";

/** Names and namespaces: the Agent Skills `name` rule (lowercase letters, digits, hyphens). */
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** A version is any short token (`1.2.0`, `2024-06-01`, `1.0.0-rc.1+build.5`); semver ones are ordered as semver. */
export const SKILL_VERSION = /^[0-9A-Za-z.+-]{1,64}$/;

export const MAX_INSTRUCTIONS_BYTES = 32 * 1024;
export const MAX_RESOURCE_BYTES = 64 * 1024;
export const MAX_RESOURCES = 64;
/** Text of all resources of one version together (gen's bound on a skill folder). */
export const MAX_RESOURCES_TEXT_BYTES = 512 * 1024;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_LICENSE_CHARS = 256;
export const MAX_RESOURCE_PATH_CHARS = 256;
/** Past it the oldest retired version is dropped to make room, else the publish is LIMIT_EXCEEDED. */
export const MAX_VERSIONS = 100;
export const MAX_SKILLS_PER_NAMESPACE = 1000;
export const MAX_NAMESPACES = 100;
/** Most summaries one `list()` returns (every namespace together). */
export const MAX_LIST = 1000;

/** The bounds an adapter enforces; tests may lower the counts. */
export interface SkillStoreLimits {
  /** @defaultValue MAX_VERSIONS */
  readonly maxVersions?: number;
  /** @defaultValue MAX_SKILLS_PER_NAMESPACE */
  readonly maxSkillsPerNamespace?: number;
  /** @defaultValue MAX_NAMESPACES */
  readonly maxNamespaces?: number;
}

export interface ResolvedLimits {
  readonly maxVersions: number;
  readonly maxSkillsPerNamespace: number;
  readonly maxNamespaces: number;
}

export function resolveLimits({
  maxVersions = MAX_VERSIONS,
  maxSkillsPerNamespace = MAX_SKILLS_PER_NAMESPACE,
  maxNamespaces = MAX_NAMESPACES,
}: SkillStoreLimits = {}): ResolvedLimits {
  for (const [name, value] of Object.entries({ maxVersions, maxSkillsPerNamespace, maxNamespaces }))
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of at least 1 (got ${value})`);
  return { maxVersions, maxSkillsPerNamespace, maxNamespaces };
}

/** One version's metadata as both adapters keep it: everything but the instructions and resource texts. */
export interface VersionMeta {
  readonly version: string;
  readonly digest: string;
  readonly published_at: string;
  readonly description: string;
  /** Publish order within the skill, from 1. */
  readonly seq: number;
  readonly retired_at?: string;
}

/** A skill as read back: its versions' metadata and its pin. */
export interface SkillMeta {
  readonly namespace: string;
  readonly name: string;
  readonly pin: string | undefined;
  readonly versions: readonly VersionMeta[];
}

/** What a version keeps besides its metadata: the instructions, license and resource listing (no texts). */
export interface VersionBody {
  readonly license?: string;
  readonly instructions: string;
  readonly resources: readonly SkillResource[];
}

/** A publish after its checks: the version's metadata fields, its body, and each text to keep apart. */
export interface CheckedPublish {
  readonly input: SkillVersionInput;
  readonly digest: string;
  readonly body: VersionBody;
  /** Each resource as `resource()` answers it (text included when it has one). */
  readonly resources: readonly SkillResource[];
}

const bytesOf = (text: string): number => Buffer.byteLength(text, "utf8");
/**
 * More than `max` characters, counted as code points as the Agent Skills format, JSON Schema's
 * `maxLength` and gen (format-front-matter.ts) count them, so a skill gen accepts is never refused
 * here for a description written with emoji. Each code point is one or two UTF-16 units.
 */
export const longerThan = (text: string, max: number): boolean => text.length > max && (text.length > 2 * max || [...text].length > max);
const quoted = (value: unknown): string => JSON.stringify(typeof value === "string" ? value.slice(0, 80) : String(value).slice(0, 80));

function invalid(message: string, details: readonly ErrorDetail[]): ManifoldError {
  return new ManifoldError("INVALID_INPUT", message, { details });
}

/** A namespace and name a caller gave (a route's path, a store call): INVALID_INPUT with pointers when either breaks the rule. */
export function checkSkillName(
  namespace: unknown,
  name: unknown,
  pointers: { namespace: string; name: string } = { namespace: "/namespace", name: "/name" },
): void {
  const details = [
    ...(typeof namespace === "string" && SKILL_NAME.test(namespace)
      ? []
      : [{ pointer: pointers.namespace, message: "must be 1-64 lowercase letters, digits or '-', starting with a letter or digit" }]),
    ...(typeof name === "string" && SKILL_NAME.test(name)
      ? []
      : [{ pointer: pointers.name, message: "must be 1-64 lowercase letters, digits or '-', starting with a letter or digit" }]),
  ];
  if (details.length > 0) throw invalid(`skill ${quoted(namespace)}/${quoted(name)} is not a valid skill name`, details);
}

/** A namespace a caller gave (`list`'s filter): INVALID_INPUT with its pointer. */
export function checkNamespace(namespace: unknown, pointer = "/namespace"): string {
  if (typeof namespace === "string" && SKILL_NAME.test(namespace)) return namespace;
  throw invalid(`namespace ${quoted(namespace)} is not valid`, [
    { pointer, message: "must be 1-64 lowercase letters, digits or '-', starting with a letter or digit" },
  ]);
}

export function checkVersion(version: unknown, pointer = "/version"): string {
  if (typeof version === "string" && SKILL_VERSION.test(version)) return version;
  throw invalid(`version ${quoted(version)} is not valid`, [{ pointer, message: "must be 1-64 letters, digits, '.', '+' or '-'" }]);
}

/** A resource path relative to the skill folder: no absolute path, no `..`, no empty or dot segment, no control or backslash characters. */
export function isResourcePath(path: unknown): path is string {
  if (typeof path !== "string" || path === "" || longerThan(path, MAX_RESOURCE_PATH_CHARS)) return false;
  if (/[\u0000-\u001f\u007f\\]/.test(path) || path.startsWith("/")) return false;
  return path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

function checkResources(resources: unknown): { details: ErrorDetail[]; kept: SkillResource[] } {
  if (!Array.isArray(resources)) return { details: [{ pointer: "/resources", message: "must be an array" }], kept: [] };
  if (resources.length > MAX_RESOURCES)
    throw new ManifoldError("PAYLOAD_TOO_LARGE", `a skill version has at most ${MAX_RESOURCES} resources (got ${resources.length})`);
  const details: ErrorDetail[] = [];
  const kept: SkillResource[] = [];
  const seen = new Set<string>();
  let textBytes = 0;
  resources.forEach((resource: unknown, i) => {
    const at = `/resources/${i}`;
    const { path, text, bytes } = (typeof resource === "object" && resource !== null ? resource : {}) as Record<string, unknown>;
    if (!isResourcePath(path))
      return void details.push({ pointer: `${at}/path`, message: "must be a relative path inside the skill folder (no '..', no leading '/')" });
    if (seen.has(path)) return void details.push({ pointer: `${at}/path`, message: `${quoted(path)} is listed twice` });
    seen.add(path);
    if (typeof text === "string") {
      const size = bytesOf(text);
      if (size > MAX_RESOURCE_BYTES) throw new ManifoldError("PAYLOAD_TOO_LARGE", `resource ${quoted(path)} is larger than ${MAX_RESOURCE_BYTES} bytes`);
      textBytes += size;
      return void kept.push({ path, bytes: size, text });
    }
    if (text !== undefined) return void details.push({ pointer: `${at}/text`, message: "must be a string" });
    // A binary file is listed by its size, never read into a prompt.
    if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 0)
      return void details.push({ pointer: `${at}/bytes`, message: "must be a whole number of bytes (a resource without text)" });
    kept.push({ path, bytes });
  });
  if (textBytes > MAX_RESOURCES_TEXT_BYTES)
    throw new ManifoldError("PAYLOAD_TOO_LARGE", `a skill version's resources hold at most ${MAX_RESOURCES_TEXT_BYTES} bytes of text`);
  return { details, kept: kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

/**
 * A publish's input, checked before anything is stored: INVALID_INPUT with a pointer per problem,
 * PAYLOAD_TOO_LARGE past a byte bound. Resources come back sorted by path with their byte counts
 * measured (a text's given `bytes` is not trusted), and the digest is computed from exactly them.
 */
export function checkPublish(input: SkillVersionInput): CheckedPublish {
  const raw = input as unknown as Record<string, unknown>;
  checkSkillName(raw["namespace"], raw["name"]);
  checkVersion(raw["version"]);
  const { description, license, instructions } = raw;
  const details: ErrorDetail[] = [];
  if (typeof description !== "string" || description.trim() === "" || longerThan(description, MAX_DESCRIPTION_CHARS))
    details.push({ pointer: "/description", message: `must be a non-empty string of at most ${MAX_DESCRIPTION_CHARS} characters` });
  if (license !== undefined && (typeof license !== "string" || longerThan(license, MAX_LICENSE_CHARS)))
    details.push({ pointer: "/license", message: `must be a string of at most ${MAX_LICENSE_CHARS} characters` });
  if (typeof instructions !== "string") details.push({ pointer: "/instructions", message: "must be a string (the Markdown body of SKILL.md)" });
  else if (bytesOf(instructions) > MAX_INSTRUCTIONS_BYTES)
    throw new ManifoldError("PAYLOAD_TOO_LARGE", `a skill's instructions are at most ${MAX_INSTRUCTIONS_BYTES} bytes`);
  const resources = checkResources(raw["resources"] ?? []);
  details.push(...resources.details);
  if (details.length > 0) throw invalid(`skill ${input.namespace}/${input.name}@${input.version} is not valid`, details);
  const kept = resources.kept;
  const digest = skillDigest({ instructions: instructions as string, resources: kept });
  const body: VersionBody = {
    ...(typeof license === "string" ? { license } : {}),
    instructions: instructions as string,
    resources: kept.map(({ path, bytes }) => ({ path, bytes })),
  };
  const checked: SkillVersionInput = {
    namespace: input.namespace,
    name: input.name,
    version: input.version,
    description: description as string,
    ...(typeof license === "string" ? { license } : {}),
    instructions: instructions as string,
    resources: body.resources,
  };
  return { input: checked, digest, body, resources: kept };
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

/** Numeric identifiers of any length, compared without losing precision. */
function compareNumeric(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/** Semver precedence (build metadata ignored): negative when a < b. */
function compareSemver(a: RegExpExecArray, b: RegExpExecArray): number {
  for (let i = 1; i <= 3; i++) {
    const order = compareNumeric(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  const [pa, pb] = [a[4], b[4]];
  if (pa === undefined || pb === undefined) return pa === pb ? 0 : pa === undefined ? 1 : -1;
  const [xs, ys] = [pa.split("."), pb.split(".")];
  for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
    const [x, y] = [xs[i]!, ys[i]!];
    const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    const order = nx && ny ? compareNumeric(x, y) : nx ? -1 : ny ? 1 : x < y ? -1 : x > y ? 1 : 0;
    if (order !== 0) return order;
  }
  return xs.length - ys.length;
}

/**
 * Newest first, the order the active version is chosen in: semver versions by precedence, then the
 * others; equal precedence (build metadata only) and non-semver versions by publish order, latest first.
 */
export function newestFirst(versions: readonly VersionMeta[]): VersionMeta[] {
  const parsed = new Map(versions.map((v) => [v, SEMVER.exec(v.version) ?? undefined]));
  return [...versions].sort((a, b) => {
    const [sa, sb] = [parsed.get(a), parsed.get(b)];
    if (sa !== undefined && sb !== undefined) {
      const order = compareSemver(sb, sa);
      if (order !== 0) return order;
    } else if (sa !== undefined || sb !== undefined) return sa !== undefined ? -1 : 1;
    return b.seq - a.seq;
  });
}

/** The version a request uses now: the pin, else the newest not retired; undefined when all are retired. */
export function activeOf(meta: SkillMeta): VersionMeta | undefined {
  const ordered = newestFirst(meta.versions);
  if (meta.pin !== undefined) {
    const pinned = ordered.find((v) => v.version === meta.pin);
    if (pinned !== undefined && pinned.retired_at === undefined) return pinned;
  }
  return ordered.find((v) => v.retired_at === undefined);
}

export function summaryOf(meta: SkillMeta): SkillSummary {
  const ordered = newestFirst(meta.versions);
  const active = activeOf(meta);
  const pinned = meta.pin !== undefined && ordered.some((v) => v.version === meta.pin) ? meta.pin : undefined;
  return {
    namespace: meta.namespace,
    name: meta.name,
    ...(active === undefined ? {} : { active: active.version }),
    ...(pinned === undefined ? {} : { pinned }),
    description: (active ?? ordered[0])?.description ?? "",
    versions: ordered.map(({ version, digest, published_at, retired_at }) => ({
      version,
      digest,
      published_at,
      ...(retired_at === undefined ? {} : { retired_at }),
    })),
  };
}

export function versionOf(meta: SkillMeta, version: VersionMeta, body: VersionBody): SkillVersion {
  return {
    namespace: meta.namespace,
    name: meta.name,
    version: version.version,
    description: version.description,
    ...(body.license === undefined ? {} : { license: body.license }),
    instructions: body.instructions,
    resources: body.resources,
    digest: version.digest,
    published_at: version.published_at,
    ...(version.retired_at === undefined ? {} : { retired_at: version.retired_at }),
  };
}

/** The oldest retired version (by publish order): what a full skill drops to take a new version. */
export function oldestRetired(versions: readonly VersionMeta[]): VersionMeta | undefined {
  return versions.filter((v) => v.retired_at !== undefined).sort((a, b) => a.seq - b.seq)[0];
}

export const conflict = (namespace: string, name: string, version: string): ManifoldError =>
  new ManifoldError(
    "CONFLICT",
    `skill ${namespace}/${name}@${version} is already published with other content: versions are immutable, publish a new version`,
    { details: [{ pointer: "/version", message: "already published with another digest" }] },
  );

export const missingSkill = (namespace: string, name: string): ManifoldError => new ManifoldError("NOT_FOUND", `no skill ${namespace}/${name}`);
export const missingVersion = (namespace: string, name: string, version: string): ManifoldError =>
  new ManifoldError("NOT_FOUND", `no version ${version} of skill ${namespace}/${name}`);
export const retiredVersion = (namespace: string, name: string, version: string): ManifoldError =>
  new ManifoldError("CONFLICT", `version ${version} of skill ${namespace}/${name} is retired and cannot be pinned`, {
    details: [{ pointer: "/version", message: "is retired" }],
  });
export const tooManyVersions = (namespace: string, name: string, max: number): ManifoldError =>
  new ManifoldError("LIMIT_EXCEEDED", `skill ${namespace}/${name} has ${max} versions, none retired: retire old versions before publishing more`);
export const tooManySkills = (namespace: string, max: number): ManifoldError =>
  new ManifoldError("LIMIT_EXCEEDED", `namespace ${namespace} holds ${max} skills, the most a namespace may hold`);
export const tooManyNamespaces = (max: number): ManifoldError =>
  new ManifoldError("LIMIT_EXCEEDED", `the registry holds ${max} namespaces, the most it may hold`);
