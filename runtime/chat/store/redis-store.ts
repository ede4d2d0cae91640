/**
 * Sessions on Redis, under the spec's keys: `…:sessions:<id>` (a hash: the session's fields, its
 * metadata as JSON, and each kept message in a field `m:<seq>`), `…:sessions:index:<user_id>` (sorted
 * set: session id by `updated_at` ms) and `…:sessions:active_session_count`. The keys hash to
 * different Cluster slots, so each script touches the session key alone; the index and the counter
 * follow in their own commands, driven by what the script returned (only the delete that removed a
 * session decrements the counter).
 */
import { defineLuaScript, runScript, type RedisStore } from "../../store/index.js";
import {
  cut,
  PREVIEW_MAX,
  SESSION_TTL_MS,
  TITLE_MAX,
  MAX_MESSAGES,
  MAX_PAGE,
  type ChatMessage,
  type ChatSession,
  type ChatSessionStore,
  type ListPage,
  type NewSession,
  type SessionSummary,
} from "./types.js";

const lua = (file: string) => defineLuaScript("sessions", new URL(`./lua/${file}`, import.meta.url));
const APPEND = lua("append-1.lua");
const SET_TITLE = lua("set-title-1.lua");
const DELETE = lua("delete-1.lua");

/** Index entries read per round while paging past expired sessions. */
const INDEX_WINDOW = 100;
const SUMMARY_FIELDS = ["id", "title", "preview", "created_at", "updated_at", "next", "first"] as const;

export interface RedisSessionStoreOptions {
  /** @defaultValue 48 h */
  readonly ttlMs?: number;
  /** Close the store with this adapter. @defaultValue false */
  readonly ownsStore?: boolean;
}

function sessionOf(hash: Record<string, string>): ChatSession | undefined {
  if (hash["id"] === undefined) return undefined;
  const messages = Object.keys(hash)
    .filter((field) => field.startsWith("m:"))
    .map((field) => Number(field.slice(2)))
    .sort((a, b) => a - b)
    .map((seq) => JSON.parse(hash[`m:${seq}`]!) as ChatMessage);
  return {
    id: hash["id"],
    user_id: hash["user_id"] ?? "",
    title: hash["title"] ?? "",
    created_at: hash["created_at"] ?? "",
    updated_at: hash["updated_at"] ?? "",
    messages,
    metadata: JSON.parse(hash["metadata"] ?? "{}") as Record<string, unknown>,
  };
}

/** One store's connection, key names and TTL, which the functions below work with. */
interface Sessions {
  readonly client: RedisStore["client"];
  readonly ttlMs: number;
  readonly sessionKey: (id: string) => string;
  readonly indexKey: (userId: string) => string;
  readonly counterKey: string;
}

async function touchIndex({ client, indexKey, ttlMs }: Sessions, userId: string, id: string, updatedMs: number): Promise<void> {
  await client.zadd(indexKey(userId), updatedMs, id);
  // The index lives as long as its newest session could.
  await client.pexpire(indexKey(userId), ttlMs);
}

async function createSession(sessions: Sessions, { id, userId, metadata, now }: NewSession): Promise<ChatSession> {
  const { client, ttlMs } = sessions;
  const at = new Date(now).toISOString();
  const key = sessions.sessionKey(id);
  const fields = { id, user_id: userId, title: "", preview: "", created_at: at, updated_at: at, metadata: JSON.stringify(metadata), next: "0", first: "0" };
  await client.multi().hset(key, fields).pexpire(key, ttlMs).exec();
  await touchIndex(sessions, userId, id, now);
  await client.incr(sessions.counterKey);
  return { id, user_id: userId, title: "", created_at: at, updated_at: at, messages: [], metadata };
}

async function appendMessage(sessions: Sessions, id: string, message: ChatMessage): Promise<boolean> {
  const user = (await runScript(
    sessions.client,
    APPEND,
    [sessions.sessionKey(id)],
    [
      JSON.stringify(message),
      message.role,
      cut(message.content, TITLE_MAX),
      cut(message.content, PREVIEW_MAX),
      message.timestamp,
      sessions.ttlMs,
      MAX_MESSAGES,
    ],
  )) as string | null;
  if (user === null) return false;
  await touchIndex(sessions, user, id, Date.parse(message.timestamp));
  return true;
}

/** A list row from the hash's SUMMARY_FIELDS; undefined when the session has expired. */
function summaryOf(values: readonly (string | null | undefined)[]): SessionSummary | undefined {
  const [sid, title, preview, created, updated, next, first] = values;
  if (sid === null || sid === undefined) return undefined;
  return {
    id: sid,
    title: title ?? "",
    message_count: Number(next) - Number(first),
    created_at: created ?? "",
    updated_at: updated ?? "",
    preview: preview ?? "",
  };
}

/** Pages through the user's index newest first, skipping (and removing) entries whose session expired. */
async function listSessions(sessions: Sessions, userId: string, { offset, limit: asked }: ListPage): Promise<SessionSummary[]> {
  const { client, indexKey, sessionKey } = sessions;
  const limit = Math.min(asked, MAX_PAGE);
  const found: SessionSummary[] = [];
  let skipped = 0;
  for (let start = 0; found.length < limit; start += INDEX_WINDOW) {
    const ids = await client.zrevrange(indexKey(userId), start, start + INDEX_WINDOW - 1);
    if (ids.length === 0) break;
    // One read per session, concurrently: on a Cluster they live in different slots, so no pipeline.
    const rows = await Promise.all(ids.map((id) => client.hmget(sessionKey(id), ...SUMMARY_FIELDS)));
    const gone: string[] = [];
    rows.forEach((values, i) => {
      const summary = summaryOf(values);
      if (summary === undefined) {
        gone.push(ids[i]!);
        return;
      }
      if (skipped < offset) {
        skipped++;
        return;
      }
      if (found.length < limit) found.push(summary);
    });
    // Expired sessions leave their index entries behind; drop them as they are met.
    if (gone.length > 0) {
      await client.zrem(indexKey(userId), ...gone);
      start -= gone.length;
    }
    if (ids.length < INDEX_WINDOW) break;
  }
  return found;
}

async function setTitle(sessions: Sessions, id: string, title: string, now: number): Promise<boolean> {
  const user = (await runScript(sessions.client, SET_TITLE, [sessions.sessionKey(id)], [title, new Date(now).toISOString(), sessions.ttlMs])) as string | null;
  if (user === null) return false;
  await touchIndex(sessions, user, id, now);
  return true;
}

async function deleteSession({ client, sessionKey, indexKey, counterKey }: Sessions, id: string): Promise<boolean> {
  const user = (await runScript(client, DELETE, [sessionKey(id)], [])) as string | null;
  if (user === null) return false;
  await client.zrem(indexKey(user), id);
  await client.decr(counterKey);
  return true;
}

export function createRedisSessionStore(store: RedisStore, { ttlMs = SESSION_TTL_MS, ownsStore = false }: RedisSessionStoreOptions = {}): ChatSessionStore {
  const { client, keys } = store;
  const sessions: Sessions = {
    client,
    ttlMs,
    sessionKey: (id) => keys.key("sessions", id),
    indexKey: (userId) => keys.key("sessions", "index", userId),
    counterKey: keys.key("sessions", "active_session_count"),
  };
  return {
    kind: "redis",
    create: (session) => createSession(sessions, session),
    get: async (id) => sessionOf(await client.hgetall(sessions.sessionKey(id))),
    append: (id, message) => appendMessage(sessions, id, message),
    list: (userId, page) => listSessions(sessions, userId, page),
    setTitle: (id, title, now) => setTitle(sessions, id, title, now),
    delete: (id) => deleteSession(sessions, id),
    activeSessionCount: async () => Number((await client.get(sessions.counterKey)) ?? "0"),
    async close() {
      if (ownsStore) await store.close();
    },
  };
}
