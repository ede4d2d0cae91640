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
  type ListPage,
  type NewSession,
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

/** Everything one store holds, which the functions below read and change. */
interface Sessions {
  /** In update order: the first entries are the least recently updated. */
  readonly entries: Map<string, Entry>;
  readonly byUser: Map<string, Set<string>>;
  /** The sum of the entries' bytes. */
  bytes: number;
  /** The spec's active session counter: up on create, down on delete, not on expiry or eviction. */
  counter: number;
  readonly ttlMs: number;
  readonly maxSessions: number;
  readonly maxBytes: number;
  readonly now: () => number;
}

function drop(state: Sessions, id: string, entry: Entry): void {
  state.entries.delete(id);
  state.bytes -= entry.bytes;
  const own = state.byUser.get(entry.session.user_id);
  own?.delete(id);
  if (own?.size === 0) state.byUser.delete(entry.session.user_id);
}

/** The entry if it has not expired; an expired one is dropped, as Redis would have expired the key. */
function live(state: Sessions, id: string): Entry | undefined {
  const entry = state.entries.get(id);
  if (entry === undefined) return undefined;
  if (entry.expiresAt <= state.now()) {
    drop(state, id, entry);
    return undefined;
  }
  return entry;
}

/** Moves the entry to the end (most recently updated), refreshes its TTL and evicts from the front while over budget. */
function saved(state: Sessions, id: string, entry: Entry): void {
  const { entries } = state;
  entries.delete(id);
  entries.set(id, entry);
  entry.expiresAt = state.now() + state.ttlMs;
  for (const [oldest, old] of entries) {
    if (entries.size <= state.maxSessions && state.bytes <= state.maxBytes) break;
    if (oldest === id) break;
    drop(state, oldest, old);
  }
}

/** A stored session's fields, spelled out: a spread at a site that sees many shapes gives each object a map of its own (bench:chat). */
function stored(session: Omit<ChatSession, "messages">, title: string, updatedAt: string): Omit<ChatSession, "messages"> {
  return { id: session.id, user_id: session.user_id, title, created_at: session.created_at, updated_at: updatedAt, metadata: session.metadata };
}

const view = ({ session, messages }: Entry): ChatSession => ({
  id: session.id,
  user_id: session.user_id,
  title: session.title,
  created_at: session.created_at,
  updated_at: session.updated_at,
  metadata: session.metadata,
  messages: [...messages],
});

function createSession(state: Sessions, { id, userId, metadata, now: at }: NewSession): ChatSession {
  const time = new Date(at).toISOString();
  const session = { id, user_id: userId, title: "", created_at: time, updated_at: time, metadata };
  const entry: Entry = { session, preview: "", messages: [], expiresAt: 0, bytes: heapBytes(metadata) };
  state.bytes += entry.bytes;
  let own = state.byUser.get(userId);
  if (own === undefined) state.byUser.set(userId, (own = new Set()));
  own.add(id);
  state.counter++;
  saved(state, id, entry);
  return view(entry);
}

/** Appends within the message cap, sets title and preview from the first user message. */
function appendMessage(state: Sessions, id: string, message: ChatMessage): boolean {
  const entry = live(state, id);
  if (entry === undefined) return false;
  // A copy one longer, not a push: a pushed array keeps room for 16 more (about 130 bytes a session).
  entry.messages = entry.messages.concat([message]);
  const added = heapBytes(message);
  entry.bytes += added;
  state.bytes += added;
  while (entry.messages.length > MAX_MESSAGES) {
    const removed = heapBytes(entry.messages.shift());
    entry.bytes -= removed;
    state.bytes -= removed;
  }
  const firstUser = message.role === "user";
  const { title } = entry.session;
  entry.session = stored(entry.session, firstUser && title === "" ? cut(message.content, TITLE_MAX) : title, message.timestamp);
  if (firstUser && entry.preview === "") entry.preview = cut(message.content, PREVIEW_MAX);
  saved(state, id, entry);
  return true;
}

function listSessions(state: Sessions, userId: string, { offset, limit: asked }: ListPage): SessionSummary[] {
  const limit = Math.min(asked, MAX_PAGE);
  const own = [...(state.byUser.get(userId) ?? [])].flatMap((id) => {
    const entry = live(state, id);
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
}

function setTitle(state: Sessions, id: string, title: string, at: number): boolean {
  const entry = live(state, id);
  if (entry === undefined) return false;
  entry.session = stored(entry.session, title, new Date(at).toISOString());
  saved(state, id, entry);
  return true;
}

function deleteSession(state: Sessions, id: string): boolean {
  const entry = live(state, id);
  if (entry === undefined) return false;
  drop(state, id, entry);
  state.counter--;
  return true;
}

export function createMemorySessionStore({
  ttlMs = SESSION_TTL_MS,
  maxSessions = 10_000,
  maxBytes = 64 * 1024 * 1024,
  now = Date.now,
}: MemorySessionStoreOptions = {}): ChatSessionStore {
  const state: Sessions = { entries: new Map(), byUser: new Map(), bytes: 0, counter: 0, ttlMs, maxSessions, maxBytes, now };
  return {
    kind: "memory",
    create: async (session) => createSession(state, session),
    get: async (id) => {
      const entry = live(state, id);
      return entry === undefined ? undefined : view(entry);
    },
    append: async (id, message) => appendMessage(state, id, message),
    list: async (userId, page) => listSessions(state, userId, page),
    setTitle: async (id, title, at) => setTitle(state, id, title, at),
    delete: async (id) => deleteSession(state, id),
    activeSessionCount: async () => state.counter,
    async close() {},
  };
}
