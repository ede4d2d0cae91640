/** The shared helpers every runtime folder leans on: one wording for a bad integer option or flag, one thenable test. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { durationFromEnv } from "../../runtime/spec/index.js";
import { checkInteger, envFlag, integerFromEnv, isThenable } from "../../runtime/util/index.js";

test("checkInteger returns a value in range, inclusive at both ends", () => {
  assert.is(checkInteger("n", 1, { min: 1, max: 3 }), 1);
  assert.is(checkInteger("n", 3, { min: 1, max: 3 }), 3);
  assert.is(checkInteger("n", 0, { min: 0 }), 0);
  assert.is(checkInteger("n", Number.MAX_SAFE_INTEGER, { min: 0 }), Number.MAX_SAFE_INTEGER);
});

test("checkInteger refuses with a RangeError naming the option, the range and the value", () => {
  const cases: [unknown, { min: number; max?: number }, string][] = [
    [0, { min: 1 }, "ttlMs must be an integer of at least 1, not 0"],
    [1.5, { min: 1 }, "ttlMs must be an integer of at least 1, not 1.5"],
    [Number.NaN, { min: 1, max: 10 }, "ttlMs must be an integer from 1 to 10, not NaN"],
    [11, { min: 1, max: 10 }, "ttlMs must be an integer from 1 to 10, not 11"],
    [Number.MAX_SAFE_INTEGER + 1, { min: 0 }, `ttlMs must be an integer of at least 0, not ${Number.MAX_SAFE_INTEGER + 1}`],
    ["5", { min: 1 }, 'ttlMs must be an integer of at least 1, not "5"'],
  ];
  for (const [value, range, message] of cases) {
    try {
      checkInteger("ttlMs", value, range);
      assert.unreachable(String(value));
    } catch (error) {
      assert.instance(error, RangeError);
      assert.is((error as Error).message, message);
    }
  }
});

test("integerFromEnv and durationFromEnv: unset or blank is the fallback; a set value must be valid, named in the error as written", () => {
  const range = { min: 1, max: 100 };
  assert.is(integerFromEnv({}, "WORKERS", 5, range), 5);
  assert.is(integerFromEnv({ WORKERS: " " }, "WORKERS", 5, range), 5);
  assert.is(integerFromEnv({ WORKERS: " 12 " }, "WORKERS", 5, range), 12);
  assert.throws(() => integerFromEnv({ WORKERS: "lots" }, "WORKERS", 5, range), /^WORKERS must be an integer from 1 to 100, not "lots"$/);
  assert.throws(() => integerFromEnv({ WORKERS: "0" }, "WORKERS", 5, range), /^WORKERS must be an integer from 1 to 100, not 0$/);
  assert.throws(() => integerFromEnv({ WORKERS: "1.5" }, "WORKERS", 5, range), /not "1\.5"$/);
  assert.is(durationFromEnv({}, "TICK", 5000), 5000);
  assert.is(durationFromEnv({ TICK: "" }, "TICK", 5000), 5000);
  assert.is(durationFromEnv({ TICK: "2m" }, "TICK", 5000), 120_000);
  assert.throws(() => durationFromEnv({ TICK: "5 s" }, "TICK", 5000), /^TICK must be a duration such as 30s, 5m or 72h, not "5 s"$/);
});

test("envFlag: unset or blank is undefined; true/1 and false/0 in any case, trimmed; anything else is refused naming the variable and the value", () => {
  const read = (value: string | undefined) => envFlag({ F: value }, "F");
  assert.equal([undefined, "", "  "].map(read), [undefined, undefined, undefined]);
  assert.equal(["true", " TRUE ", "1", "True"].map(read), [true, true, true, true]);
  assert.equal(["false", "False ", "0"].map(read), [false, false, false]);
  assert.throws(
    () => read("yes"),
    (error: unknown) => error instanceof RangeError && error.message === 'F must be true or false, not "yes"',
  );
  const long = "x".repeat(200);
  assert.throws(
    () => read(long),
    (error: unknown) => error instanceof Error && error.message === `F must be true or false, not "${"x".repeat(80)}…"`,
  );
});

test("isThenable: objects with a then method, and nothing else", () => {
  assert.ok(isThenable(Promise.resolve(1)));
  // biome-ignore lint/suspicious/noThenProperty: a hand-made thenable is what is under test
  const thenable = { then: () => undefined };
  assert.ok(isThenable(thenable));
  // biome-ignore lint/suspicious/noThenProperty: so is an object whose then is not a method
  const notThenable = { then: 1 };
  for (const value of [undefined, null, 0, "then", {}, notThenable]) assert.not.ok(isThenable(value), String(value));
});

test.run();
