/**
 * Sessions in this process: the embedded default. Expiry is checked on every read, as Redis would
 * have expired the key. Bounded in count and bytes: past either budget the least recently updated
 * sessions are evicted (a Map in update order makes that the first entries), as if they had
 * expired: the counter does not go down, like expiry.
 */
import {
  cut,
  MAX_PAGE,
  PREVIEW_MAX,
  SESSION_TTL_MS,
  TITLE_MAX,
  MAX_MESSAGES,
  type ChatMessage,
  type ChatSession,
  type ChatSessionStore,
  type SessionSummary,
} from "./types.js";
import { heapBytes } from "../../util/index.js";

export interface MemorySessionStoreOptions {
  /** @defaultValue 48 h */
  readonly ttlMs?: number;
  /** @defaultValue 10,000 */
  readonly maxSessions?: number;
  /** Message text and metadata held, about. @defaultValue 64 MiB */
  readonly maxBytes?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface Entry {
  session: Omit<ChatSession, "messages">;
  preview: string;
  messages: ChatMessage[];
  expiresAt: number;
  bytes: number;
}

export function createMemorySessionStore({
  ttlMs = SESSION_TTL_MS,
  maxSessions = 10_000,
  maxBytes = 64 * 1024 * 1024,
  now = Date.now,
}: MemorySessionStoreOptions = {}): ChatSessionStore {
  const entries = new Map<string, Entry>();
  const byUser = new Map<string, Set<string>>();
  let bytes = 0;
  let counter = 0;

  const drop = (id: string, entry: Entry): void => {
    entries.delete(id);
    bytes -= entry.bytes;
    const own = byUser.get(entry.session.user_id);
    own?.delete(id);
    if (own?.size === 0) byUser.delete(entry.session.user_id);
  };

  const live = (id: string): Entry | undefined => {
    const entry = entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now()) {
      drop(id, entry);
      return undefined;
    }
    return entry;
  };

  /** Moves the entry to the end (most recently updated) and evicts from the front while over budget. */
  const saved = (id: string, entry: Entry): void => {
    entries.delete(id);
    entries.set(id, entry);
    entry.expiresAt = now() + ttlMs;
    for (const [oldest, old] of entries) {
      if (entries.size <= maxSessions && bytes <= maxBytes) break;
      if (oldest === id) break;
      drop(oldest, old);
    }
  };

  const view = (entry: Entry): ChatSession => ({ ...entry.session, messages: [...entry.messages] });

  return {
    kind: "memory",

    async create({ id, userId, metadata, now: at }) {
      const time = new Date(at).toISOString();
      const session = { id, user_id: userId, title: "", created_at: time, updated_at: time, metadata };
      const entry: Entry = { session, preview: "", messages: [], expiresAt: 0, bytes: heapBytes(metadata) };
      bytes += entry.bytes;
      let own = byUser.get(userId);
      if (own === undefined) byUser.set(userId, (own = new Set()));
      own.add(id);
      counter++;
      saved(id, entry);
      return view(entry);
    },

    async get(id) {
      const entry = live(id);
      return entry === undefined ? undefined : view(entry);
    },

    async append(id, message) {
      const entry = live(id);
      if (entry === undefined) return false;
      entry.messages.push(message);
      const added = heapBytes(message);
      entry.bytes += added;
      bytes += added;
      while (entry.messages.length > MAX_MESSAGES) {
        const removed = heapBytes(entry.messages.shift());
        entry.bytes -= removed;
        bytes -= removed;
      }
      const firstUser = message.role === "user";
      entry.session = {
        ...entry.session,
        updated_at: message.timestamp,
        ...(firstUser && entry.session.title === "" && { title: cut(message.content, TITLE_MAX) }),
      };
      if (firstUser && entry.preview === "") entry.preview = cut(message.content, PREVIEW_MAX);
      saved(id, entry);
      return true;
    },

    async list(userId, { offset, limit: asked }) {
      const limit = Math.min(asked, MAX_PAGE);
      const own = [...(byUser.get(userId) ?? [])].flatMap((id) => {
        const entry = live(id);
        return entry === undefined ? [] : [entry];
      });
      own.sort((a, b) => (a.session.updated_at < b.session.updated_at ? 1 : a.session.updated_at > b.session.updated_at ? -1 : 0));
      return own.slice(offset, offset + limit).map(
        ({ session, preview, messages }): SessionSummary => ({
          id: session.id,
          title: session.title,
          message_count: messages.length,
          created_at: session.created_at,
          updated_at: session.updated_at,
          preview,
        }),
      );
    },

    async setTitle(id, title, at) {
      const entry = live(id);
      if (entry === undefined) return false;
      entry.session = { ...entry.session, title, updated_at: new Date(at).toISOString() };
      saved(id, entry);
      return true;
    },

    async delete(id) {
      const entry = live(id);
      if (entry === undefined) return false;
      drop(id, entry);
      counter--;
      return true;
    },

    async activeSessionCount() {
      return counter;
    },

    async close() {},
  };
}
