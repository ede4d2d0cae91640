/**
 * The compact catalog index tiered selection shows the model: one line per visible capability,
 * `component.capability — one-line description [tags]`, plus the words a cheap relevance ranking
 * matches a request against. Manifests declare no tags, so a line's tags are what the catalog does
 * carry: the component's kind and the capability's type (`[tool]`, `[agent, reasoning]`).
 *
 * Built once per catalog version: each capability's entry is kept with its wire object (a WeakMap),
 * and readCatalog hands out the same wire objects per spec capability and per registry entry while
 * the registry's cache is fresh, so a request over an unchanged catalog finds every entry built and,
 * the sequence of entries being the same, the whole index (its text included) too.
 */
import type { CapabilityWire } from "../../spec/index.js";
import type { CatalogComponent } from "../catalog.js";

/** Most characters of a capability's description in its index line: the first sentence, cut here. */
export const INDEX_DESCRIPTION_CHARS = 120;

export interface IndexEntry {
  /** `component.capability`. */
  readonly key: string;
  readonly component: string;
  readonly capability: string;
  /** The compact line: `component.capability — description [tags]`. */
  readonly line: string;
  /** The line with the component's description and the input's field names (the wider index of an empty selection's retry). */
  readonly wideLine: string;
  /** Words of the capability's name, of the component's, and of the descriptions and input fields, lower case. */
  readonly capabilityWords: ReadonlySet<string>;
  readonly componentWords: ReadonlySet<string>;
  readonly words: ReadonlySet<string>;
}

export interface CatalogIndex {
  /** Catalog order (components by name, capabilities as listed). */
  readonly entries: readonly IndexEntry[];
  readonly byKey: ReadonlyMap<string, IndexEntry>;
  /** Visible capability names by component (did-you-mean candidates). */
  readonly capabilities: ReadonlyMap<string, readonly string[]>;
  /** Every line, joined: the index when it fits the prompt whole. */
  readonly text: string;
}

export interface CatalogIndexer {
  /** The index of the visible capabilities of `catalog` (internal ones left out). */
  (catalog: readonly CatalogComponent[]): CatalogIndex;
  /** What was built: whole indexes and entries (a test counts them to see nothing is rebuilt). */
  readonly built: { indexes: number; entries: number };
}

const STOP_WORDS = new Set(
  "a an and are as at be by can do does for from has have how i in into is it its me my of on or our please that the their then this to was what when where which who why will with you your".split(
    " ",
  ),
);

/** Lower-case words of a text: camelCase, snake_case, kebab-case and dotted names split. */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOP_WORDS.has(raw)) continue;
    out.push(raw);
    // A plural and its singular match each other (cities/city, forecasts/forecast).
    if (raw.length > 3 && raw.endsWith("ies")) out.push(`${raw.slice(0, -3)}y`);
    else if (raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss")) out.push(raw.slice(0, -1));
  }
  return out;
}

/**
 * A description's first sentence or line, at most INDEX_DESCRIPTION_CHARS characters, without control
 * or line-separator characters: registered descriptions are other components' text, and one must not
 * open a line of its own in the index (a fake capability, a fake rule).
 */
function oneLine(description: string): string {
  const first = description
    .split(/\n|(?<=\.)\s/, 1)[0]!
    .replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
    .trim();
  return first.length <= INDEX_DESCRIPTION_CHARS ? first : `${first.slice(0, INDEX_DESCRIPTION_CHARS - 1)}…`;
}

/** A description as the index quotes it: JSON-quoted, so where it ends is never in doubt. */
const quotedLine = (description: string): string => JSON.stringify(oneLine(description));

function entryOf(component: CatalogComponent, wire: CapabilityWire): IndexEntry {
  const key = `${component.name}.${wire.name}`;
  const tags = wire.type === component.kind ? [component.kind] : [component.kind, wire.type];
  const description = oneLine(wire.description);
  const line = `${key} — ${description === "" ? "(no description)" : JSON.stringify(description)} [${tags.join(", ")}]`;
  const input = wire.input_summary;
  const fields = input === undefined ? [] : [...input.required_fields.map((f) => f.name), ...input.optional_fields.map((f) => `${f.name}?`)];
  const wideLine = `${line} (${component.name}: ${quotedLine(component.description)}; input: ${fields.length === 0 ? "none declared" : fields.join(", ")})`;
  return {
    key,
    component: component.name,
    capability: wire.name,
    line,
    wideLine,
    capabilityWords: new Set(wordsOf(wire.name)),
    componentWords: new Set(wordsOf(component.name)),
    // Only what the index shows ranks: a description stuffed with keywords past its first sentence gains nothing.
    words: new Set(wordsOf(`${description} ${oneLine(component.description)} ${fields.join(" ")}`)),
  };
}

/**
 * An indexer keeping its last index and each capability's entry: over the same wire objects it
 * returns the same index, built nothing.
 */
export function createCatalogIndexer(): CatalogIndexer {
  const entries = new WeakMap<CapabilityWire, IndexEntry>();
  const built = { indexes: 0, entries: 0 };
  let last: CatalogIndex | undefined;
  const entry = (component: CatalogComponent, wire: CapabilityWire): IndexEntry => {
    let found = entries.get(wire);
    // A wire object belongs to one component; another name (a registry entry reusing it) gets its own.
    if (found === undefined || found.component !== component.name) {
      found = entryOf(component, wire);
      built.entries += 1;
      entries.set(wire, found);
    }
    return found;
  };
  /** The wire object of each of the last index's entries, by position, and the catalog it was asked for. */
  let lastWires: readonly CapabilityWire[] = [];
  let lastCatalog: readonly CatalogComponent[] | undefined;
  const indexer = (catalog: readonly CatalogComponent[]): CatalogIndex => {
    // readCatalog hands out the same frozen catalog while nothing changed: nothing to compare.
    if (last !== undefined && catalog === lastCatalog) return last;
    lastCatalog = Object.isFrozen(catalog) ? catalog : undefined;
    // Else an unchanged catalog costs one identity comparison per capability.
    if (last !== undefined && sameWires(catalog, lastWires, last.entries)) return last;
    const now: IndexEntry[] = [];
    const wires: CapabilityWire[] = [];
    for (const component of catalog)
      for (const wire of component.capabilities)
        if (!wire.internal) {
          now.push(entry(component, wire));
          wires.push(wire);
        }
    lastWires = wires;
    if (last !== undefined && sameEntries(last.entries, now)) return last;
    built.indexes += 1;
    const capabilities = new Map<string, string[]>();
    for (const e of now) {
      const list = capabilities.get(e.component);
      if (list === undefined) capabilities.set(e.component, [e.capability]);
      else list.push(e.capability);
    }
    let text: string | undefined;
    last = {
      entries: now,
      byKey: new Map(now.map((e) => [e.key, e])),
      capabilities,
      // Only an index shown whole needs it: joined on first use, once per catalog version.
      get text() {
        text ??= now.map((e) => e.line).join("\n");
        return text;
      },
    };
    return last;
  };
  return Object.assign(indexer, { built });
}

/** The catalog's visible capabilities are, in order, the wire objects given, under the same component names. */
function sameWires(catalog: readonly CatalogComponent[], wires: readonly CapabilityWire[], entries: readonly IndexEntry[]): boolean {
  let at = 0;
  for (const component of catalog)
    for (const wire of component.capabilities) {
      if (wire.internal) continue;
      if (wire !== wires[at] || entries[at]!.component !== component.name) return false;
      at += 1;
    }
  return at === wires.length;
}

function sameEntries(a: readonly IndexEntry[], b: readonly IndexEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Lines of the index the selection prompt shows: every line of a catalog of up to WHOLE_INDEX_LINES
 * capabilities, past that the most relevant `LINES_PER_DECADE × log10(total)` (never fewer than
 * WHOLE_INDEX_LINES): 100 at 100 (to about 460), 113 at 1,000, 150 at 10,000, 188 at 100,000. The
 * selection prompt so grows with the logarithm of the catalog, not with the catalog, and the prompt
 * budget stays a ceiling rather than the size every large catalog's prompt fills.
 */
export const WHOLE_INDEX_LINES = 100;
export const LINES_PER_DECADE = 37.5;

export function indexLines(total: number): number {
  return total <= WHOLE_INDEX_LINES ? total : Math.max(WHOLE_INDEX_LINES, Math.ceil(LINES_PER_DECADE * Math.log10(total)));
}

/**
 * The index inverted: each word to the entries carrying it, an entry's weight for the word (3: in
 * the capability's name, 2: in the component's, 1: in a description or an input field) in the low
 * two bits of `ordinal × 4 + weight`. Built on the first ranking over an index, kept with it.
 */
interface Postings {
  readonly byWord: ReadonlyMap<string, readonly number[]>;
  /** Scores of one ranking, by ordinal; zeroed again after each (ranking is synchronous). */
  readonly scores: Int32Array;
}

const postingsCache = new WeakMap<CatalogIndex, Postings>();

function postingsOf(index: CatalogIndex): Postings {
  let postings = postingsCache.get(index);
  if (postings !== undefined) return postings;
  const byWord = new Map<string, number[]>();
  const add = (word: string, code: number): void => {
    const list = byWord.get(word);
    if (list === undefined) byWord.set(word, [code]);
    else list.push(code);
  };
  index.entries.forEach((entry, at) => {
    for (const word of entry.capabilityWords) add(word, at * 4 + 3);
    for (const word of entry.componentWords) if (!entry.capabilityWords.has(word)) add(word, at * 4 + 2);
    for (const word of entry.words) if (!entry.capabilityWords.has(word) && !entry.componentWords.has(word)) add(word, at * 4 + 1);
  });
  postings = { byWord, scores: new Int32Array(index.entries.length) };
  postingsCache.set(index, postings);
  return postings;
}

/**
 * Ordinals of the `limit` entries most relevant to `request`, best first: the sum of the request's
 * words' weights (numbers left out: in a request they are values, not names). Only entries sharing
 * a word with the request are scored (through the inverted index); ties keep catalog order, and
 * entries matching nothing follow in catalog order.
 */
function rankOrdinals(index: CatalogIndex, request: string, limit: number): number[] {
  const { byWord, scores } = postingsOf(index);
  const touched: number[] = [];
  for (const word of new Set(wordsOf(request))) {
    if (/^\d+$/.test(word)) continue;
    for (const code of byWord.get(word) ?? []) {
      const at = code >> 2;
      if (scores[at] === 0) touched.push(at);
      scores[at] = scores[at]! + (code & 3);
    }
  }
  // Best score first, catalog order within a score: the ordinals in order (sorted, or the scores
  // read in order when most entries matched), bucketed by score.
  const buckets: number[][] = [];
  if (touched.length * 8 > scores.length) {
    for (let at = 0; at < scores.length; at += 1) if (scores[at] !== 0) (buckets[scores[at]!] ??= []).push(at);
  } else for (const at of Int32Array.from(touched).sort()) (buckets[scores[at]!] ??= []).push(at);
  const out: number[] = [];
  for (let score = buckets.length - 1; score > 0 && out.length < limit; score -= 1) {
    const bucket = buckets[score] ?? [];
    out.push(...(bucket.length > limit - out.length ? bucket.slice(0, limit - out.length) : bucket));
  }
  for (let at = 0; out.length < limit && at < scores.length; at += 1) if (scores[at] === 0) out.push(at);
  for (const at of touched) scores[at] = 0;
  return out;
}

/**
 * The entries most relevant to `request`, best first: a request word in the capability's name counts
 * 3, in the component's name 2, in a description or an input field 1. Ties keep catalog order. Cheap
 * on purpose (an inverted index, built once per catalog version): it picks the index lines a large
 * catalog's selection prompt shows, and orders the fallback of a selection that found nothing.
 */
export function rankByRelevance(index: CatalogIndex, request: string, limit = index.entries.length): IndexEntry[] {
  return rankOrdinals(index, request, Math.min(limit, index.entries.length)).map((at) => index.entries[at]!);
}

/**
 * The index's lines the selection prompt shows, within `budgetBytes`: all of them (catalog order)
 * when the catalog is within WHOLE_INDEX_LINES and they fit, else the indexLines(total) most
 * relevant to the request, as many of those as fit, kept in catalog order. Strings are built only
 * for the lines shown. `shown` says how many made it.
 */
export function fitIndex(
  index: CatalogIndex,
  request: string,
  budgetBytes: number,
  { wide = false }: { readonly wide?: boolean } = {},
): { readonly text: string; readonly shown: number } {
  const lineOf = (e: IndexEntry): string => (wide ? e.wideLine : e.line);
  const total = index.entries.length;
  const limit = indexLines(total);
  if (limit >= total) {
    const whole = wide ? index.entries.map(lineOf).join("\n") : index.text;
    if (Buffer.byteLength(whole) <= budgetBytes) return { text: whole, shown: total };
  }
  const kept: number[] = [];
  let bytes = 0;
  for (const at of rankOrdinals(index, request, limit)) {
    const size = Buffer.byteLength(lineOf(index.entries[at]!)) + 1;
    if (bytes + size > budgetBytes) break;
    kept.push(at);
    bytes += size;
  }
  kept.sort((a, b) => a - b);
  return { text: kept.map((at) => lineOf(index.entries[at]!)).join("\n"), shown: kept.length };
}
