/**
 * The read side's view of a domain's newest episodes (at most WINDOW_SIZE), kept in this process and
 * brought up to date on each read by one bounded read of ids (those of the last SETTLE_MS before the
 * newest it has seen, and after) and the episodes among them it has not seen, so a read never scans
 * the domain however many episodes it has, and sees every replica's episodes, also those appended
 * after a newer one (ids are stamped by each replica's clock just before the append). It holds what a
 * read needs of each episode (summary, entities, date): the entity vocabulary requests are matched
 * against, and a lexical index of the summaries.
 */
import { createTextIndex, fold } from "../retrieval/index.js";
import type { Episode, EpisodeStore } from "./store/index.js";

/** Episodes the window holds: the newest this many of a domain. */
export const WINDOW_SIZE = 500;
/** Words in the longest entity value matched in a request. */
const MAX_VALUE_WORDS = 4;
/** Words of a request looked at for entities. */
const MAX_REQUEST_WORDS = 400;
/**
 * How long after the time in its id an episode may first be visible: the recorder stamps the id just
 * before appending, so this covers the append's round trip and the skew between replicas' clocks. A
 * sync looks this far behind the newest episode it has seen for ones it missed.
 */
export const SETTLE_MS = 30_000;

/** The time in an episode id (`<13-digit ms>-<hex>`). */
const idMs = (id: string): number => Number(id.slice(0, 13));
/** The id bound below every episode of `ms` and after. */
const msBound = (ms: number): string => String(Math.max(0, ms)).padStart(13, "0");

export interface WindowEntry {
  readonly id: string;
  readonly summary: string;
  readonly entities: readonly string[];
  readonly created_at: string;
  /** Who asked (`ownerKey`); absent for an anonymous caller. Reads show a caller only their own runs. */
  readonly user?: string;
}

export interface EpisodeWindow {
  /** Reads what it has not seen (once, however many reads ask at the same time), drops what is past `cutoffMs` or the size. */
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

/** What the window keeps of an episode: enough to rank, show and filter it by owner. */
function entryOf(episode: Episode): WindowEntry {
  const { id, summary, entities, created_at, user } = episode;
  return { id, summary, entities, created_at, ...(user === undefined ? {} : { user }) };
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
  const index = createTextIndex({ maxTokensPerDoc: 128 });
  let syncing: Promise<void> | undefined;

  /** The newest id ever seen (the window may have dropped it since, past the retention). */
  let seen: string | undefined;
  let loaded = false;

  const add = (episode: Episode): void => {
    if (entries.has(episode.id)) return;
    const entry = entryOf(episode);
    entries.set(entry.id, entry);
    order.push(entry.id);
    if (seen === undefined || entry.id > seen) seen = entry.id;
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

  /** The episodes not held yet: the newest WINDOW_SIZE on the first sync, else those of the last SETTLE_MS and after. */
  const unseen = async (cutoffMs: number): Promise<Episode[]> => {
    if (!loaded || seen === undefined) {
      loaded = true;
      return store.recent({ limit: WINDOW_SIZE });
    }
    const full = entries.size >= WINDOW_SIZE;
    const ids = (await store.recentIds({ limit: WINDOW_SIZE, after: msBound(idMs(seen) - SETTLE_MS) })).filter(
      // Not held, not past the retention, and not older than all a full window holds (it would go again at once).
      (id) => !entries.has(id) && idMs(id) >= cutoffMs && !(full && id < order[0]!),
    );
    return (await Promise.all(ids.map((id) => store.get(id)))).filter((e): e is Episode => e !== undefined);
  };

  const pull = async (cutoffMs: number): Promise<void> => {
    const fresh = await unseen(cutoffMs);
    const before = order.length;
    for (const episode of fresh) add(episode);
    // Ids oldest first: what was appended late (or came newest first) goes to its place.
    if (order.length > before) order.sort();
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
