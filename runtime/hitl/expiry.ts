/**
 * The expiry processor: bounded passes that move checkpoints past their `expires_at` to their default
 * action (`expired_approved`, resumable, or `expired`, as rejected). The store's `expireDue` claims
 * each checkpoint for exactly one caller, so any number of replicas may run a processor. Each pass is a
 * root span `hitl.expiry_scan`; each checkpoint it handles is a `hitl.expiry_process` span linked to
 * the trace that created the checkpoint.
 */
import { randomBytes } from "node:crypto";
import { getTelemetry } from "../telemetry/index.js";
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
   * (`expired_approved`) is resumable, which is how a run continues without a human. A throw counts
   * the checkpoint as failed (a resume that failed after its claim leaves it `resumed`: the run was
   * continued, and failed like any run).
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
  readonly clock?: () => number;
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

export function createExpiryProcessor({
  store,
  onExpired,
  followUps,
  batchLimit = 100,
  maxPassMs = 30_000,
  intervalMs = 5_000,
  clock = Date.now,
  log = () => undefined,
}: ExpiryProcessorOptions): ExpiryProcessor {
  if (!Number.isSafeInteger(batchLimit) || batchLimit < 1 || batchLimit > MAX_EXPIRE_LIMIT) throw new RangeError(`batchLimit must be 1–${MAX_EXPIRE_LIMIT}`);

  const processOne = async (checkpoint: Checkpoint): Promise<boolean> => {
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
  };

  const runPass = async (): Promise<ExpiryPassResult> => {
    const requestId = `hitl-expiry-${randomBytes(8).toString("hex")}`;
    const started = clock();
    const telemetry = getTelemetry();
    const span = telemetry.enabled ? telemetry.startSpan("hitl.expiry_scan", { attributes: { request_id: requestId, batch_limit: batchLimit } }) : undefined;
    let claimed = 0;
    let processed = 0;
    let truncated = false;
    try {
      for (;;) {
        const batch = await store.expireDue(clock(), batchLimit);
        claimed += batch.length;
        for (const checkpoint of batch) if (await processOne(checkpoint)) processed += 1;
        if (batch.length < batchLimit) break;
        if (clock() - started >= maxPassMs) {
          truncated = true;
          break;
        }
      }
      if (followUps !== undefined && !truncated) {
        const owed = await followUps();
        claimed += owed.length;
        for (const checkpoint of owed) if (await processOne(checkpoint)) processed += 1;
      }
      span?.setAttributes({
        claimed_count: claimed,
        processed_count: processed,
        failed_count: claimed - processed,
        status: "ok",
        duration_ms: clock() - started,
      });
      span?.end();
    } catch (error) {
      span?.setAttributes({
        claimed_count: claimed,
        processed_count: processed,
        failed_count: claimed - processed,
        status: "error",
        duration_ms: clock() - started,
      });
      span?.end("UNAVAILABLE");
      throw error;
    }
    return { request_id: requestId, claimed, processed, failed: claimed - processed, truncated };
  };

  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();

  const schedule = async (): Promise<void> => {
    if (!running) return;
    let wait = intervalMs;
    try {
      const next = await store.nextExpiry();
      if (next !== undefined) wait = Math.min(intervalMs, Math.max(0, next - clock()));
    } catch (error) {
      log("the checkpoint store could not say when the next checkpoint expires", error);
    }
    if (!running) return;
    timer = setTimeout(() => {
      current = runPass()
        .catch((error: unknown) => log("an expiry pass failed", error))
        .then(schedule);
    }, wait);
    timer.unref();
  };

  return {
    runPass,
    start() {
      if (running) return;
      running = true;
      current = schedule();
    },
    async stop() {
      running = false;
      if (timer !== undefined) clearTimeout(timer);
      await current;
    },
  };
}
