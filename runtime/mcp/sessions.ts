/**
 * The MCP sessions of one component, bounded: at most `maxSessions` (the least recently used one is
 * closed to make room for a new one, preferring one with no request in flight), and each closed once
 * it has been idle for `idleTtlMs` on the clock. A session is bound to the identity that opened it:
 * another caller presenting its id is told it does not exist, as if it had guessed.
 */
import { checkInteger, systemClock, type Clock, type ClockTimer } from "../util/index.js";

export interface SessionTableOptions<T> {
  /** @defaultValue 1000 */
  readonly maxSessions?: number;
  /** @defaultValue 600000 (10 minutes) */
  readonly idleTtlMs?: number;
  /** @defaultValue systemClock */
  readonly clock?: Clock;
  /** Ends a session's transport; called once per session, after it has left the table. Must not throw. */
  readonly close: (value: T) => void;
}

interface Entry<T> {
  readonly value: T;
  readonly owner: string;
  lastUsed: number;
  /** Requests (and open streams) of the session still being answered: such a session is not idle. */
  active: number;
}

export interface SessionTable<T> {
  /** The session, when it exists and `owner` opened it; marks it used. */
  get(id: string, owner: string): T | undefined;
  add(id: string, value: T, owner: string): void;
  /** Marks a request of the session in flight until the returned function is called. */
  hold(id: string): () => void;
  /** Takes the session out of the table without closing it (its transport closed itself). */
  remove(id: string): void;
  values(): IterableIterator<T>;
  readonly size: number;
  /** Closes every session and stops the expiry timer. */
  clear(): void;
}

/** The least recently used session with no request in flight, else the least recently used one. */
function evictionVictim<T>(entries: ReadonlyMap<string, Entry<T>>): [string, Entry<T>] | undefined {
  let victim: [string, Entry<T>] | undefined;
  for (const pair of entries) {
    if (pair[1].active === 0) return pair;
    victim ??= pair;
  }
  return victim;
}

export function createSessionTable<T>({ maxSessions = 1000, idleTtlMs = 600_000, clock = systemClock, close }: SessionTableOptions<T>): SessionTable<T> {
  checkInteger("maxSessions", maxSessions, { min: 1 });
  checkInteger("idleTtlMs", idleTtlMs, { min: 1 });
  // Insertion order is use order: the first entry is the least recently used.
  const entries = new Map<string, Entry<T>>();
  let timer: ClockTimer | undefined;

  const drop = (id: string, entry: Entry<T>): void => {
    entries.delete(id);
    close(entry.value);
  };
  const touch = (id: string, entry: Entry<T>): void => {
    entry.lastUsed = clock.now();
    entries.delete(id);
    entries.set(id, entry);
    schedule();
  };
  // One timer, for the least recently used session; when it fires, the idle ones at the front go.
  function schedule(): void {
    if (timer !== undefined) return;
    const first = entries.values().next();
    if (first.done === true) return;
    timer = clock.setTimeout(sweep, Math.max(0, first.value.lastUsed + idleTtlMs - clock.now()));
  }
  function sweep(): void {
    timer = undefined;
    const now = clock.now();
    for (const [id, entry] of entries) {
      if (now - entry.lastUsed < idleTtlMs) break;
      if (entry.active > 0) touch(id, entry);
      else drop(id, entry);
    }
    schedule();
  }

  return {
    get(id, owner) {
      const entry = entries.get(id);
      if (entry === undefined || entry.owner !== owner) return undefined;
      touch(id, entry);
      return entry.value;
    },
    add(id, value, owner) {
      while (entries.size >= maxSessions) {
        const victim = evictionVictim(entries);
        if (victim !== undefined) drop(...victim);
      }
      const entry: Entry<T> = { value, owner, lastUsed: clock.now(), active: 0 };
      entries.set(id, entry);
      schedule();
    },
    hold(id) {
      const entry = entries.get(id);
      if (entry === undefined) return () => {};
      entry.active += 1;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        entry.active -= 1;
        if (entries.get(id) === entry) touch(id, entry);
      };
    },
    remove(id) {
      entries.delete(id);
    },
    values: () => [...entries.values()].map((entry) => entry.value).values(),
    get size() {
      return entries.size;
    },
    clear() {
      clock.clearTimeout(timer);
      timer = undefined;
      for (const [id, entry] of [...entries]) drop(id, entry);
    },
  };
}
