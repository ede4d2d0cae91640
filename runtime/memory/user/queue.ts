/**
 * The extraction queue: work after a chat turn runs here, never in the turn's stream. At most
 * `concurrency` items run at once and at most `limit` wait; past that a new item is dropped (the
 * caller logs it), so a burst of turns can neither pile up model calls nor hold memory without end.
 * Items with the same `keyOf` (a user's turns) run one at a time, in the order they came: a later
 * turn's facts are never overwritten by an earlier turn's extraction finishing after it.
 * `whenIdle()` resolves once nothing waits or runs (tests wait on it instead of sleeping); `stop()`
 * drops what waits, aborts what runs and waits for it to settle.
 */

export interface WorkQueue<T> {
  /** Queues an item; false when the queue is full or stopped (the item is dropped). */
  push(item: T): boolean;
  /** Resolves once no item waits or runs. */
  whenIdle(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkQueueOptions<T> {
  /** @defaultValue 4 */
  readonly concurrency?: number;
  /** Items waiting at most. @defaultValue 100 */
  readonly limit?: number;
  /** Runs one item; what it throws is given to `onError`. */
  readonly run: (item: T, signal: AbortSignal) => Promise<void>;
  /** Items with one key run one after another, in order. @defaultValue every item its own key */
  readonly keyOf?: (item: T) => string;
  readonly onError: (error: unknown) => void;
}

export function createWorkQueue<T>({ concurrency = 4, limit = 100, run, keyOf, onError }: WorkQueueOptions<T>): WorkQueue<T> {
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new RangeError("concurrency must be a whole number of at least 1");
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError("limit must be a whole number of at least 0");
  const waiting: T[] = [];
  const running = new Set<Promise<void>>();
  /** Keys of the items running. */
  const busy = new Set<string>();
  const controller = new AbortController();
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;

  const settleIdle = (): void => {
    if (waiting.length > 0 || running.size > 0 || idle === undefined) return;
    idle.resolve();
    idle = undefined;
  };
  const start = (item: T, key: string | undefined): void => {
    if (key !== undefined) busy.add(key);
    const task = Promise.resolve()
      .then(() => run(item, controller.signal))
      .catch(onError)
      .finally(() => {
        running.delete(task);
        if (key !== undefined) busy.delete(key);
        next();
        settleIdle();
      });
    running.add(task);
  };
  const next = (): void => {
    // The first waiting item whose key is not running; the wait list is bounded, so the scan is too.
    for (let i = 0; i < waiting.length && running.size < concurrency && !controller.signal.aborted; ) {
      const key = keyOf?.(waiting[i] as T);
      if (key !== undefined && busy.has(key)) {
        i += 1;
        continue;
      }
      start(waiting.splice(i, 1)[0] as T, key);
    }
  };

  return {
    push(item) {
      if (controller.signal.aborted || waiting.length >= limit) return false;
      waiting.push(item);
      next();
      return true;
    },
    whenIdle() {
      if (waiting.length === 0 && running.size === 0) return Promise.resolve();
      if (idle === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        idle = { promise, resolve };
      }
      return idle.promise;
    },
    async stop() {
      waiting.length = 0;
      controller.abort();
      await Promise.allSettled([...running]);
      settleIdle();
    },
  };
}
