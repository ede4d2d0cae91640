/**
 * The finish script's arguments (lua/finish-2.lua), built on the worker from the records its dequeues
 * returned (see leasesOf in redis-backend.ts), and the lease state a token carries.
 */
import { checkTaskId, encodeError, resultJson, UNSERIALISABLE_RESULT } from "./backend-shared.js";
import { stateFields } from "./redis-record.js";
import type { TaskOutcome } from "./types.js";

/**
 * The lease state a token carries (the token is the state + the task id, see leasesOf): what the
 * scripts compare with the running hash. A token of another form gets "-", which no state equals
 * (a state always holds two "|"), so it is refused like any wrong token.
 */
export function stateOf(token: string, taskId: string): string {
  return token.length > taskId.length && token.endsWith(taskId) ? token.slice(0, -taskId.length) : "-";
}

/**
 * The finish script's arguments for outcomes: id, lease state, status and the JSON stored (a result
 * JSON cannot carry fails the task); or, for a lease whose record `records` kept (taken from it), id,
 * lease state and the finished record's two parts (see FinishArgs). A lease state or third value equal
 * to the previous outcome's is sent empty (the script reads it as a repeat: every argument costs Redis
 * a Lua string, hashed byte by byte).
 */
export function finishArgs(prefix: string, ttlMs: number, outcomes: readonly TaskOutcome[], records?: Map<string, string>): (string | number)[] {
  const encoder = new FinishArgs(prefix, ttlMs, records);
  for (const outcome of outcomes) encoder.add(outcome);
  return encoder.args;
}

/**
 * finishArgs outcome by outcome, remembering what the previous outcome sent: the tasks of one
 * dequeue share their lease state and, mostly, their header part, which is then sent empty without
 * being built again (this runs once per finished task).
 */
class FinishArgs {
  readonly args: (string | number)[];
  readonly #records: Map<string, string> | undefined;
  #state = "";
  #third = "";
  /** When #third is a finished record's header part: the status and creation time it was built from. */
  #status = "";
  #created: string | undefined;

  constructor(prefix: string, ttlMs: number, records: Map<string, string> | undefined) {
    this.args = [prefix, ttlMs];
    this.#records = records;
  }

  add(outcome: TaskOutcome): void {
    checkTaskId(outcome.taskId);
    const token = String(outcome.token);
    const state = stateOf(token, outcome.taskId);
    const sameState = state === this.#state;
    this.args.push(outcome.taskId, sameState ? "" : state);
    this.#state = state;
    let status = "failed";
    let json: string | undefined;
    if (outcome.status !== "failed") json = resultJson(outcome.result);
    if (json === undefined) json = encodeError(outcome.status === "failed" ? outcome.error : UNSERIALISABLE_RESULT);
    else status = "completed";
    const value = this.#records?.get(token);
    if (value !== undefined) {
      this.#records!.delete(token);
      if (this.#finished(value, state, sameState, status, json)) return;
    }
    this.args.push(status === this.#third ? "" : status, json);
    this.#third = status;
    this.#created = undefined;
  }

  /**
   * A finished record from the one its lease's dequeue returned, in the two parts the finish script
   * joins with its own time: `<status>|<deliveries>||<created>|<started>|` and `\n<progress>\n<error>\n<result>\n<fixed>`
   * (deliveries and started from the lease state). The script writes it unread unless progress was
   * stored meanwhile (finish-2.lua). False, and nothing sent, for a record not in the stored form.
   */
  #finished(value: string, state: string, sameState: boolean, status: string, json: string): boolean {
    const n1 = value.indexOf("\n");
    const n2 = value.indexOf("\n", n1 + 1);
    const n3 = value.indexOf("\n", n2 + 1);
    const n4 = value.indexOf("\n", n3 + 1);
    if (n1 < 0 || n2 < 0 || n3 < 0 || n4 < 0) return false;
    // The header's fourth field, found by walking rather than by splitting the header.
    const b3 = value.indexOf("|", value.indexOf("|", value.indexOf("|") + 1) + 1);
    if (b3 < 0 || b3 > n1) return false;
    const b4 = value.indexOf("|", b3 + 1);
    const end = b4 < 0 || b4 > n1 ? n1 : b4;
    const failed = status === "failed";
    const fourth = `\n${value.slice(n1 + 1, n2)}\n${failed ? json : ""}\n${failed ? "" : json}${value.slice(n4)}`;
    const created = this.#created;
    // The previous header part, built from the same lease state, status and creation time: a repeat.
    if (sameState && created !== undefined && status === this.#status && end - b3 - 1 === created.length && value.startsWith(created, b3 + 1)) {
      this.args.push("", fourth);
      return true;
    }
    const running = stateFields(state, false);
    if (running === undefined) return false;
    const [bar1, bar2] = running;
    const ms = value.slice(b3 + 1, end);
    const third = `${status}|${state.slice(bar1 + 1, bar2)}||${ms}|${state.slice(bar2 + 1)}|`;
    this.args.push(third === this.#third ? "" : third, fourth);
    this.#third = third;
    this.#status = status;
    this.#created = ms;
    return true;
  }
}
