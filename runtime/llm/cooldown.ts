/**
 * One rate-limit cooldown per provider, shared by every call it makes (issue 32 L6). Without it, each
 * of 100 concurrent requests answered 429 retried on its own: 300 upstream calls for 100 requests.
 * Now a 429 starts a cooldown (its Retry-After, else the backoff) that every new attempt waits out,
 * and after it one attempt, the probe, goes first: the others wait for its outcome. A probe answered
 * 429 again means the endpoint is still limiting: the waiters, and every request rate limited before
 * that probe failed, fail without calling (the probe's own request may retry); any other outcome lets
 * them go. Under a steady storm, N concurrent requests make at most N calls (those in flight before
 * the first 429) plus one probe per retry of one request.
 */
import { holdOpen, sleepOn, type Clock } from "../util/index.js";

/** Leave to make one attempt, and whether it is the probe after a cooldown. */
export interface Permit {
  readonly probe: boolean;
}

/** How an attempt ended, for the cooldown: rate limited (with the wait it asks for), answered otherwise, or abandoned. */
export type AttemptOutcome = { readonly limitedMs: number } | "answered" | "abandoned";

export interface EnterOptions {
  readonly signal: AbortSignal | undefined;
  /** Clock time by which the attempt must have finished. @defaultValue none */
  readonly deadline?: number;
  /** What an attempt needs at least: a cooldown that leaves less before the deadline is not waited out. */
  readonly minAttemptMs: number;
  /** For a request answered 429 before: what `settle` returned then. A probe failed since means it fails now. */
  readonly since?: number | undefined;
}

export interface Cooldown {
  /** A permit once the cooldown allows an attempt; undefined when it cannot within the deadline (or the signal fired): fail without calling. */
  enter(options: EnterOptions): Promise<Permit | undefined>;
  /** Tells the cooldown how a permitted attempt ended; the count of failed probes so far, for the request's next `enter`. */
  settle(permit: Permit, outcome: AttemptOutcome): number;
}

/**
 * `probe` settled to whether the waiters may go; false as soon as `signal` fires, or once `ms` have
 * passed on `clock` (the wait a request's deadline allows: a probe of its own may take its whole timeout).
 */
function outcomeWithin(probe: Promise<boolean>, signal: AbortSignal | undefined, clock: Clock, ms: number): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (go: boolean): void => {
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", abort);
      resolve(go);
    };
    const abort = (): void => finish(false);
    const timer = Number.isFinite(ms) ? holdOpen(clock.setTimeout(abort, ms)) : undefined;
    signal?.addEventListener("abort", abort, { once: true });
    void probe.then(finish);
  });
}

export function createCooldown(clock: Clock): Cooldown {
  let limited = false;
  let until = 0;
  let probe: { readonly settled: Promise<boolean>; readonly resolve: (go: boolean) => void } | undefined;
  let failedProbes = 0;

  return {
    async enter({ signal, deadline = Number.POSITIVE_INFINITY, minAttemptMs, since }) {
      for (;;) {
        if (signal?.aborted) return undefined;
        if (!limited) return { probe: false };
        // Limited itself, and the endpoint has limited a probe since: this request's retry would only add load.
        if (since !== undefined && failedProbes > since) return undefined;
        const now = clock.now();
        if (now < until) {
          if (until + minAttemptMs > deadline) return undefined;
          await sleepOn(clock, until - now, signal, { hold: true });
        } else if (probe !== undefined) {
          const left = deadline - minAttemptMs - now;
          if (left <= 0 || !(await outcomeWithin(probe.settled, signal, clock, left))) return undefined;
        } else {
          let resolve!: (go: boolean) => void;
          probe = { settled: new Promise<boolean>((r) => (resolve = r)), resolve };
          return { probe: true };
        }
      }
    },
    settle(permit, outcome) {
      if (outcome === "answered") limited = false;
      else if (outcome !== "abandoned") {
        limited = true;
        until = Math.max(until, clock.now() + outcome.limitedMs);
        if (permit.probe) failedProbes += 1;
      }
      if (permit.probe && probe !== undefined) {
        const { resolve } = probe;
        probe = undefined;
        // An abandoned probe tells nothing: the waiters go round again, and one of them probes.
        resolve(outcome === "answered" || outcome === "abandoned");
      }
      return failedProbes;
    },
  };
}
