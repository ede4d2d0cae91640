/**
 * The read side's view of a domain's newest episodes (at most WINDOW_SIZE), kept in this process and
 * brought up to date on each read by one bounded store call (only the episodes newer than the newest
 * it holds), so a read never scans the domain however many episodes it has. It holds what a read
 * needs of each episode (summary, entities, date): the entity vocabulary requests are matched
 * against, and a lexical index of the summaries.
 */
import { createTextIndex, fold, type TextIndex } from "../retrieval/index.js";
import type { Episode, EpisodeStore } from "./store/index.js";

/** Episodes the window holds: the newest this many of a domain. */
export const WINDOW_SIZE = 500;
/** Words in the longest entity value matched in a request. */
const MAX_VALUE_WORDS = 4;
/** Words of a request looked at for entities. */
const MAX_REQUEST_WORDS = 400;

export interface WindowEntry {
  readonly id: string;
  readonly summary: string;
  readonly entities: readonly string[];
  readonly created_at: string;
}

export interface EpisodeWindow {
  /** Reads what is new (once, however many reads ask at the same time), drops what is past `cutoffMs` or the size. */
  sync(cutoffMs: number): Promise<void>;
  readonly size: number;
  /** The newest episode's id. */
  newest(): string | undefined;
  /** Entities of the window's episodes whose value the text names, in the order it names them. */
  entitiesIn(text: string, limit: number): string[];
  /** The window's episodes most relevant to the text, best first. */
  search(text: string, limit: number): WindowEntry[];
  /** The newest episodes, newest first. */
  latest(limit: number): WindowEntry[];
}

const WORDS = /[\p{L}\p{N}]+/gu;
const words = (text: string): string[] => fold(text).match(WORDS) ?? [];

/** An entity's value as the vocabulary keys it: `destination:São Paulo` → `sao paulo`. */
function valueKey(entity: string): string | undefined {
  const value = words(entity.slice(entity.indexOf(":") + 1));
  return value.length === 0 || value.length > MAX_VALUE_WORDS ? undefined : value.join(" ");
}

/** Entity value → the entities of held episodes that have it, counted, so one dropped episode unlists only its own. */
interface Vocabulary {
  count(entity: string, by: 1 | -1): void;
  clear(): void;
  /** Entities whose value the text names, in the order it names them. */
  named(text: string, limit: number): string[];
}

function createVocabulary(): Vocabulary {
  /** Value key → entity → how many held episodes name it. */
  const values = new Map<string, Map<string, number>>();
  return {
    count(entity, by) {
      const key = valueKey(entity);
      if (key === undefined) return;
      let named = values.get(key);
      if (named === undefined) values.set(key, (named = new Map()));
      const n = (named.get(entity) ?? 0) + by;
      if (n > 0) named.set(entity, n);
      else named.delete(entity);
      if (named.size === 0) values.delete(key);
    },
    clear: () => values.clear(),
    named(text, limit) {
      const said = words(text.slice(0, MAX_REQUEST_WORDS * 12)).slice(0, MAX_REQUEST_WORDS);
      const found: string[] = [];
      for (let start = 0; start < said.length && found.length < limit; start++) {
        for (let n = 1; n <= MAX_VALUE_WORDS && start + n <= said.length; n++) {
          const named = values.get(said.slice(start, start + n).join(" "));
          for (const entity of named?.keys() ?? []) if (!found.includes(entity) && found.length < limit) found.push(entity);
        }
      }
      return found;
    },
  };
}

export function createEpisodeWindow(store: EpisodeStore): EpisodeWindow {
  const entries = new Map<string, WindowEntry>();
  /** Ids oldest first. */
  let order: string[] = [];
  const vocabulary = createVocabulary();
  let index: TextIndex = createTextIndex({ maxTokensPerDoc: 128 });
  let syncing: Promise<void> | undefined;

  const add = (episode: Episode): void => {
    if (entries.has(episode.id)) return;
    const entry = { id: episode.id, summary: episode.summary, entities: episode.entities, created_at: episode.created_at };
    entries.set(entry.id, entry);
    for (const entity of entry.entities) vocabulary.count(entity, 1);
    index.upsert({ id: entry.id, text: `${entry.summary} ${entry.entities.join(" ")}` });
  };
  const drop = (id: string): void => {
    const entry = entries.get(id);
    if (entry === undefined) return;
    entries.delete(id);
    for (const entity of entry.entities) vocabulary.count(entity, -1);
    index.remove(id);
  };
  const reset = (): void => {
    entries.clear();
    vocabulary.clear();
    order = [];
    index = createTextIndex({ maxTokensPerDoc: 128 });
  };

  const pull = async (cutoffMs: number): Promise<void> => {
    const newest = order[order.length - 1];
    const fresh = await store.recent({ limit: WINDOW_SIZE, ...(newest === undefined ? {} : { after: newest }) });
    // A full window of new ones may have skipped some: start again from them.
    if (fresh.length === WINDOW_SIZE) reset();
    for (const episode of fresh.reverse()) {
      add(episode);
      order.push(episode.id);
    }
    let old = 0;
    while (old < order.length && (order.length - old > WINDOW_SIZE || Date.parse(entries.get(order[old]!)?.created_at ?? "") < cutoffMs)) {
      drop(order[old]!);
      old += 1;
    }
    if (old > 0) order = order.slice(old);
  };

  return {
    sync(cutoffMs) {
      syncing ??= pull(cutoffMs).finally(() => {
        syncing = undefined;
      });
      return syncing;
    },
    get size() {
      return entries.size;
    },
    newest: () => order[order.length - 1],
    entitiesIn: (text, limit) => vocabulary.named(text, limit),
    search: (text, limit) => index.search(text, limit).flatMap(({ id }) => entries.get(id) ?? []),
    latest: (limit) =>
      order
        .slice(-limit)
        .reverse()
        .flatMap((id) => entries.get(id) ?? []),
  };
}
