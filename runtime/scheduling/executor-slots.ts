/**
 * The executor's dispatch places: at most `limit` POSTs in flight per process, and at most
 * `perAgent` of them to one target agent.
 */
import { type Clock, type ClockTimer, systemClock } from "../util/index.js";

/** At most `limit` dispatches at once, and at most `perAgent` of them to one target agent. */
export interface Slots {
  /**
   * Takes a place for a dispatch to `agent`: at once (undefined) while one is free and the agent is
   * under its share, else a promise: true once placed, false when none came within the wait (the
   * task is then deferred to the back of the queue, so it does not hold the pool meanwhile).
   */
  enter(agent: string): Promise<boolean> | undefined;
  leave(agent: string): void;
}

interface Waiter {
  readonly agent: string;
  readonly resolve: (placed: boolean) => void;
  timer: ClockTimer | undefined;
}

/**
 * The dispatch limit, per process and per target agent: an agent whose replicas hang holds at most
 * its share, and the rest keep moving. Entering is synchronous while a place is free, so the common
 * case costs no promise. Waiters are served in arrival order, skipping those whose agent is at its
 * share; one that waits `waitMs` on the clock gives up (false). A waiter is not watched for an
 * abort: one whose task was aborted while it waited hands its place on as soon as it gets it.
 */
export function createSlots(
  limit: number,
  { perAgent = limit, clock = systemClock, waitMs = Number.POSITIVE_INFINITY }: { perAgent?: number; clock?: Clock; waitMs?: number } = {},
): Slots {
  let free = limit;
  const held = new Map<string, number>();
  const line: Waiter[] = [];
  const take = (agent: string) => {
    free -= 1;
    held.set(agent, (held.get(agent) ?? 0) + 1);
  };
  const fits = (agent: string) => free > 0 && (held.get(agent) ?? 0) < perAgent;
  return {
    enter: (agent) => {
      // No waiter fits (each leave places the first that does), so one that fits now goes first.
      if (fits(agent)) {
        take(agent);
        return undefined;
      }
      return new Promise((resolve) => {
        const waiter: Waiter = { agent, resolve, timer: undefined };
        line.push(waiter);
        if (Number.isFinite(waitMs)) {
          waiter.timer = clock.setTimeout(() => {
            const at = line.indexOf(waiter);
            if (at >= 0) line.splice(at, 1);
            resolve(false);
          }, waitMs);
        }
      });
    },
    leave: (agent) => {
      free += 1;
      const count = (held.get(agent) ?? 1) - 1;
      if (count === 0) held.delete(agent);
      else held.set(agent, count);
      const next = line.findIndex((w) => fits(w.agent));
      if (next < 0) return;
      const [waiter] = line.splice(next, 1);
      clock.clearTimeout(waiter!.timer);
      take(waiter!.agent);
      waiter!.resolve(true);
    },
  };
}
