/**
 * Waits that are work in progress: a dequeue blocked for work, a retry's pause, a graceful stop's
 * grace period. `systemClock`'s timers never keep a process alive (a pending wake-up is cleared by
 * whatever owns it); these do, as plain `setTimeout`s did before time became an injected `Clock`, so
 * a process does not exit in the middle of one. A test's manual clock has nothing to hold.
 */
import type { Clock, ClockTimer } from "../util/index.js";

/** Makes a pending timer keep the process alive (a Node timer; anything else is left as it is). */
export function holdOpen(timer: ClockTimer): ClockTimer {
  (timer as { ref?: () => unknown }).ref?.();
  return timer;
}

/** `sleepOn` with a timer that holds the process open: resolves after `ms` on `clock`, or at once when `signal` aborts. */
export function sleepHeld(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = holdOpen(clock.setTimeout(done, ms));
    signal?.addEventListener("abort", done, { once: true });
  });
}
