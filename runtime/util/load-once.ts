/** A load run once and shared by every caller while it runs. */
export interface LoadOnce<T> {
  /** The load's promise: started by the first call, shared until it settles, kept once it succeeds. */
  get(): Promise<T>;
  /** What the load gave, once it has. */
  current(): T | undefined;
  /** The load under way or done; undefined before the first call and after a failure. */
  pending(): Promise<T> | undefined;
}

/**
 * For code loaded on first use (a feature's running part, natural mode's model parts): a failed load is
 * not kept, so the next call tries again rather than every later request failing with the first error.
 */
export function loadOnce<T>(load: () => Promise<T>): LoadOnce<T> {
  let loading: Promise<T> | undefined;
  let loaded: T | undefined;
  let done = false;
  return {
    get() {
      if (loading !== undefined) return loading;
      const started = load().then((value) => {
        [loaded, done] = [value, true];
        return value;
      });
      started.catch(() => {
        if (loading === started) loading = undefined;
      });
      return (loading = started);
    },
    current: () => (done ? loaded : undefined),
    pending: () => loading,
  };
}
