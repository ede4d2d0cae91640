/**
 * Waiting for work on the memory task backend: a dequeue with `blockMs` sleeps until a create or a
 * release wakes it, the earliest lease may have lapsed, its signal aborts, its backend closes, or the
 * block ends, whichever comes first.
 */
import { holdOpen } from "../util/index.js";
import { earliestLease, takeLeases } from "./memory-leases.js";
import type { MemoryBackend } from "./memory-state.js";
import type { DequeueOptions, Lease } from "./types.js";

/** Wakes this backend's own waiting dequeues only (its close). */
export function wakeOwn(backend: MemoryBackend): void {
  for (const wake of [...backend.ownWaiters]) wake();
}

/**
 * Resolves on a wake-up, the timeout or the signal. The timer holds the process open: a caller
 * waiting for work is work in progress, and the wait is bounded by `blockMs`.
 */
function waitForWork(backend: MemoryBackend, ms: number, signal: AbortSignal | undefined): Promise<void> {
  const { state, clock, ownWaiters } = backend;
  return new Promise((resolve) => {
    const done = (): void => {
      clock.clearTimeout(timer);
      state.waiters.delete(done);
      ownWaiters.delete(done);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = holdOpen(clock.setTimeout(done, Math.max(ms, 1)));
    state.waiters.add(done);
    ownWaiters.add(done);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Takes what there is; while nothing, waits (see `waitForWork`) and tries again until the block ends. */
export async function dequeueBlocking(backend: MemoryBackend, options: DequeueOptions): Promise<Lease[]> {
  const { blockMs, signal } = options;
  const { clock } = backend;
  const deadline = clock.now() + blockMs;
  for (;;) {
    if (backend.closed) return [];
    const leases = takeLeases(backend, options);
    if (leases.length > 0 || signal?.aborted === true) return leases;
    const remaining = deadline - clock.now();
    if (remaining <= 0) return leases;
    const lapse = earliestLease(backend);
    await waitForWork(backend, lapse === undefined ? remaining : Math.min(remaining, lapse - clock.now() + 1), signal);
  }
}
