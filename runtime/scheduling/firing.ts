/**
 * The firing loop of a scheduler replica. It sleeps until the earliest due time (the tick is only
 * the longest sleep), then fires what is due: each occurrence becomes a task with the deterministic
 * id `<schedule_id>:<fire_unix_seconds>` on the `scheduled-executor` queue (a second replica's create
 * of the same id is refused, so it is a no-op), then the schedule advances with a compare-and-set on
 * its due time (one-shot: deleted; cron: re-indexed at its next time). Any number of replicas can
 * run this loop; each occurrence fires once.
 *
 * A replica that dies between the two steps leaves the schedule due: the next pass (of any replica)
 * finds the task already there and advances. A scheduler down across due times fires each overdue
 * schedule once when it comes back, then moves a cron schedule to its next time after now: missed
 * occurrences are not replayed one by one (catch-up policy: fire once).
 */
import { toManifoldError } from "../errors/index.js";
import type { TaskBackend } from "../tasks/index.js";
import { getTelemetry, type Logger } from "../telemetry/index.js";
import type { DueSchedule, ScheduleRecord, ScheduleStore } from "./store/index.js";
import { nextCronMs } from "./timing.js";
import { SCHEDULED_TASK_TYPE, type ScheduledTaskInput } from "./wire.js";

export interface FiringOptions {
  readonly schedules: ScheduleStore;
  /** The task backend of the `scheduled-executor` queue. */
  readonly backend: TaskBackend;
  /** Longest sleep between passes. @defaultValue 5000 */
  readonly tickMs?: number;
  /** Most schedules fired per pass (another pass follows at once when it was full). @defaultValue 500 */
  readonly batch?: number;
  /** Fires of one pass in flight at once. @defaultValue 64 */
  readonly concurrency?: number;
  /** Timeout of each executor task: the dispatch timeout times the attempts, plus the waits. */
  readonly taskTimeoutMs: number;
  readonly log: Logger;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface Firing {
  start(): void;
  /** Stops the loop after the pass in progress. */
  stop(): Promise<void>;
  /** Wakes the loop now: a schedule was created or moved and may be due sooner than the sleep. */
  wake(): void;
  /** One pass, for tests: fires what is due now; resolves with how many tasks this replica created. */
  pass(): Promise<number>;
}

export function createFiring({ schedules, backend, tickMs = 5000, batch = 500, concurrency = 64, taskTimeoutMs, log, now = Date.now }: FiringOptions): Firing {
  let running = false;
  let loop: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let sleeping: (() => void) | undefined;

  /** The occurrence as a task; false when another replica (or an earlier pass) already created it. */
  const enqueue = async (record: ScheduleRecord, due: DueSchedule): Promise<boolean> => {
    const telemetry = getTelemetry();
    const span = telemetry.startSpan("scheduler.fire", { attributes: { "manifold.schedule_id": record.schedule_id, "manifold.target": record.target_agent } });
    try {
      // The tick's span is stamped on the task: the executor's span links to it.
      const ids = span === undefined ? undefined : span.run(() => telemetry.currentIds());
      const input: ScheduledTaskInput = {
        schedule_id: record.schedule_id,
        target_agent: record.target_agent,
        instruction: record.instruction,
        input: record.input,
        due_at: new Date(due.due_ms).toISOString(),
      };
      await backend.create({
        task_id: `${record.schedule_id}:${Math.floor(due.due_ms / 1000)}`,
        type: SCHEDULED_TASK_TYPE,
        input,
        timeout_ms: taskTimeoutMs,
        ...(ids === undefined ? {} : { trace: { traceparent: `00-${ids.traceId}-${ids.spanId}-01` } }),
      });
      span?.end();
      return true;
    } catch (error) {
      const failure = toManifoldError(error);
      span?.end(failure.code);
      if (failure.code === "TASK_EXISTS") return false;
      throw error;
    }
  };

  const fire = async (due: DueSchedule): Promise<boolean> => {
    const record = await schedules.get(due.schedule_id);
    // Cancelled, or moved by an update since the index was read: nothing to fire at this time.
    if (record === undefined || Date.parse(record.next_run_at) !== due.due_ms) return false;
    const created = await enqueue(record, due);
    const firedAt = new Date(now()).toISOString();
    const next = record.recurring ? nextCronMs(record.cron_expr!, record.timezone, Math.max(now(), due.due_ms)) : null;
    await schedules.advance(record, due.due_ms, next, firedAt);
    return created;
  };

  const pass = async (): Promise<number> => {
    let created = 0;
    for (;;) {
      const due = await schedules.due(now(), batch);
      for (let i = 0; i < due.length; i += concurrency) {
        const results = await Promise.allSettled(due.slice(i, i + concurrency).map(fire));
        for (const result of results) {
          if (result.status === "fulfilled") created += result.value ? 1 : 0;
          else log.warn("a schedule could not be fired; it stays due and is tried again", { error: result.reason });
        }
      }
      if (due.length < batch) return created;
    }
  };

  const sleep = async (): Promise<void> => {
    let wait = tickMs;
    try {
      const next = await schedules.nextDue();
      if (next !== undefined) wait = Math.max(0, Math.min(tickMs, next - now()));
    } catch (error) {
      log.warn("the schedule store could not be read; trying again after the tick", { error });
    }
    await new Promise<void>((resolve) => {
      sleeping = resolve;
      timer = setTimeout(resolve, wait);
    });
    sleeping = undefined;
  };

  const run = async (): Promise<void> => {
    while (running) {
      try {
        await pass();
      } catch (error) {
        log.warn("a firing pass failed; the next one retries what is still due", { error });
      }
      if (running) await sleep();
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      sleeping?.();
      await loop;
    },
    wake() {
      clearTimeout(timer);
      sleeping?.();
    },
    pass,
  };
}
