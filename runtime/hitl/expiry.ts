/**
 * The expiry processor: bounded passes that move checkpoints past their `expires_at` to their default
 * action (`expired_approved`, resumable, or `expired`, as rejected). The store's `expireDue` claims
 * each checkpoint for exactly one caller, so any number of replicas may run a processor. Each pass is a
 * root span `hitl.expiry_scan`; each checkpoint it handles is a `hitl.expiry_process` span linked to
 * the trace that created the checkpoint.
 */
import { randomBytes } from "node:crypto";
import { getTelemetry } from "../telemetry/index.js";
import { systemClock, type Clock, type ClockTimer } from "../util/index.js";
import { type Checkpoint, type CheckpointStore, MAX_EXPIRE_LIMIT } from "./store/index.js";

export interface ExpiryPassResult {
  readonly request_id: string;
  /** Checkpoints this pass moved out of `pending`. */
  readonly claimed: number;
  /** Of those, the ones whose follow-up (`onExpired`) succeeded or was not needed. */
  readonly processed: number;
  readonly failed: number;
  /** True when the pass stopped at its time or batch budget with due checkpoints perhaps left. */
  readonly truncated: boolean;
}

export interface ExpiryProcessorOptions {
  readonly store: CheckpointStore;
  /**
   * Told about each checkpoint this processor expired, after the store moved it: an auto-approved one
   * (`expired_approved`) is resumable, which is how a non-streaming run continues without a human (a
   * streaming one is left to its client). A throw counts the checkpoint as failed; a resume that failed
   * before its approved step ran gave the approval back, so a later pass's `followUps` tries again,
   * up to the coordinator's attempt cap.
   */
  readonly onExpired?: (checkpoint: Checkpoint) => void | Promise<void>;
  /**
   * Checkpoints another processor expired that this one must follow up: agents of one namespace share
   * the store, and any of them may claim a due checkpoint, but only its own agent can resume its run.
   * Each pass hands them to `onExpired` too. @defaultValue none
   */
  readonly followUps?: () => Promise<readonly Checkpoint[]>;
  /** Checkpoints claimed per store call. @defaultValue 100 */
  readonly batchLimit?: number;
  /** A pass stops claiming after this long (the spec's bounded passes). @defaultValue 30 s */
  readonly maxPassMs?: number;
  /** Longest sleep between passes; a pass also runs at the next known expiry. @defaultValue 5 s */
  readonly intervalMs?: number;
  /** Reads time and sleeps between passes. @defaultValue systemClock */
  readonly clock?: Clock;
  readonly log?: (message: string, error: unknown) => void;
}

export interface ExpiryProcessor {
  /** One pass now. */
  runPass(): Promise<ExpiryPassResult>;
  /** Passes until `stop()`: at the next expiry or after `intervalMs`, whichever is sooner. */
  start(): void;
  /** Stops the loop and waits for a pass under way. */
  stop(): Promise<void>;
}

/** A processor's state: its options with defaults filled in, and its loop. */
interface Expiry {
  readonly store: CheckpointStore;
  readonly onExpired: ExpiryProcessorOptions["onExpired"];
  readonly followUps: ExpiryProcessorOptions["followUps"];
  readonly batchLimit: number;
  readonly maxPassMs: number;
  readonly intervalMs: number;
  readonly clock: Clock;
  readonly log: (message: string, error: unknown) => void;
  running: boolean;
  timer: ClockTimer | undefined;
  /** The pass (or the scheduling) under way, which `stop` waits for. */
  current: Promise<unknown>;
}

export function createExpiryProcessor({
  store,
  onExpired,
  followUps,
  batchLimit = 100,
  maxPassMs = 30_000,
  intervalMs = 5_000,
  clock = systemClock,
  log = () => undefined,
}: ExpiryProcessorOptions): ExpiryProcessor {
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 1 || batchLimit > MAX_EXPIRE_LIMIT) throw new RangeError(`batchLimit must be 1–${MAX_EXPIRE_LIMIT}`);
  const state: Expiry = {
    store,
    onExpired,
    followUps,
    batchLimit,
    maxPassMs,
    intervalMs,
    clock,
    log,
    running: false,
    timer: undefined,
    current: Promise.resolve(),
  };
  return {
    runPass: () => runPass(state),
    start() {
      if (state.running) return;
      state.running = true;
      state.current = schedule(state);
    },
    async stop() {
      state.running = false;
      state.clock.clearTimeout(state.timer);
      await state.current;
    },
  };
}

/** Hands one expired checkpoint to `onExpired`, in a `hitl.expiry_process` span linked to the trace that created it; false when that failed. */
async function processOne({ onExpired, log }: Expiry, checkpoint: Checkpoint): Promise<boolean> {
  const telemetry = getTelemetry();
  const span = telemetry.enabled
    ? telemetry.startSpan("hitl.expiry_process", {
        attributes: {
          checkpoint_id: checkpoint.checkpoint_id,
          original_trace_id: checkpoint.trace?.traceparent.split("-")[1],
          "link.type": "hitl_expiry",
          trigger: "expiry_processor",
        },
        ...(checkpoint.trace === undefined ? {} : { links: [checkpoint.trace] }),
      })
    : undefined;
  try {
    if (onExpired !== undefined) await (span === undefined ? onExpired(checkpoint) : span.run(() => onExpired(checkpoint)));
    span?.end();
    return true;
  } catch (error) {
    log(`expired checkpoint ${checkpoint.checkpoint_id}: its follow-up failed`, error);
    span?.end("INTERNAL");
    return false;
  }
}

interface PassCount {
  claimed: number;
  processed: number;
  truncated: boolean;
}

/** Claims due checkpoints batch by batch until none is left or the time budget is spent, then this agent's follow-ups. */
async function claimAndProcess(state: Expiry, count: PassCount, started: number): Promise<void> {
  const { store, clock, batchLimit, maxPassMs, followUps } = state;
  for (;;) {
    const batch = await store.expireDue(clock.now(), batchLimit);
    count.claimed += batch.length;
    for (const checkpoint of batch) if (await processOne(state, checkpoint)) count.processed += 1;
    if (batch.length < batchLimit) break;
    if (clock.now() - started >= maxPassMs) {
      count.truncated = true;
      break;
    }
  }
  if (followUps !== undefined && !count.truncated) {
    const owed = await followUps();
    count.claimed += owed.length;
    for (const checkpoint of owed) if (await processOne(state, checkpoint)) count.processed += 1;
  }
}

/** One bounded pass, as a root span `hitl.expiry_scan` with its counts. */
async function runPass(state: Expiry): Promise<ExpiryPassResult> {
  const requestId = `hitl-expiry-${randomBytes(8).toString("hex")}`;
  const started = state.clock.now();
  const telemetry = getTelemetry();
  const span = telemetry.enabled
    ? telemetry.startSpan("hitl.expiry_scan", { attributes: { request_id: requestId, batch_limit: state.batchLimit } })
    : undefined;
  const count: PassCount = { claimed: 0, processed: 0, truncated: false };
  const counts = (status: string) => ({
    claimed_count: count.claimed,
    processed_count: count.processed,
    failed_count: count.claimed - count.processed,
    status,
    duration_ms: state.clock.now() - started,
  });
  try {
    await claimAndProcess(state, count, started);
    span?.setAttributes(counts("ok"));
    span?.end();
  } catch (error) {
    span?.setAttributes(counts("error"));
    span?.end("UNAVAILABLE");
    throw error;
  }
  return { request_id: requestId, claimed: count.claimed, processed: count.processed, failed: count.claimed - count.processed, truncated: count.truncated };
}

/** The next pass: at the next known expiry, or after `intervalMs`, whichever is sooner. */
async function schedule(state: Expiry): Promise<void> {
  if (!state.running) return;
  const { clock, intervalMs, log } = state;
  let wait = intervalMs;
  try {
    const next = await state.store.nextExpiry();
    if (next !== undefined) wait = Math.min(intervalMs, Math.max(0, next - clock.now()));
  } catch (error) {
    log("the checkpoint store could not say when the next checkpoint expires", error);
  }
  if (!state.running) return;
  state.timer = clock.setTimeout(() => {
    state.current = runPass(state)
      .catch((error: unknown) => log("an expiry pass failed", error))
      .then(() => schedule(state));
  }, wait);
}
