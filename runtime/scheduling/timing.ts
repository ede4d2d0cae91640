/**
 * The three timing forms of a schedule (exactly one per schedule): `delay` (a duration from now),
 * `run_at` (an RFC 3339 time in the future) and `cron_expr` (standard 5-field cron, evaluated by
 * `cron-parser`, in an optional IANA `timezone`, UTC by default). Each problem is INVALID_INPUT with
 * a pointer at the field.
 */
import { CronExpressionParser } from "cron-parser";
import { ManifoldError, type ErrorDetail } from "../errors/index.js";
import { parseDuration } from "../spec/index.js";

/** Farthest a one-shot schedule may be set: past this, a mistake is likelier than a plan. */
export const MAX_HORIZON_MS = 5 * 366 * 24 * 60 * 60 * 1000;
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export interface TimingFields {
  readonly delay?: string;
  readonly run_at?: string;
  readonly cron_expr?: string;
  readonly timezone?: string;
}

export interface Timing extends TimingFields {
  /** When it first fires (ms since the epoch). */
  readonly firstMs: number;
  readonly recurring: boolean;
}

const invalid = (details: ErrorDetail[]): ManifoldError =>
  new ManifoldError("INVALID_INPUT", details.length === 1 ? `${details[0]!.pointer.slice(1)} ${details[0]!.message}` : "the schedule's timing is not valid", {
    details,
  });

function checkZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The first fire time of a cron expression strictly after `afterMs`, in its zone. */
export function nextCronMs(cronExpr: string, timezone: string | undefined, afterMs: number): number {
  const interval = CronExpressionParser.parse(cronExpr, { currentDate: new Date(afterMs), tz: timezone ?? "UTC" });
  return interval.next().getTime();
}

/**
 * Reads and checks the timing of a `schedule_task` or `update_schedule` body: exactly one form, each
 * well-formed and in the future, a zone only with a cron expression.
 */
export function readTiming(body: Readonly<Record<string, unknown>>, nowMs: number): Timing {
  const forms = (["delay", "run_at", "cron_expr"] as const).filter((key) => body[key] !== undefined);
  if (forms.length !== 1) {
    const message =
      forms.length === 0
        ? "needs exactly one timing form: delay (e.g. 10s, 5m), run_at (RFC 3339) or cron_expr (5 fields)"
        : `has ${forms.join(" and ")}: give exactly one timing form`;
    throw invalid([{ pointer: forms.length === 0 ? "" : `/${forms[1]}`, message }]);
  }
  const timezone = body["timezone"];
  if (timezone !== undefined && forms[0] !== "cron_expr") throw invalid([{ pointer: "/timezone", message: "applies only to cron_expr" }]);
  if (timezone !== undefined && (typeof timezone !== "string" || !checkZone(timezone)))
    throw invalid([{ pointer: "/timezone", message: "must be an IANA time zone such as Europe/Paris" }]);

  if (forms[0] === "delay") {
    const delay = body["delay"];
    const ms = typeof delay === "string" ? parseDuration(delay) : undefined;
    if (ms === undefined || ms <= 0 || ms > MAX_HORIZON_MS)
      throw invalid([{ pointer: "/delay", message: "must be a positive duration such as 30s, 10m or 2h" }]);
    return { delay: delay as string, firstMs: nowMs + ms, recurring: false };
  }
  if (forms[0] === "run_at") {
    const runAt = body["run_at"];
    const ms = typeof runAt === "string" && RFC_3339.test(runAt) ? Date.parse(runAt) : Number.NaN;
    if (Number.isNaN(ms)) throw invalid([{ pointer: "/run_at", message: "must be an RFC 3339 time with a zone, such as 2030-01-01T09:00:00Z" }]);
    if (ms <= nowMs) throw invalid([{ pointer: "/run_at", message: `is in the past (${runAt as string}); give a future time` }]);
    if (ms - nowMs > MAX_HORIZON_MS) throw invalid([{ pointer: "/run_at", message: "is more than 5 years ahead" }]);
    return { run_at: runAt as string, firstMs: ms, recurring: false };
  }
  const cron = body["cron_expr"];
  if (typeof cron !== "string" || cron.trim().split(/\s+/).length !== 5)
    throw invalid([{ pointer: "/cron_expr", message: "must be a standard 5-field cron expression (minute hour day-of-month month day-of-week)" }]);
  let firstMs: number;
  try {
    firstMs = nextCronMs(cron.trim(), timezone as string | undefined, nowMs);
  } catch (error) {
    throw invalid([{ pointer: "/cron_expr", message: `is not a valid cron expression: ${(error as Error).message}` }]);
  }
  return { cron_expr: cron.trim(), ...(timezone === undefined ? {} : { timezone: timezone as string }), firstMs, recurring: true };
}
