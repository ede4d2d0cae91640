/**
 * The three timing forms: exactly one per schedule, each checked with a pointer at the field; cron
 * in its IANA zone through cron-parser.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ManifoldError } from "../../runtime/errors/index.js";
import { nextCronMs, readTiming } from "../../runtime/scheduling/index.js";

const NOW = Date.parse("2030-03-01T08:00:00Z");

function problem(body: Record<string, unknown>): { pointer: string; message: string } {
  try {
    readTiming(body, NOW);
  } catch (error) {
    const failure = error as ManifoldError;
    assert.is(failure.code, "INVALID_INPUT");
    return failure.details?.[0] as { pointer: string; message: string };
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

test("delay, run_at and cron_expr give the first fire time; only cron recurs", () => {
  assert.equal(readTiming({ delay: "90s" }, NOW), { delay: "90s", firstMs: NOW + 90_000, recurring: false });
  assert.equal(readTiming({ run_at: "2030-03-01T10:00:00+01:00" }, NOW), { run_at: "2030-03-01T10:00:00+01:00", firstMs: NOW + 3_600_000, recurring: false });
  // 09:00 on weekdays in Paris is 08:00 UTC in March (CET): the next one after 08:00 UTC on Friday 1 March is Monday 4 March.
  assert.equal(readTiming({ cron_expr: "0 9 * * 1-5", timezone: "Europe/Paris" }, NOW), {
    cron_expr: "0 9 * * 1-5",
    timezone: "Europe/Paris",
    firstMs: Date.parse("2030-03-04T08:00:00Z"),
    recurring: true,
  });
  assert.is(nextCronMs("*/15 * * * *", undefined, NOW), NOW + 15 * 60_000, "UTC by default, strictly after");
});

test("each wrong timing is INVALID_INPUT pointing at the field", () => {
  assert.equal(problem({}).pointer, "");
  assert.match(problem({}).message, /exactly one timing form/);
  assert.equal(problem({ delay: "1m", cron_expr: "* * * * *" }), { pointer: "/cron_expr", message: "has delay and cron_expr: give exactly one timing form" });
  assert.is(problem({ delay: "soon" }).pointer, "/delay");
  assert.is(problem({ delay: "-5s" }).pointer, "/delay");
  assert.match(problem({ run_at: "2020-01-01T00:00:00Z" }).message, /is in the past/);
  assert.is(problem({ run_at: "tomorrow" }).pointer, "/run_at");
  assert.is(problem({ run_at: "2030-03-02 10:00" }).pointer, "/run_at", "RFC 3339 with a zone, nothing looser");
  assert.match(problem({ cron_expr: "61 * * * *" }).message, /not a valid cron expression/);
  assert.match(problem({ cron_expr: "0 0 9 * * *" }).message, /5-field/);
  assert.is(problem({ cron_expr: "* * * * *", timezone: "Mars/Olympus" }).pointer, "/timezone");
  assert.is(problem({ delay: "5m", timezone: "UTC" }).pointer, "/timezone");
});

test.run();
