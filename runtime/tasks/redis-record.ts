/**
 * How a task is stored on Redis: one string per task, five lines,
 *
 *   <status>|<deliveries>|<token>|<created>|<started>|<finished>
 *   <progress JSON or empty>
 *   <error JSON or empty>
 *   <result JSON or empty>
 *   <fixed JSON: {type, timeout_ms, trace?, input}>
 *
 * Times are epoch milliseconds of the Redis server's clock. JSON never contains a raw newline, so the
 * lines cannot be confused, and the Lua scripts edit the first four lines with one pattern match
 * without ever decoding the caller's JSON (Redis's cjson would round numbers to 14 digits).
 *
 * A running task's record keeps the header it had while queued (taking a task does not rewrite it):
 * its lease is a state string in the queue's running hash, `<token prefix>|<deliveries>|<started>`
 * (lua/includes/running-state.lua), which overrides status, deliveries and started. A record written
 * by the previous layout with `running` in its header (and its token there) reads as it did.
 *
 * Why not a hash: a hash stays compact (listpack) only while every value is under 64 bytes, which an
 * input or result rarely is; past that it becomes a hashtable at about twice the size. Measured with
 * MEMORY USAGE on Redis 7.0, a finished task with a 60-byte input and a 150-byte result: 872 bytes as
 * a hash of the same fields, 432 as this string (a queued one: 208 either way). It is also one bulk
 * string to return and parse instead of a dozen fields.
 */
import type { FixedPart } from "./backend-shared.js";
import type { TaskError, TaskProgress, TaskRecord, TaskStatus } from "./types.js";

const STATUSES: ReadonlySet<string> = new Set<TaskStatus>(["queued", "running", "completed", "failed", "cancelled"]);

const iso = (ms: string | undefined): string | undefined => (ms === undefined || ms === "" ? undefined : new Date(Number(ms)).toISOString());

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const EPOCH = new Date(0).toISOString();

/** A lease state, `<token prefix>|<deliveries>|<started>`, with a trailing `+` once progress was stored (lua/includes/running-state.lua). */
const STATE = /\|(\d+)\|(\d*)\+?$/;

/**
 * A stored value that does not parse (written by hand, or by another version) reads as no task.
 * `state`: the task's lease state from the running hash, if it has one (then it is running).
 */
export function decodeRecord(taskId: string, value: string, state?: string): TaskRecord | undefined {
  const lines = value.split("\n");
  if (lines.length !== 5) return undefined;
  const [header, progress, error, result, fixedJson] = lines as [string, string, string, string, string];
  const fields = header.split("|");
  let [status, deliveries, , created, started, finished] = fields;
  if (fields.length !== 6 || status === undefined || !STATUSES.has(status)) return undefined;
  if (state !== undefined) {
    const running = STATE.exec(state);
    if (running === null) return undefined;
    [, deliveries, started] = running;
    status = "running";
  }
  try {
    const fixed = JSON.parse(fixedJson) as FixedPart;
    // Built by assignment in the record's field order, not from conditional spreads: this runs once per
    // task a worker takes, and each spread of a fresh object literal cost an allocation and a slow copy.
    const record = { task_id: taskId, type: fixed.type, status: status as TaskStatus, input: fixed.input, timeout_ms: fixed.timeout_ms } as Mutable<TaskRecord>;
    if (progress !== "") record.progress = JSON.parse(progress) as TaskProgress;
    if (result !== "") record.result = JSON.parse(result) as unknown;
    if (error !== "") record.error = JSON.parse(error) as TaskError;
    record.created_at = iso(created) ?? EPOCH;
    if (started !== undefined && started !== "") record.started_at = new Date(Number(started)).toISOString();
    if (finished !== undefined && finished !== "") record.completed_at = new Date(Number(finished)).toISOString();
    record.deliveries = Number(deliveries);
    if (fixed.trace !== undefined) record.trace = fixed.trace;
    return record;
  } catch {
    return undefined;
  }
}
