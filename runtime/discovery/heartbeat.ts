import { resolveTiming } from "./entry.js";
import type { ComponentRegistration, RegisterOptions, Registry, ReportedHealth } from "./types.js";

export interface HeartbeatOptions extends RegisterOptions {
  /** Each period is the heartbeat ± this fraction, so a fleet started together does not beat together. @defaultValue 0.1 */
  readonly jitter?: number;
  /** @defaultValue always healthy */
  readonly health?: () => Promise<ReportedHealth>;
  readonly log?: (message: string) => void;
  /** How long stop() waits for the unregistration. @defaultValue 2000 */
  readonly stopTimeoutMs?: number;
}

export interface Heartbeat {
  /** The first registration's outcome; never rejects (a failure is retried, the component serves anyway). */
  readonly ready: Promise<boolean>;
  /** Registers now; resolves with whether it succeeded. */
  beat(): Promise<boolean>;
  /** Stops beating and unregisters (bounded by stopTimeoutMs; a failure is logged, not thrown). */
  stop(): Promise<void>;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Keeps a registration alive. Each beat rewrites the full record (not just its TTL), so a Redis that
 * restarted empty is repopulated within one period, and the registry's reconnect signal triggers a
 * beat at once. While the registry is unreachable, beats are retried with a backoff up to the
 * period, and the outage is logged once, with one line when it ends.
 */
export function startHeartbeat(
  registry: Registry,
  registration: Omit<ComponentRegistration, "health">,
  { jitter = 0.1, health = () => Promise.resolve("healthy"), log = () => undefined, stopTimeoutMs = 2_000, ...timingOptions }: HeartbeatOptions = {},
): Heartbeat {
  const timing = resolveTiming(timingOptions);
  const who = `${registration.name} (${registration.id})`;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<boolean> | undefined;
  let again = false;
  let failures = 0;

  const schedule = (ms: number): void => {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(() => void beat(), ms);
    timer.unref(); // the server keeps the process alive, not its heartbeat
  };
  const nextDelay = (): number => {
    const base = failures === 0 ? timing.heartbeatMs : Math.min(timing.heartbeatMs, 250 * 2 ** (failures - 1));
    return base * (1 - jitter + Math.random() * 2 * jitter);
  };

  const once = async (): Promise<boolean> => {
    try {
      await registry.register({ ...registration, health: await health() }, timing);
      if (failures > 0) log(`${who} registered after ${failures} failed attempt${failures === 1 ? "" : "s"}`);
      failures = 0;
      return true;
    } catch (error) {
      if (failures === 0) log(`${who} not registered (${describe(error)}); serving anyway, retrying`);
      failures += 1;
      return false;
    }
  };

  const beat = (): Promise<boolean> => {
    if (stopped) return Promise.resolve(false);
    if (inFlight !== undefined) {
      again = true; // a reconnect during a beat: beat once more when this one ends
      return inFlight;
    }
    clearTimeout(timer);
    const current = once().finally(() => {
      inFlight = undefined;
      if (again && !stopped) {
        again = false;
        void beat();
      } else {
        schedule(nextDelay());
      }
    });
    inFlight = current;
    return current;
  };

  const offReconnect = registry.onReconnect(() => void beat());
  const ready = beat();

  return {
    ready,
    beat,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      offReconnect();
      clearTimeout(timer);
      // A beat that lands after the unregistration would bring the record back for a whole TTL.
      await inFlight;
      let limit: NodeJS.Timeout | undefined;
      const unregistered = registry.unregister(registration.id).then(
        () => undefined,
        (error: unknown) => {
          log(`${who} not unregistered (${describe(error)}); it expires within ${timing.ttlMs} ms`);
        },
      );
      const timeout = new Promise<void>((resolve) => {
        limit = setTimeout(resolve, stopTimeoutMs);
      });
      await Promise.race([unregistered, timeout]).finally(() => clearTimeout(limit));
    },
  };
}
