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
import { type Clock, type ClockTimer, holdOpen, systemClock } from "../util/index.js";
import { type AdvanceItem, checkDueLimit, type DueRecord, type ScheduleStore } from "./store/index.js";
import { nextCronMs } from "./timing.js";
import { SCHEDULED_TASK_TYPE, type ScheduledTaskInput } from "./wire.js";

export interface FiringOptions {
  readonly schedules: ScheduleStore;
  /** The task backend of the `scheduled-executor` queue. */
  readonly backend: TaskBackend;
  /** Longest sleep between passes. @defaultValue 5000 */
  readonly tickMs?: number;
  /** Most schedules fired per batch, 1–1,000 (a full batch is followed by the next one at once). @defaultValue 500 */
  readonly batch?: number;
  /** Timeout of each executor task: the dispatch timeout times the attempts, plus the waits. */
  readonly taskTimeoutMs: number;
  readonly log: Logger;
  /** What is due is due on this clock, and the loop sleeps on it. @defaultValue systemClock */
  readonly clock?: Clock;
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

/** One replica's loop: what a pass needs, and the state of its sleep. */
interface FiringState {
  readonly schedules: ScheduleStore;
  readonly backend: TaskBackend;
  readonly tickMs: number;
  readonly batch: number;
  readonly taskTimeoutMs: number;
  readonly log: Logger;
  readonly clock: Clock;
  running: boolean;
  timer: ClockTimer | undefined;
  /** Ends the current sleep early (a wake or a stop). */
  sleeping: (() => void) | undefined;
}

/** The deterministic id of one occurrence: a second replica's create of it is refused. */
export function occurrenceId(scheduleId: string, dueMs: number): string {
  return `${scheduleId}:${Math.floor(dueMs / 1000)}`;
}

/**
 * The occurrence as a task; false when another replica (or an earlier pass) already created it.
 * The record was read with its due time, so its `next_run_at` is that time, already formatted.
 */
async function enqueue(f: FiringState, { record, dueMs }: DueRecord): Promise<boolean> {
  const telemetry = getTelemetry();
  const span = telemetry.enabled
    ? telemetry.startSpan("scheduler.fire", { attributes: { "manifold.schedule_id": record.schedule_id, "manifold.target": record.target_agent } })
    : undefined;
  try {
    // The tick's span is stamped on the task: the executor's span links to it.
    const ids = span === undefined ? undefined : span.run(() => telemetry.currentIds());
    const input: ScheduledTaskInput = {
      schedule_id: record.schedule_id,
      target_agent: record.target_agent,
      instruction: record.instruction,
      input: record.input,
      due_at: record.next_run_at,
    };
    await f.backend.create({
      task_id: occurrenceId(record.schedule_id, dueMs),
      type: SCHEDULED_TASK_TYPE,
      input,
      timeout_ms: f.taskTimeoutMs,
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
}

/**
 * One batch's tasks (the task backend sends the creates of one turn together); resolves with how
 * many this replica created and the compare-and-set of each schedule it enqueued.
 */
async function enqueueBatch(f: FiringState, due: readonly DueRecord[]): Promise<{ created: number; items: AdvanceItem[] }> {
  const enqueued = await Promise.allSettled(due.map((record) => enqueue(f, record)));
  const now = f.clock.now();
  const firedAt = new Date(now).toISOString();
  const items: AdvanceItem[] = [];
  let created = 0;
  enqueued.forEach((result, i) => {
    const { record, dueMs } = due[i]!;
    // Not enqueued (the store failed): left due, so the next pass tries it again.
    if (result.status === "rejected") return f.log.warn("a schedule could not be fired; it stays due and is tried again", { error: result.reason });
    if (result.value) created += 1;
    const nextMs = record.recurring ? nextCronMs(record.cron_expr!, record.timezone, Math.max(now, dueMs)) : null;
    items.push({ schedule: record, dueMs, nextMs, firedAt });
  });
  return { created, items };
}

/**
 * Batch after batch until fewer than a full batch is due: each is read with its records in one
 * step, enqueued, and advanced in one compare-and-set call. The next read is sent right behind the
 * advance instead of after its answer: the schedule store applies one caller's calls in order (one
 * connection to Redis; the memory store at once), so it sees this batch advanced. Were it ever to
 * see some of them still due, they would only be fired again as no-ops (their tasks exist, and the
 * compare-and-set lets one advance through).
 */
async function firePass(f: FiringState): Promise<number> {
  const { schedules, batch, clock } = f;
  let created = 0;
  let due = await schedules.dueRecords(clock.now(), batch);
  for (;;) {
    const enqueued = await enqueueBatch(f, due);
    created += enqueued.created;
    const advancing = schedules.advanceMany(enqueued.items);
    const next = due.length < batch ? undefined : schedules.dueRecords(clock.now(), batch);
    // Awaited below, or dropped if this batch fails: never an unhandled rejection.
    next?.catch(() => undefined);
    const advanced = (await advancing).filter(Boolean).length;
    // A full batch of which nothing moved (the task store refusing, say) would be read again at
    // once: leave it to the next tick instead of spinning.
    if (next === undefined || advanced === 0) return created;
    due = await next;
  }
}

/** Sleeps until the earliest due time, at most the tick; a wake or a stop ends it early. */
async function sleepUntilDue(f: FiringState): Promise<void> {
  const { clock, tickMs } = f;
  let wait = tickMs;
  try {
    const next = await f.schedules.nextDue();
    if (next !== undefined) wait = Math.max(0, Math.min(tickMs, next - clock.now()));
  } catch (error) {
    f.log.warn("the schedule store could not be read; trying again after the tick", { error });
  }
  await new Promise<void>((resolve) => {
    f.sleeping = resolve;
    // The loop is the scheduler's work: its sleep holds the process open, as a plain timer did.
    f.timer = holdOpen(clock.setTimeout(resolve, wait));
  });
  f.sleeping = undefined;
}

async function runLoop(f: FiringState): Promise<void> {
  while (f.running) {
    try {
      await firePass(f);
    } catch (error) {
      f.log.warn("a firing pass failed; the next one retries what is still due", { error });
    }
    if (f.running) await sleepUntilDue(f);
  }
}

function interrupt(f: FiringState): void {
  f.clock.clearTimeout(f.timer);
  f.sleeping?.();
}

export function createFiring({ schedules, backend, tickMs = 5000, batch = 500, taskTimeoutMs, log, clock = systemClock }: FiringOptions): Firing {
  checkDueLimit(batch);
  const f: FiringState = { schedules, backend, tickMs, batch, taskTimeoutMs, log, clock, running: false, timer: undefined, sleeping: undefined };
  let loop: Promise<void> | undefined;
  return {
    start() {
      if (f.running) return;
      f.running = true;
      loop = runLoop(f);
    },
    async stop() {
      f.running = false;
      interrupt(f);
      await loop;
    },
    wake: () => interrupt(f),
    pass: () => firePass(f),
  };
}
