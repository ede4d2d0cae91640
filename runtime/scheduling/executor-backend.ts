/**
 * The executor's view of its task queue: the worker pool's backend with the spec's consume and ack
 * metrics, and acknowledgements that outlast a short store outage. The pool batches its outcome
 * writes (`finishMany`) and, when one fails, leaves the tasks to lapse and be redelivered: for the
 * executor that is a second POST of a run the agent has already done (a Redis restart delivered 20 of
 * 500 twice). Here a failed write is counted (`ack_errors_total`) and tried again, within half the
 * lease, while the pool keeps the lease alive, so a run done during a restart is acknowledged once
 * the store is back instead of delivered again.
 */
import type { TaskBackend } from "../tasks/index.js";
import { ATTR, getTelemetry, METRIC } from "../telemetry/index.js";
import { type Clock, sleepOn } from "../util/index.js";
import { MODULE } from "./executor-targets.js";

export interface CountedBackendOptions {
  /** The lease the pool holds: acknowledgements are retried for at most half of it. */
  readonly leaseMs: number;
  readonly clock: Clock;
}

/** First pause between acknowledgement attempts, doubled up to the cap. */
const ACK_RETRY_BASE_MS = 100;
const ACK_RETRY_CAP_MS = 2_000;

function consumeError(errorType: string): void {
  getTelemetry().metrics.counter(METRIC.EXECUTOR_CONSUME_ERRORS, 1, { ...MODULE, [ATTR.ERROR_TYPE]: errorType });
}

/** Writes the outcomes, trying again after a failure until half the lease has passed; the last failure is thrown. */
async function finishWithRetries(backend: TaskBackend, outcomes: Parameters<TaskBackend["finishMany"]>[0], { leaseMs, clock }: CountedBackendOptions) {
  const { metrics } = getTelemetry();
  const giveUpAt = clock.now() + leaseMs / 2;
  let pause = ACK_RETRY_BASE_MS;
  for (;;) {
    try {
      const results = await backend.finishMany(outcomes);
      // A lost lease: another executor has the task now (it lapsed), so this ack did not land.
      const lost = results.filter((r) => r === "lost").length;
      if (lost > 0) metrics.counter(METRIC.EXECUTOR_ACK_ERRORS, lost, MODULE);
      return results;
    } catch (error) {
      metrics.counter(METRIC.EXECUTOR_ACK_ERRORS, outcomes.length, MODULE);
      if (clock.now() + pause >= giveUpAt) throw error;
      await sleepOn(clock, pause, undefined, { hold: true });
      pause = Math.min(pause * 2, ACK_RETRY_CAP_MS);
    }
  }
}

/** The backend as the executor's pool sees it: dequeues and acks counted, acks retried, every other call the backend's own. */
export function countedBackend(backend: TaskBackend, options: CountedBackendOptions): TaskBackend {
  return {
    // Both backends are object literals (createTaskBackend overrides `close` the same way).
    ...backend,
    dequeue: async (dequeue) => {
      try {
        return await backend.dequeue(dequeue);
      } catch (error) {
        // A stop ends a blocked dequeue on purpose: not an error of the queue.
        if (dequeue.signal?.aborted !== true) consumeError("dequeue_failed");
        throw error;
      }
    },
    extend: async (leases, leaseMs) => {
      try {
        return await backend.extend(leases, leaseMs);
      } catch (error) {
        consumeError("lease_extend_failed");
        throw error;
      }
    },
    finishMany: (outcomes) => (outcomes.length === 0 ? backend.finishMany(outcomes) : finishWithRetries(backend, outcomes, options)),
  };
}
