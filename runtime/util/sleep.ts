/**
 * Resolves after `ms`, or at once when `signal` aborts (the caller then checks the signal). Retry
 * backoff and the worker pool's idle waits both need exactly this; nothing here rejects, so a
 * cancelled wait never turns into an unhandled rejection.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
