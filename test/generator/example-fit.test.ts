/**
 * Whether an example fits its field is decided as the running component's validator decides it: the
 * checker's shortcut for scalar fields (which spares loading ajv) must agree with ajv on every value.
 */
import { Ajv } from "ajv";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { exampleProblem } from "../../runtime/manifest/examples.js";
import { valueSchema, type ValueSpec } from "../../runtime/spec/index.js";

const FIELDS: readonly ValueSpec[] = [
  { type: "string" },
  { type: "string", maxLength: 3 },
  { type: "string", enum: ["a", "b"] },
  { type: "integer", enum: [1, 3] },
  { type: "string", enum: ["a", 3] as never },
  { type: "number" },
  { type: "integer" },
  { type: "boolean" },
  { type: "any" },
];
const VALUES: readonly unknown[] = [
  "",
  "abc",
  "abcd",
  "😀😀😀",
  "a",
  0,
  -1.5,
  3,
  2 ** 60,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  null,
  [],
  {},
  [1],
  { k: 1 },
];

test("an example fits a scalar field exactly when ajv, as the component validates, accepts it", () => {
  const ajv = new Ajv({ allErrors: false, strict: false });
  for (const field of FIELDS) {
    const validate = ajv.compile(valueSchema(field, "draft-07"));
    for (const value of VALUES) {
      const fits = exampleProblem(field, value) === undefined;
      assert.is(fits, validate(value), `${JSON.stringify(field)} with ${String(JSON.stringify(value))}`);
    }
  }
});

test("a misfit is still worded from ajv's error", () => {
  assert.is(exampleProblem({ type: "number" }, "north"), "must be a number");
  assert.is(exampleProblem({ type: "string", maxLength: 3 }, "abcd"), "must NOT have more than 3 characters");
});

test.run();
