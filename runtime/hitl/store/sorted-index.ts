/**
 * The memory adapter's stand-in for a Redis sorted set: entries ordered by key, then id, in an array
 * kept sorted by binary insertion (the schedule store's due index, made reusable). A key must not
 * change while its entry is in the index: delete, change, add.
 */
export interface SortedIndex<K extends number | string> {
  readonly size: number;
  add(key: K, id: string): void;
  delete(key: K, id: string): void;
  /** The first (smallest) entry. */
  first(): { readonly key: K; readonly id: string } | undefined;
  /** Smallest first. */
  ascending(): IterableIterator<{ readonly key: K; readonly id: string }>;
  /** Largest first, starting below `below` when given (entries keyed `below` are skipped). */
  descending(below?: K): IterableIterator<{ readonly key: K; readonly id: string }>;
}

export function createSortedIndex<K extends number | string>(): SortedIndex<K> {
  const entries: { key: K; id: string }[] = [];
  /** The first position whose entry is not before (key, id). */
  const lowerBound = (key: K, id: string): number => {
    let low = 0;
    let high = entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const entry = entries[middle]!;
      if (entry.key < key || (entry.key === key && entry.id < id)) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  return {
    get size() {
      return entries.length;
    },
    add: (key, id) => void entries.splice(lowerBound(key, id), 0, { key, id }),
    delete: (key, id) => {
      const at = lowerBound(key, id);
      if (entries[at]?.id === id && entries[at]?.key === key) entries.splice(at, 1);
    },
    first: () => entries[0],
    ascending: () => entries.values(),
    *descending(below) {
      for (let i = (below === undefined ? entries.length : lowerBound(below, "")) - 1; i >= 0; i--) yield entries[i]!;
    },
  };
}
