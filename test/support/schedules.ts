/** A one-shot schedule record due at `dueMs`, as the store holds it, for the scheduling suites and the bench. */
import { randomBytes } from "node:crypto";
import type { ScheduleRecord } from "../../runtime/scheduling/index.js";

export function scheduleRecord(dueMs: number, more: Partial<ScheduleRecord> = {}): ScheduleRecord {
  const stamp = new Date().toISOString();
  return {
    schedule_id: `sch-${randomBytes(8).toString("hex")}`,
    target_agent: "travel-agent",
    instruction: "send the digest",
    input: { destination: "Kyoto" },
    run_at: new Date(dueMs).toISOString(),
    recurring: false,
    next_run_at: new Date(dueMs).toISOString(),
    fire_count: 0,
    created_at: stamp,
    updated_at: stamp,
    ...more,
  };
}

/** The same as a cron schedule (no `run_at`). */
export function cronRecord(dueMs: number, more: Partial<ScheduleRecord> = {}): ScheduleRecord {
  const { run_at: _, ...record } = scheduleRecord(dueMs, { cron_expr: "*/5 * * * *", recurring: true, ...more });
  return record;
}
