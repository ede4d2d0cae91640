/**
 * `kind: a2a`: a remote A2A agent used as a component. The manifest says where its agent card is; the
 * skills come from the lock file beside it (`<name>.a2a-lock.json`, written by `manifold gen`), so
 * loading never contacts the agent. Each skill becomes a capability (endpoint `a2a:<skill id>`):
 * a skill whose card publishes JSON Schemas (a Manifold agent's card does, in its skill-schemas
 * extension) has them mapped by json-schema-fields.ts; a skill without is text in, text out
 * (`{text: string}` both ways). The rest of the checks then see the agent like any tool.
 */
import { posix } from "node:path";
import { A2A_LOCK_VERSION, a2aLockFileName, a2aLockHash, parseDuration, toCamelCase } from "../spec/index.js";
import type { A2aAgentSpec, A2aLock, A2aLockSkill, ComponentSpec } from "../spec/index.js";
import type { DiagnosticCode } from "./codes.js";
import { createDiagnostic } from "./diagnostics/create.js";
import type { ManifestFiles } from "./feature.js";
import { jsonSchemaFields } from "./json-schema-fields.js";
import { capabilityNameOf } from "./load-mcp.js";
import type { RawA2a, RawCapability, RawComponent } from "./manifest-types.js";
import { normaliseComponent } from "./normalise.js";
import type { A2aManifestInfo, Diagnostic } from "./project.js";
import { isRecord, readLockJson } from "./remote-lock.js";
import { valuePosition, type Path, type SourceFile } from "./source-file.js";

export interface A2aLoadResult {
  readonly diagnostics: Diagnostic[];
  readonly info?: A2aManifestInfo;
  readonly view?: RawComponent;
  readonly component?: ComponentSpec;
}

/** The lock file of the manifest `file` declaring `name`: beside it. */
export function a2aLockPath(file: string, name: string): string {
  return posix.join(posix.dirname(file), a2aLockFileName(name));
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

const isLockSkill = (value: unknown): value is A2aLockSkill =>
  isRecord(value) &&
  typeof value["id"] === "string" &&
  typeof value["name"] === "string" &&
  typeof value["description"] === "string" &&
  Array.isArray(value["tags"]) &&
  (value["inputSchema"] === undefined || isRecord(value["inputSchema"])) &&
  (value["outputSchema"] === undefined || isRecord(value["outputSchema"]));

const isLockAgent = (value: unknown): value is A2aLock["agent"] =>
  isRecord(value) && ["name", "description", "version", "url"].every((key) => typeof value[key] === "string") && isHttpUrl(String(value["url"]));

type LockRead = { readonly lock: A2aLock } | { readonly code: DiagnosticCode; readonly message: string; readonly missing: boolean };

const REFRESH = "run `manifold gen --refresh-a2a` to fetch the card again";

function readLock(path: string, files: ManifestFiles | undefined): LockRead {
  const read = readLockJson(path, files, A2A_LOCK_VERSION);
  if ("missing" in read) {
    const how = "run `manifold gen`, which fetches the agent card, or `manifold gen --refresh-a2a`, then commit it";
    return { code: "MF1702", missing: true, message: `the lock file ${path} is missing: ${how}` };
  }
  const invalid = (why: string): LockRead => ({ code: "MF1703", missing: false, message: `the lock file ${path} ${why}; ${REFRESH}` });
  if ("invalid" in read) return invalid(read.invalid);
  const { agent, skills, hash } = read.value;
  if (!isLockAgent(agent)) return invalid("has no `agent` name, description, version and http(s) `url`");
  if (!Array.isArray(skills) || !skills.every(isLockSkill)) return invalid("has a `skills` list that is not the card's skills");
  if (hash !== a2aLockHash(agent, skills)) return invalid("has a `hash` that does not match its agent and skills (was it edited by hand?)");
  return { lock: read.value as unknown as A2aLock };
}

/** Text in, text out: a skill whose card publishes no schema for that side. */
const TEXT_INPUT = { required: [{ name: "text", type: "string" as const, description: "The message's text" }] };
const TEXT_OUTPUT = { required: [{ name: "text", type: "string" as const, description: "The agent's text answer" }] };

function capabilityOf(skill: A2aLockSkill, agent: string): RawCapability {
  const input = skill.inputSchema === undefined ? TEXT_INPUT : jsonSchemaFields(skill.inputSchema);
  const output = skill.outputSchema === undefined ? TEXT_OUTPUT : jsonSchemaFields(skill.outputSchema);
  const description = [skill.description, skill.name].find((text) => text.trim() !== "") ?? `The ${skill.id} skill of the A2A agent ${agent}`;
  return {
    name: capabilityNameOf(skill.id),
    description,
    type: "tool",
    internal: false,
    endpoint: `a2a:${skill.id}`,
    ...(input !== undefined && { input }),
    ...(output !== undefined && { output }),
  };
}

/** MF1704 for two skills taking one capability name or TypeScript key. */
function clashes(skills: readonly A2aLockSkill[]): string[] {
  const problems: string[] = [];
  const taken = new Map<string, string>();
  for (const skill of skills) {
    const name = capabilityNameOf(skill.id);
    const key = toCamelCase(name);
    const first = taken.get(name) ?? taken.get(`key:${key}`);
    if (first !== undefined) {
      problems.push(
        `skills \`${first}\` and \`${skill.id}\` of the agent both become the capability \`${name}\` (\`${key}\` in TypeScript); the remote agent must name them apart`,
      );
      continue;
    }
    taken.set(name, skill.id);
    taken.set(`key:${key}`, skill.id);
  }
  return problems;
}

function addressOf(raw: RawA2a): A2aManifestInfo["address"] {
  const timeoutMs = raw.timeout === undefined ? undefined : parseDuration(raw.timeout);
  return { cardUrl: raw.card_url, ...(raw.auth !== undefined && { tokenEnv: raw.auth.token_env }), ...(timeoutMs !== undefined && { timeoutMs }) };
}

function componentOf(raw: RawA2a, lock: A2aLock, address: A2aManifestInfo["address"]): { view: RawComponent; component: ComponentSpec } {
  const description = raw.description ?? (lock.agent.description.trim() === "" ? `The remote A2A agent ${lock.agent.name}` : lock.agent.description);
  const version = /^\d+\.\d+\.\d+/.test(lock.agent.version) ? lock.agent.version : "1.0.0";
  const view: RawComponent = { kind: "tool", name: raw.name, description, version, capabilities: lock.skills.map((s) => capabilityOf(s, lock.agent.name)) };
  const base = normaliseComponent(view, []);
  const a2aAgent: A2aAgentSpec = { ...address, url: lock.agent.url, hash: lock.hash };
  const component: ComponentSpec = {
    ...base,
    capabilities: base.capabilities.map((capability, i) => ({ ...capability, a2aSkill: { id: lock.skills[i]!.id } })),
    a2aAgent,
  };
  return { view, component };
}

/** One `kind: a2a` manifest that passed the meta-schema: its card URL, its lock, its component. */
export function loadA2aManifest(source: SourceFile, raw: RawA2a, files: ManifestFiles | undefined): A2aLoadResult {
  const report = (code: DiagnosticCode, path: Path, message: string): Diagnostic => createDiagnostic(code, source.file, valuePosition(source, path), message);
  if (!isHttpUrl(raw.card_url))
    return {
      diagnostics: [report("MF1701", ["card_url"], "`card_url` must be an http:// or https:// URL of the agent's card (…/.well-known/agent-card.json)")],
    };
  const address = addressOf(raw);
  const lockFile = a2aLockPath(source.file, raw.name);
  const at = valuePosition(source, ["card_url"]);
  const read = readLock(lockFile, files);
  if (!("lock" in read)) {
    const info: A2aManifestInfo = { file: source.file, name: raw.name, address, lockFile, lock: read.missing ? "missing" : "invalid", at };
    return { diagnostics: [report(read.code, ["name"], read.message)], info };
  }
  const info: A2aManifestInfo = { file: source.file, name: raw.name, address, lockFile, lock: "ok", at };
  const clash = clashes(read.lock.skills);
  if (clash.length > 0) return { diagnostics: clash.map((message) => report("MF1704", ["name"], message)), info };
  return { diagnostics: [], info, ...componentOf(raw, read.lock, address) };
}
