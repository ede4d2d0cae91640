/**
 * The chat session store port. Sessions expire 48 h after their last save; a session keeps its 50
 * newest messages. An append is atomic: concurrent appends to one session all land (up to the cap),
 * none reordered, with no read-modify-write across processes.
 */

export type ChatRole = "user" | "assistant";

export interface ChatMessage {
  readonly id: string;
  readonly role: ChatRole;
  readonly content: string;
  /** RFC 3339, ms precision. */
  readonly timestamp: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface ChatSession {
  readonly id: string;
  readonly user_id: string;
  /** The first user message, cut to 60 characters; empty until there is one (or set by a title update). */
  readonly title: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** Oldest first. */
  readonly messages: readonly ChatMessage[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A session in a list: no transcript. */
export interface SessionSummary {
  readonly id: string;
  readonly title: string;
  readonly message_count: number;
  readonly created_at: string;
  readonly updated_at: string;
  /** The first user message, cut to 100 characters. */
  readonly preview: string;
}

export interface NewSession {
  readonly id: string;
  readonly userId: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** ms since the epoch. */
  readonly now: number;
}

export interface ListPage {
  readonly offset: number;
  readonly limit: number;
}

export interface ChatSessionStore {
  readonly kind: "memory" | "redis";
  /** Stores a new, empty session and counts it (the active session counter goes up by one). */
  create(session: NewSession): Promise<ChatSession>;
  /** Undefined when unknown or expired. */
  get(id: string): Promise<ChatSession | undefined>;
  /**
   * Appends one message atomically, drops the oldest beyond the cap, sets the title and preview from
   * the first user message, bumps `updated_at` and refreshes the TTL. False when the session is
   * unknown or expired (nothing is created).
   */
  append(id: string, message: ChatMessage): Promise<boolean>;
  /** The user's sessions, most recently updated first, at most 50 a page; expired ones are left out (and dropped from the index). */
  list(userId: string, page: ListPage): Promise<readonly SessionSummary[]>;
  /** False when unknown or expired. */
  setTitle(id: string, title: string, now: number): Promise<boolean>;
  /** Deletes the session and its index entry; the counter goes down only for the caller that deleted it. False when unknown. */
  delete(id: string): Promise<boolean>;
  /** Incremented on create, decremented on delete; expiry does not decrement it (the spec's counter). */
  activeSessionCount(): Promise<number>;
  close(): Promise<void>;
}

/** The spec's limits. */
export const SESSION_TTL_MS = 48 * 60 * 60 * 1000;
export const MAX_MESSAGES = 50;
export const TITLE_MAX = 60;
export const PREVIEW_MAX = 100;
export const DEFAULT_PAGE = 20;
export const MAX_PAGE = 50;

/** 57 characters plus `...` when longer than 60 (titles); 97 plus `...` over 100 (previews). */
export function cut(text: string, max: number): string {
  const normal = text.replace(/\s+/g, " ").trim();
  // No more UTF-16 units than `max` is no more characters: the text itself, often the message's own
  // string (no copy held beside it in a stored session).
  if (normal.length <= max) return normal;
  const chars = [...normal];
  return chars.length <= max ? chars.join("") : `${chars.slice(0, max - 3).join("")}...`;
}

export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const USER_ID = /^[A-Za-z0-9_.@:+-]{1,128}$/;

export function isSessionId(value: unknown): value is string {
  return typeof value === "string" && SESSION_ID.test(value);
}
