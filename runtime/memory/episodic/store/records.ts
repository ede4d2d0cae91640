/**
 * What both episode adapters share: the bounds, the id format (time-sortable, so "older than" and
 * "newest first" are comparisons of ids), and the checks that keep every record within its bounds.
 * A record out of bounds is a caller's mistake (the recorder cuts everything before it appends):
 * INVALID_INPUT naming the bound, never the text.
 */
import { createHash, randomBytes } from "node:crypto";
import { ManifoldError } from "../../../errors/index.js";
import type { ActivityDigest, Episode, KnowledgeFragment } from "./types.js";

/** Most UTF-8 bytes of one event's text. */
export const MAX_EVENT_TEXT_BYTES = 500;
/** Most events in one episode. */
export const MAX_EVENTS = 50;
/** Most entities one episode is about. */
export const MAX_ENTITIES = 16;
export const MAX_ENTITY_BYTES = 128;
/** Most UTF-8 bytes of an episode's summary. */
export const MAX_SUMMARY_BYTES = 1024;
/** Most UTF-8 bytes of the activity digest. */
export const MAX_DIGEST_BYTES = 2048;
/** Most UTF-8 bytes of a knowledge fragment's text. */
export const MAX_FRAGMENT_BYTES = 1024;
/** Fragments kept per domain; the oldest go past it. */
export const MAX_FRAGMENTS = 10_000;
/** Most episodes one `recent` call returns. */
export const MAX_READ_LIMIT = 500;
/** Most episodes one reflection claim takes. */
export const MAX_CLAIM_LIMIT = 500;
/**
 * How long a reflection claim holds unless the caller says: a pass that died (or stalled) after
 * claiming loses its episodes to the first pass after this, and a pass never starts a model call in
 * the second half of its lease (runReflectionPass), so in the normal case it completes while its
 * claims are still its own.
 */
export const DEFAULT_CLAIM_LEASE_MS = 30 * 60_000;
/** The longest a reflection claim may hold. */
export const MAX_CLAIM_LEASE_MS = 24 * 3_600_000;
/** Most fragments one `knowledge` call returns. */
export const MAX_KNOWLEDGE_LIMIT = 100;
/** Most records (episodes and fragments) one sweep call deletes. */
export const MAX_SWEEP_LIMIT = 10_000;
/** Episodes kept per domain unless configured (`MANIFOLD_EPISODES_MAX`); the oldest go past it. */
export const DEFAULT_MAX_EPISODES = 100_000;
/** How long episodes and fragments are kept unless configured (`MANIFOLD_MEMORY_RETENTION`). */
export const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;

const ID = /^\d{13}-[0-9a-f]{8,32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const PASS_ID = /^reflect-[0-9a-f]{8,32}$/;

/** `<ms, 13 digits>-<16 hex>`: sorts by time, and records of one millisecond apart by chance. */
export function newRecordId(ms: number): string {
  return `${String(Math.max(0, Math.floor(ms))).padStart(13, "0")}-${randomBytes(8).toString("hex")}`;
}

export const isRecordId = (id: unknown): id is string => typeof id === "string" && ID.test(id);

/** The id prefix of `iso`: every record created before it has a smaller id. */
export function idBound(iso: string): string {
  const ms = isoMs("before", iso);
  return String(ms).padStart(13, "0");
}

export function isoMs(name: string, iso: unknown): number {
  const ms = typeof iso === "string" && ISO.test(iso) ? Date.parse(iso) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) throw invalid(`${name} must be an ISO 8601 UTC time`);
  return ms;
}

/** A short digest of an entity for key names (entities hold colons and spaces; keys may not). */
export function entityKey(entity: string): string {
  return createHash("sha1").update(entity).digest("hex").slice(0, 16);
}

export function invalid(message: string): ManifoldError {
  return new ManifoldError("INVALID_INPUT", message);
}

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

function checkText(name: string, value: unknown, max: number, { empty = false } = {}): void {
  if (typeof value !== "string" || (!empty && value === "") || bytes(value) > max) throw invalid(`${name} must be a string of ${empty ? 0 : 1}–${max} bytes`);
}

function checkOptional(name: string, value: unknown, max: number): void {
  if (value !== undefined) checkText(name, value, max);
}

export function checkLimit(name: string, value: unknown, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) throw invalid(`${name} must be an integer from 1 to ${max}`);
  return value;
}

export function checkLease(leaseMs: unknown): number {
  return checkLimit("leaseMs", leaseMs, MAX_CLAIM_LEASE_MS);
}

export function checkEntity(entity: unknown): string {
  checkText("entity", entity, MAX_ENTITY_BYTES);
  if ((entity as string) !== (entity as string).toLowerCase()) throw invalid("an entity is lowercase");
  return entity as string;
}

export function checkPassId(passId: unknown): string {
  if (typeof passId !== "string" || !PASS_ID.test(passId)) throw invalid("a reflection pass id is reflect-<hex>");
  return passId;
}

/** An episode within every bound, in this store's domain. */
export function checkEpisode(episode: Episode, domain: string): Episode {
  if (!isRecordId(episode?.id)) throw invalid("an episode id is <13-digit ms>-<hex>");
  if (episode.domain !== domain) throw invalid(`the episode belongs to domain ${JSON.stringify(episode.domain)}, not this store's`);
  checkOptional("request_id", episode.request_id, 256);
  checkOptional("user", episode.user, 256);
  checkText("status", episode.status, 32);
  isoMs("created_at", episode.created_at);
  if (episode.reflected_at !== undefined) isoMs("reflected_at", episode.reflected_at);
  if (!Array.isArray(episode.entities) || episode.entities.length > MAX_ENTITIES) throw invalid(`an episode is about at most ${MAX_ENTITIES} entities`);
  for (const entity of episode.entities) checkEntity(entity);
  if (new Set(episode.entities).size !== episode.entities.length) throw invalid("an episode names each entity once");
  if (!Array.isArray(episode.events) || episode.events.length > MAX_EVENTS) throw invalid(`an episode holds at most ${MAX_EVENTS} events`);
  for (const event of episode.events) {
    if (!["request", "step", "answer"].includes(event?.kind)) throw invalid("an event's kind is request, step or answer");
    checkOptional("an event's capability", event.capability, 256);
    checkOptional("an event's status", event.status, 32);
    checkText("an event's text", event.text, MAX_EVENT_TEXT_BYTES, { empty: true });
  }
  checkText("summary", episode.summary, MAX_SUMMARY_BYTES, { empty: true });
  if (!["complete", "partial", "fallback", "llm_unavailable", "parent_cancelled", "summary_timeout"].includes(episode.summary_outcome))
    throw invalid("summary_outcome is not one of the spec's outcomes");
  return episode;
}

export function checkDigest(digest: ActivityDigest): ActivityDigest {
  checkText("the digest's text", digest?.text, MAX_DIGEST_BYTES, { empty: true });
  if (!isRecordId(digest.through)) throw invalid("the digest's through is an episode id");
  if (!Number.isSafeInteger(digest.episodes) || digest.episodes < 0) throw invalid("the digest's episodes is a count");
  isoMs("updated_at", digest.updated_at);
  return digest;
}

export function checkFragment(fragment: KnowledgeFragment, domain: string): KnowledgeFragment {
  if (!isRecordId(fragment?.id)) throw invalid("a fragment id is <13-digit ms>-<hex>");
  if (fragment.domain !== domain) throw invalid("the fragment belongs to another domain");
  checkEntity(fragment.entity);
  checkText("a fragment's text", fragment.text, MAX_FRAGMENT_BYTES);
  if (!Array.isArray(fragment.episode_ids) || fragment.episode_ids.length > MAX_CLAIM_LIMIT || !fragment.episode_ids.every(isRecordId))
    throw invalid("a fragment's episode_ids are episode ids");
  checkPassId(fragment.pass_id);
  isoMs("created_at", fragment.created_at);
  return fragment;
}

/** The JSON of an episode with only its own fields (and not `reflected_at`, kept beside it). */
export function encodeEpisode(episode: Episode): string {
  const { reflected_at: _reflected, ...rest } = episode;
  return JSON.stringify({
    id: rest.id,
    domain: rest.domain,
    ...(rest.request_id === undefined ? {} : { request_id: rest.request_id }),
    ...(rest.user === undefined ? {} : { user: rest.user }),
    status: rest.status,
    entities: rest.entities,
    events: rest.events.map((e) => ({
      kind: e.kind,
      ...(e.capability === undefined ? {} : { capability: e.capability }),
      ...(e.status === undefined ? {} : { status: e.status }),
      text: e.text,
    })),
    summary: rest.summary,
    summary_outcome: rest.summary_outcome,
    created_at: rest.created_at,
  });
}

export function decodeEpisode(body: string, reflectedAt: string | undefined | null): Episode {
  const episode = JSON.parse(body) as Episode;
  return reflectedAt == null || reflectedAt === "" ? episode : { ...episode, reflected_at: reflectedAt };
}
