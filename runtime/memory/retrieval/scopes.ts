/**
 * The retriever's lexical indexes, one per scope, kept between requests: a rank call hands over the
 * scope's documents (the store is the truth), and only what changed since the last call is indexed
 * again, so recall over 10,000 facts does not tokenize 10,000 texts per request. Bounded: past
 * `maxScopes` scopes, `maxDocs` documents or `maxBytes` (estimated: each document's text and its
 * share of the index) in all, the least recently used scope is forgotten (it is indexed again from
 * its documents when next asked).
 */
import { createTextIndex } from "./lexical.js";
import type { RetrievalDoc, TextIndex } from "./types.js";

interface Entry {
  text: string;
  /** The reconciliation that last saw this document. */
  seen: number;
}

export interface ScopeState {
  readonly index: TextIndex;
  readonly docs: Map<string, Entry>;
  /** Id → the text whose vector the vector index holds (only when vectors are on). */
  readonly embedded: Map<string, string>;
  /** Ids whose current text has no vector yet (only when vectors are on). */
  readonly pending: Set<string>;
  /** What its documents cost, estimated (docBytes). */
  bytes: number;
  /** The documents the index was last made to hold, while nothing changed it since: the same array again costs nothing. */
  synced: readonly RetrievalDoc[] | undefined;
  syncedLength: number;
}

export interface ScopeCache {
  /** The scope's state, created when absent, made the most recent. */
  open(scope: string): ScopeState;
  peek(scope: string): ScopeState | undefined;
  /**
   * Opens the scope and makes its index hold exactly `docs` (the last of a repeated id wins); also
   * returns the ids it dropped (documents gone from the store) so their vectors can go too. `docs`
   * is a snapshot: the same array (of the same length) as the last call is taken as unchanged, so a
   * caller that holds its documents per revision pays nothing per call; changed documents come as a
   * new array.
   */
  reconcile(scope: string, docs: readonly RetrievalDoc[]): { readonly state: ScopeState; readonly dropped: readonly string[] };
  /** Updates one document of a scope held (a scope not held is left alone: it is indexed whole when next ranked). */
  upsert(scope: string, doc: RetrievalDoc): void;
  remove(scope: string, id: string): void;
  forget(scope: string): void;
  clear(): void;
}

/** Characters of a text the index reads at most (its 256 terms), for the estimate. */
const INDEXED_CHARS = 2048;

/**
 * What one document costs the cache, about: its text (kept to see a change), and the index's terms
 * and postings, measured at about 16 bytes per character indexed plus a fixed part per document.
 */
export function docBytes(text: string): number {
  return 640 + 2 * text.length + 16 * Math.min(text.length, INDEXED_CHARS);
}

/** Indexes one document; 1 when it is new to the scope (the cache's document count grows), else 0. */
function write(state: ScopeState, doc: RetrievalDoc): number {
  const entry = state.docs.get(doc.id);
  if (entry !== undefined && entry.text === doc.text) return 0;
  state.bytes += docBytes(doc.text) - (entry === undefined ? 0 : docBytes(entry.text));
  if (entry === undefined) state.docs.set(doc.id, { text: doc.text, seen: -1 });
  else entry.text = doc.text;
  state.index.upsert(doc);
  state.pending.add(doc.id);
  return entry === undefined ? 1 : 0;
}

/** Removes one document; 1 when it was there. */
function drop(state: ScopeState, id: string): number {
  const entry = state.docs.get(id);
  if (entry === undefined) return 0;
  state.docs.delete(id);
  state.bytes -= docBytes(entry.text);
  state.index.remove(id);
  state.embedded.delete(id);
  state.pending.delete(id);
  return 1;
}

/** Marks the scope's state with `docs` and drops what it held besides; returns the dropped ids and the count change. */
function sync(state: ScopeState, docs: readonly RetrievalDoc[], now: number): { readonly dropped: string[]; readonly change: number } {
  let change = 0;
  let distinct = 0;
  for (const doc of docs) {
    change += write(state, doc);
    const entry = state.docs.get(doc.id)!;
    if (entry.seen !== now) distinct += 1;
    entry.seen = now;
  }
  const dropped: string[] = [];
  if (distinct < state.docs.size) {
    for (const [id, entry] of state.docs) if (entry.seen !== now) dropped.push(id);
    for (const id of dropped) change -= drop(state, id);
  }
  return { dropped, change };
}

export interface ScopeCacheOptions {
  readonly maxScopes: number;
  readonly maxDocs: number;
  readonly maxBytes: number;
}

export function createScopeCache({ maxScopes, maxDocs, maxBytes }: ScopeCacheOptions): ScopeCache {
  // Map order is recency (a scope opened is deleted and set again).
  const scopes = new Map<string, ScopeState>();
  let total = 0;
  let totalBytes = 0;
  let generation = 0;

  /** Runs a change to one scope's documents, keeping the cache's byte count in step. */
  const counted = <T>(state: ScopeState, change: () => T): T => {
    const before = state.bytes;
    const result = change();
    totalBytes += state.bytes - before;
    return result;
  };

  const forget = (scope: string): void => {
    const state = scopes.get(scope);
    if (state === undefined) return;
    total -= state.docs.size;
    totalBytes -= state.bytes;
    scopes.delete(scope);
  };

  /** Forgets the least recently used scopes other than `current` while past a bound. */
  const enforce = (current: string): void => {
    for (const scope of [...scopes.keys()]) {
      if (scopes.size <= maxScopes && total <= maxDocs && totalBytes <= maxBytes) return;
      if (scope !== current) forget(scope);
    }
  };

  const open = (scope: string): ScopeState => {
    let state = scopes.get(scope);
    if (state !== undefined) scopes.delete(scope);
    state ??= { index: createTextIndex(), docs: new Map(), embedded: new Map(), pending: new Set(), bytes: 0, synced: undefined, syncedLength: 0 };
    scopes.set(scope, state);
    return state;
  };

  return {
    open,
    peek: (scope) => scopes.get(scope),
    reconcile(scope, docs) {
      const state = open(scope);
      if (state.synced === docs && state.syncedLength === docs.length) return { state, dropped: [] };
      const { dropped, change } = counted(state, () => sync(state, docs, ++generation));
      state.synced = docs;
      state.syncedLength = docs.length;
      total += change;
      enforce(scope);
      return { state, dropped };
    },
    upsert(scope, doc) {
      const state = scopes.get(scope);
      if (state === undefined) return;
      state.synced = undefined;
      total += counted(state, () => write(state, doc));
      enforce(scope);
    },
    remove(scope, id) {
      const state = scopes.get(scope);
      if (state === undefined) return;
      state.synced = undefined;
      total -= counted(state, () => drop(state, id));
    },
    forget,
    clear() {
      scopes.clear();
      total = 0;
      totalBytes = 0;
    },
  };
}
