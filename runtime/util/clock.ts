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

/**
 * Makes a pending timer keep the process alive (a Node timer; anything else, such as a test's manual
 * clock's, is left as it is). `systemClock`'s timers never do on their own; a wait that is work in
 * progress (a dequeue blocked for work, a retry's pause, a graceful stop's grace period) holds its
 * timer open, as plain `setTimeout`s did before time became an injected `Clock`, so a process does
 * not exit in the middle of one.
 */
export function holdOpen(timer: ClockTimer): ClockTimer {
  (timer as { ref?: () => unknown }).ref?.();
  return timer;
}

/**
 * Resolves after `ms` on `clock`, or at once when `signal` aborts (the caller then checks the signal).
 * With `hold`, the timer keeps the process alive meanwhile (see `holdOpen`).
 */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal, { hold = false }: { readonly hold?: boolean } = {}): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    if (hold) holdOpen(timer);
    signal?.addEventListener("abort", done, { once: true });
  });
}
