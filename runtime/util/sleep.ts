import { sleepOn, systemClock } from "./clock.js";

/**
 * Resolves after `ms`, or at once when `signal` aborts (the caller then checks the signal): `sleepOn`
 * on the system clock, with a timer that keeps the process alive meanwhile. Nothing rejects, so a
 * cancelled wait never turns into an unhandled rejection.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleepOn(systemClock, ms, signal, { hold: true });
}
