/**
 * Runs `work` over `items`, at most `limit` at a time. One by one, each file's few system calls each
 * waited a turn of the event loop (2,200 files: most of gen's wall time on a busy machine); all at once
 * would hold thousands of file handles (past the usual limit of 1,024, an open fails with EMFILE).
 */
export async function forEachLimit<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** How many files gen reads or writes at once. */
export const FILES_AT_ONCE = 32;
