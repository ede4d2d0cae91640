/**
 * The lexical index: BM25 over an inverted index (term → document → term frequency), kept up to date
 * one document at a time so a fact or an episode written is searchable at once without rebuilding.
 * The caller bounds how many documents a scope holds; the index bounds each document (its text and its
 * terms) and each query, so no single text can make a search or the memory it holds grow without end.
 */
import type { Ranked, RetrievalDoc, TextIndex } from "./types.js";
import { tokenize } from "./tokenize.js";

export interface TextIndexOptions {
  /** Terms kept per document (the rest of a long text is not indexed). */
  readonly maxTokensPerDoc?: number;
  /** Characters of a document's (and a query's) text read at most. */
  readonly maxTextChars?: number;
  /** Distinct query terms used at most. */
  readonly maxQueryTerms?: number;
}

/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

interface Entry {
  readonly id: string;
  readonly length: number;
  readonly terms: ReadonlyMap<string, number>;
  /** The search that last scored this document, and its score there: a slot per document instead of a map per search. */
  searched: number;
  score: number;
}

/** One document in one term's posting list: its term frequency and its entry (length and score slot, without a lookup). */
interface Posting {
  readonly frequency: number;
  readonly entry: Entry;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`createTextIndex: ${name} must be a positive whole number`);
  return value;
}

function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** Better first: higher score, then the smaller id (so equal scores come out the same way every time). */
function better(a: Ranked, b: Ranked): boolean {
  return a.score > b.score || (a.score === b.score && a.id < b.id);
}

/** Adds `candidate` to `top` (best first) when it is among the best `limit`: cheaper than sorting every match when limit is small. */
export function keepBest(top: Ranked[], candidate: Ranked, limit: number): void {
  if (top.length === limit && !better(candidate, top[top.length - 1]!)) return;
  let at = top.length;
  while (at > 0 && better(candidate, top[at - 1]!)) at -= 1;
  top.splice(at, 0, candidate);
  if (top.length > limit) top.pop();
}

export function createTextIndex(options: TextIndexOptions = {}): TextIndex {
  const { maxTokensPerDoc = 256, maxTextChars = 16_384, maxQueryTerms = 64 } = options;
  positiveInteger("maxTokensPerDoc", maxTokensPerDoc);
  positiveInteger("maxTextChars", maxTextChars);
  positiveInteger("maxQueryTerms", maxQueryTerms);
  const docs = new Map<string, Entry>();
  const postings = new Map<string, Map<string, Posting>>();
  let totalLength = 0;
  let searches = 0;

  const remove = (id: string): void => {
    const entry = docs.get(id);
    if (entry === undefined) return;
    docs.delete(id);
    totalLength -= entry.length;
    for (const term of entry.terms.keys()) {
      const posting = postings.get(term)!;
      posting.delete(id);
      // An emptied posting list goes too: removed documents leave nothing behind.
      if (posting.size === 0) postings.delete(term);
    }
  };

  const upsert = (doc: RetrievalDoc): void => {
    remove(doc.id);
    const tokens = tokenize(doc.text.slice(0, maxTextChars), maxTokensPerDoc);
    const terms = termFrequencies(tokens);
    const entry: Entry = { id: doc.id, length: tokens.length, terms, searched: 0, score: 0 };
    docs.set(doc.id, entry);
    totalLength += tokens.length;
    for (const [term, frequency] of terms) {
      let posting = postings.get(term);
      if (posting === undefined) postings.set(term, (posting = new Map()));
      posting.set(doc.id, { frequency, entry });
    }
  };

  const search = (query: string, limit: number): Ranked[] => {
    const wanted = Math.floor(limit);
    if (!(wanted >= 1) || docs.size === 0) return [];
    const terms = [...new Set(tokenize(query.slice(0, maxTextChars)))].slice(0, maxQueryTerms);
    const averageLength = totalLength / docs.size || 1;
    const pass = ++searches;
    const matched: Entry[] = [];
    for (const term of terms) {
      const posting = postings.get(term);
      if (posting === undefined) continue;
      // The +1 inside the logarithm keeps every matching term's weight positive, common terms included.
      const idf = Math.log(1 + (docs.size - posting.size + 0.5) / (posting.size + 0.5));
      for (const { frequency, entry } of posting.values()) {
        const weight = (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * entry.length) / averageLength));
        if (entry.searched !== pass) {
          entry.searched = pass;
          entry.score = 0;
          matched.push(entry);
        }
        entry.score += weight;
      }
    }
    const top: Ranked[] = [];
    for (const entry of matched) if (entry.score > 0) keepBest(top, { id: entry.id, score: entry.score }, wanted);
    return top;
  };

  return {
    get size() {
      return docs.size;
    },
    upsert,
    remove,
    search,
  };
}
