import { systemClock, type Clock, type ClockTimer } from "../util/index.js";
import { resolveTiming, type Timing } from "./entry.js";
import type { ComponentRegistration, RegisterOptions, Registry, ReportedHealth } from "./types.js";

export interface HeartbeatOptions extends RegisterOptions {
  /** Each period is the heartbeat ± this fraction, so a fleet started together does not beat together. @defaultValue 0.1 */
  readonly jitter?: number;
  /** @defaultValue always healthy */
  readonly health?: () => Promise<ReportedHealth>;
  readonly log?: (message: string) => void;
  /** How long stop() waits for the unregistration. @defaultValue 2000 */
  readonly stopTimeoutMs?: number;
  /** What the period, the retries and stop's limit are measured on. @defaultValue systemClock */
  readonly clock?: Clock;
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

/** One heartbeat's settings and where it stands, which the functions below read and change. */
interface Beating {
  readonly registry: Registry;
  readonly registration: Omit<ComponentRegistration, "health">;
  readonly timing: Timing;
  readonly jitter: number;
  readonly health: () => Promise<ReportedHealth>;
  readonly log: (message: string) => void;
  readonly clock: Clock;
  /** `name (id)`, for the log. */
  readonly who: string;
  timer: ClockTimer | undefined;
  stopped: boolean;
  inFlight: Promise<boolean> | undefined;
  /** A reconnect came during a beat: beat once more when it ends. */
  again: boolean;
  /** Failed beats in a row. */
  failures: number;
}

/** The wait before the next beat: the period, or while failing a backoff from 250 ms up to it; ± the jitter. */
export function nextBeatDelay(heartbeatMs: number, failures: number, jitter: number, random: number): number {
  const base = failures === 0 ? heartbeatMs : Math.min(heartbeatMs, 250 * 2 ** (failures - 1));
  return base * (1 - jitter + random * 2 * jitter);
}

function schedule(state: Beating, ms: number): void {
  state.clock.clearTimeout(state.timer);
  if (state.stopped) return;
  // The system clock's timer is unref'd: the server keeps the process alive, not its heartbeat.
  state.timer = state.clock.setTimeout(() => void beat(state), ms);
}

/** One registration of the full record; an outage is logged when it starts and when it ends. */
async function registerOnce(state: Beating): Promise<boolean> {
  const { who, log } = state;
  try {
    await state.registry.register({ ...state.registration, health: await state.health() }, state.timing);
    if (state.failures > 0) log(`${who} registered after ${state.failures} failed attempt${state.failures === 1 ? "" : "s"}`);
    state.failures = 0;
    return true;
  } catch (error) {
    if (state.failures === 0) log(`${who} not registered (${describe(error)}); serving anyway, retrying`);
    state.failures += 1;
    return false;
  }
}

/** Registers now unless a beat is in flight (then that one is followed by another), and schedules the next. */
function beat(state: Beating): Promise<boolean> {
  if (state.stopped) return Promise.resolve(false);
  if (state.inFlight !== undefined) {
    state.again = true;
    return state.inFlight;
  }
  state.clock.clearTimeout(state.timer);
  const current = registerOnce(state).finally(() => {
    state.inFlight = undefined;
    if (state.again && !state.stopped) {
      state.again = false;
      void beat(state);
    } else {
      schedule(state, nextBeatDelay(state.timing.heartbeatMs, state.failures, state.jitter, Math.random()));
    }
  });
  state.inFlight = current;
  return current;
}

/** Stops beating, waits for a beat in flight, then unregisters within `stopTimeoutMs`. */
async function stopBeating(state: Beating, stopTimeoutMs: number): Promise<void> {
  const { clock, who, timing } = state;
  if (state.stopped) return;
  state.stopped = true;
  clock.clearTimeout(state.timer);
  // A beat that lands after the unregistration would bring the record back for a whole TTL.
  await state.inFlight;
  let limit: ClockTimer | undefined;
  const unregistered = state.registry.unregister(state.registration.id).then(
    () => undefined,
    (error: unknown) => {
      state.log(`${who} not unregistered (${describe(error)}); it expires within ${timing.ttlMs} ms`);
    },
  );
  const timeout = new Promise<void>((resolve) => {
    limit = clock.setTimeout(resolve, stopTimeoutMs);
  });
  await Promise.race([unregistered, timeout]).finally(() => clock.clearTimeout(limit));
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
  {
    jitter = 0.1,
    health = () => Promise.resolve("healthy"),
    log = () => undefined,
    stopTimeoutMs = 2_000,
    clock = systemClock,
    ...timingOptions
  }: HeartbeatOptions = {},
): Heartbeat {
  const state: Beating = {
    registry,
    registration,
    timing: resolveTiming(timingOptions),
    jitter,
    health,
    log,
    clock,
    who: `${registration.name} (${registration.id})`,
    timer: undefined,
    stopped: false,
    inFlight: undefined,
    again: false,
    failures: 0,
  };
  const offReconnect = registry.onReconnect(() => void beat(state));
  return {
    ready: beat(state),
    beat: () => beat(state),
    stop: async () => {
      if (!state.stopped) offReconnect();
      await stopBeating(state, stopTimeoutMs);
    },
  };
}
