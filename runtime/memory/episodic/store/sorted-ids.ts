/**
 * The memory adapter's stand-in for a lexicographic Redis sorted set of record ids: an array kept
 * sorted by binary insertion. Ids are time-ordered, so appends land at the end and the oldest are at
 * the front; reads walk a bounded window from either end, never the whole set.
 */
export interface SortedIds {
  readonly size: number;
  add(id: string): void;
  delete(id: string): boolean;
  /** Newest first, only ids above `after` when given, at most `limit`. */
  newest(limit: number, after?: string): string[];
  /** Oldest first, ids below `bound` only, at most `limit`. */
  oldest(limit: number, bound: string): string[];
}

export function createSortedIds(): SortedIds {
  const ids: string[] = [];
  /** The first position whose id is not below `id`. */
  const lowerBound = (id: string): number => {
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle]! < id) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  return {
    get size() {
      return ids.length;
    },
    add(id) {
      if (ids.length === 0 || ids[ids.length - 1]! < id) {
        ids.push(id);
        return;
      }
      const at = lowerBound(id);
      if (ids[at] !== id) ids.splice(at, 0, id);
    },
    delete(id) {
      const at = lowerBound(id);
      if (ids[at] !== id) return false;
      ids.splice(at, 1);
      return true;
    },
    newest(limit, after) {
      const out: string[] = [];
      for (let i = ids.length - 1; i >= 0 && out.length < limit && (after === undefined || ids[i]! > after); i--) out.push(ids[i]!);
      return out;
    },
    oldest(limit, bound) {
      const out: string[] = [];
      for (let i = 0; i < ids.length && out.length < limit && ids[i]! < bound; i++) out.push(ids[i]!);
      return out;
    },
  };
}
