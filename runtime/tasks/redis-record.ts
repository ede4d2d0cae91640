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

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const EPOCH = new Date(0).toISOString();

/**
 * A stored time (epoch ms, as text or as a script's number) in ISO form, remembering the last one per
 * kind: the tasks of one create batch share their creation time and those of one dequeue their start,
 * so a dequeue of 50 formats one date instead of a hundred. Keyed by the exact value, so the answer is
 * the one `new Date(Number(ms)).toISOString()` gives (a value that is no time still throws).
 */
export class IsoCache {
  #ms: string | number = "";
  #iso = "";
  of(ms: string | number): string {
    if (ms !== this.#ms) {
      this.#iso = new Date(Number(ms)).toISOString();
      this.#ms = ms;
    }
    return this.#iso;
  }
}
const createdIso = new IsoCache();
const startedIso = new IsoCache();
const finishedIso = new IsoCache();

/** Whether `s[from, to)` is ASCII digits only (an empty range is). */
function allDigits(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i += 1) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Where a lease state's deliveries and started fields are, `<token prefix>|<deliveries>|<started>`
 * with a trailing `+` once progress was stored when `plus` (lua/includes/running-state.lua): the
 * positions of its last two `|` and the end of started, or undefined when it is not of that form
 * (what `/\|(\d+)\|(\d*)\+?$/` matches, found without a regex or a match array).
 */
export function stateFields(state: string, plus: boolean): [bar1: number, bar2: number, end: number] | undefined {
  const end = plus && state.endsWith("+") ? state.length - 1 : state.length;
  const bar2 = state.lastIndexOf("|", end - 1);
  const bar1 = bar2 > 0 ? state.lastIndexOf("|", bar2 - 1) : -1;
  if (bar1 < 0 || bar2 - bar1 < 2 || !allDigits(state, bar1 + 1, bar2) || !allDigits(state, bar2 + 1, end)) return undefined;
  return [bar1, bar2, end];
}

/**
 * A stored value that does not parse (written by hand, or by another version) reads as no task.
 * `state`: the task's lease state from the running hash, if it has one (then it is running).
 */
export function decodeRecord(taskId: string, value: string, state?: string): TaskRecord | undefined {
  // Five lines (four newlines) and a six-field header (five "|"), found by walking, not split: this
  // runs once per task a worker takes.
  const n1 = value.indexOf("\n");
  const n2 = value.indexOf("\n", n1 + 1);
  const n3 = n2 < 0 ? -1 : value.indexOf("\n", n2 + 1);
  const n4 = n3 < 0 ? -1 : value.indexOf("\n", n3 + 1);
  if (n1 < 0 || n2 < 0 || n4 < 0 || value.indexOf("\n", n4 + 1) >= 0) return undefined;
  const b1 = value.indexOf("|");
  const b2 = value.indexOf("|", b1 + 1);
  const b3 = value.indexOf("|", b2 + 1);
  const b4 = value.indexOf("|", b3 + 1);
  const b5 = value.indexOf("|", b4 + 1);
  if (b1 < 0 || b2 < 0 || b3 < 0 || b4 < 0 || b5 < 0 || b5 > n1 || value.lastIndexOf("|", n1) !== b5) return undefined;
  let status = value.slice(0, b1);
  if (!STATUSES.has(status)) return undefined;
  let deliveries: string;
  let started: string;
  if (state === undefined) {
    deliveries = value.slice(b1 + 1, b2);
    started = value.slice(b4 + 1, b5);
  } else {
    const running = stateFields(state, true);
    if (running === undefined) return undefined;
    const [bar1, bar2, end] = running;
    deliveries = state.slice(bar1 + 1, bar2);
    started = state.slice(bar2 + 1, end);
    status = "running";
  }
  try {
    const fixed = JSON.parse(value.slice(n4 + 1)) as FixedPart;
    // Built by assignment in the record's field order, not from conditional spreads: this runs once per
    // task a worker takes, and each spread of a fresh object literal cost an allocation and a slow copy.
    const record = { task_id: taskId, type: fixed.type, status: status as TaskStatus, input: fixed.input, timeout_ms: fixed.timeout_ms } as Mutable<TaskRecord>;
    if (n2 > n1 + 1) record.progress = JSON.parse(value.slice(n1 + 1, n2)) as TaskProgress;
    if (n4 > n3 + 1) record.result = JSON.parse(value.slice(n3 + 1, n4)) as unknown;
    if (n3 > n2 + 1) record.error = JSON.parse(value.slice(n2 + 1, n3)) as TaskError;
    record.created_at = b4 > b3 + 1 ? createdIso.of(value.slice(b3 + 1, b4)) : EPOCH;
    if (started !== "") record.started_at = startedIso.of(started);
    if (n1 > b5 + 1) record.completed_at = finishedIso.of(value.slice(b5 + 1, n1));
    record.deliveries = Number(deliveries);
    if (fixed.trace !== undefined) record.trace = fixed.trace;
    return record;
  } catch {
    return undefined;
  }
}
