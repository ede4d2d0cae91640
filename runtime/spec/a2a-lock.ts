/**
 * The snapshot of a remote A2A agent's card that `manifold gen` keeps beside a `kind: a2a` manifest
 * (`<name>.a2a-lock.json`, committed): the card reduced to what gen and the runtime read. gen works
 * offline from it; `gen --refresh-a2a` rewrites it and `gen --check --refresh-a2a` compares it with
 * the live card by `hash`.
 */
import { contentHash } from "./canonical-json.js";

export const A2A_LOCK_VERSION = 1;

/**
 * The card extension (`capabilities.extensions[].uri`) in which a Manifold agent publishes its
 * skills' JSON Schemas: `params.skills[<skill id>] = {input_schema?, output_schema?}`. AgentSkill has
 * no field for them; an extension is how A2A lets a card carry more, and other clients ignore it.
 */
export const SKILL_SCHEMAS_EXTENSION = "https://agent-manifold.dev/a2a/extensions/skill-schemas/v1";

/** A card with more skills than this is refused: 1000 skills is far past any real agent. */
export const MAX_A2A_SKILLS = 1000;

/** One skill of the card. Without schemas the skill is text in, text out. */
export interface A2aLockSkill {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
}

export interface A2aLockAgent {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** The card's JSON-RPC interface: where calls go. */
  readonly url: string;
}

export interface A2aLock {
  readonly lockfileVersion: typeof A2A_LOCK_VERSION;
  readonly agent: A2aLockAgent;
  /** Sorted by id. */
  readonly skills: readonly A2aLockSkill[];
  /** `sha256-<base64>` of the canonical JSON of `{agent, skills}`: what `--check --refresh-a2a` compares. */
  readonly hash: string;
}

/** `<manifest name>.a2a-lock.json`. */
export function a2aLockFileName(manifestName: string): string {
  return `${manifestName}.a2a-lock.json`;
}

export function a2aLockHash(agent: A2aLockAgent, skills: readonly A2aLockSkill[]): string {
  return contentHash({ agent, skills });
}

type Json = Readonly<Record<string, unknown>>;
const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The JSON-RPC URL: a v1.0 card's `supportedInterfaces`, else a v0.3 card's `url` (its preferred transport JSON-RPC or unsaid). */
function interfaceUrl(card: Json): string | undefined {
  const interfaces = Array.isArray(card["supportedInterfaces"]) ? card["supportedInterfaces"] : [];
  for (const entry of interfaces)
    if (isRecord(entry) && text(entry["protocolBinding"]).toUpperCase() === "JSONRPC" && text(entry["url"]) !== "") return text(entry["url"]);
  const preferred = text(card["preferredTransport"]).toUpperCase();
  return text(card["url"]) !== "" && (preferred === "" || preferred === "JSONRPC") ? text(card["url"]) : undefined;
}

function skillSchemas(card: Json): Json {
  const capabilities = isRecord(card["capabilities"]) ? card["capabilities"] : {};
  const extensions = Array.isArray(capabilities["extensions"]) ? capabilities["extensions"] : [];
  const ours = extensions.find((e) => isRecord(e) && e["uri"] === SKILL_SCHEMAS_EXTENSION);
  return isRecord(ours) && isRecord(ours["params"]) && isRecord(ours["params"]["skills"]) ? ours["params"]["skills"] : {};
}

function skillOf(value: Json, schemas: Json): A2aLockSkill {
  const id = text(value["id"]);
  const own = isRecord(schemas[id]) ? schemas[id] : {};
  const tags = Array.isArray(value["tags"]) ? value["tags"].filter((t): t is string => typeof t === "string") : [];
  return {
    id,
    name: text(value["name"]) || id,
    description: text(value["description"]),
    tags,
    ...(isRecord(own["input_schema"]) && { inputSchema: own["input_schema"] }),
    ...(isRecord(own["output_schema"]) && { outputSchema: own["output_schema"] }),
  };
}

/** A fetched agent card (its JSON) as the lock, or why it cannot be one. */
export function buildA2aLock(card: unknown): { readonly lock: A2aLock } | { readonly error: string } {
  if (!isRecord(card) || typeof card["name"] !== "string") return { error: "the answer is not an agent card (no `name`)" };
  const url = interfaceUrl(card);
  if (url === undefined) return { error: "the card names no JSON-RPC interface (`supportedInterfaces` with protocolBinding JSONRPC, or `url`)" };
  const raw = Array.isArray(card["skills"]) ? card["skills"] : [];
  if (raw.length > MAX_A2A_SKILLS) return { error: `the card lists ${raw.length} skills, more than ${MAX_A2A_SKILLS}` };
  if (!raw.every((s) => isRecord(s) && typeof s["id"] === "string" && s["id"] !== "")) return { error: "a skill of the card has no `id`" };
  const schemas = skillSchemas(card);
  const skills = (raw as Json[]).map((s) => skillOf(s, schemas)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const agent: A2aLockAgent = { name: card["name"], description: text(card["description"]), version: text(card["version"]), url };
  return { lock: { lockfileVersion: A2A_LOCK_VERSION, agent, skills, hash: a2aLockHash(agent, skills) } };
}
