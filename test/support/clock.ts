/**
 * A clock the test moves by hand: `now()` stands still until `advance(ms)`, which fires every timer
 * due on the way in time order (letting the promises each one settles run before the next). Pass it
 * as the `clock` option of whatever expires, retries, leases or beats.
 */
import type { Clock, ClockTimer } from "../../runtime/util/index.js";

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing due timers in order; resolves once their follow-ups have run. */
  advance(ms: number): Promise<void>;
  /** Timers not yet fired. */
  pending(): number;
}

interface Entry {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** Lets promise chains started by a timer run to their next real wait. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

export function createManualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let current = start;
  let seq = 0;
  const timers = new Map<number, Entry>();
  const clock: ManualClock = {
    now: () => current,
    setTimeout(fn, ms) {
      const id = ++seq;
      timers.set(id, { at: current + Math.max(0, ms), seq: id, fn });
      return { clockTimer: true, id } as unknown as ClockTimer;
    },
    clearTimeout(timer) {
      if (timer !== undefined) timers.delete((timer as unknown as { id: number }).id);
    },
    async advance(ms) {
      const target = current + ms;
      for (;;) {
        const due = [...timers.values()].filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
        if (due === undefined) break;
        timers.delete(due.seq);
        current = Math.max(current, due.at);
        due.fn();
        await settle();
      }
      current = target;
      await settle();
    },
    pending: () => timers.size,
  };
  return clock;
}
