/**
 * The one way runtime code reads time and waits for it. Everything that expires, retries, leases or
 * beats (TTLs, HITL expiry, heartbeats, backoff, task timeouts) takes a `Clock` option defaulting to
 * `systemClock`, so a test can drive time by hand instead of sleeping through it and asserting how
 * long the wait took (which fails on a loaded machine for reasons that have nothing to do with the code).
 */
export type ClockTimer = { readonly clockTimer: true } | ReturnType<typeof setTimeout>;

export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number;
  /** Calls `fn` once `ms` have passed on this clock. */
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer | undefined): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    // A pending wake-up never keeps a process alive on its own: closing what owns it clears it anyway.
    timer.unref?.();
    return timer;
  },
  clearTimeout: (timer) => {
    if (timer !== undefined) clearTimeout(timer as ReturnType<typeof setTimeout>);
  },
};

/** Resolves after `ms` on `clock`, or at once when `signal` aborts (the caller then checks the signal). */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
