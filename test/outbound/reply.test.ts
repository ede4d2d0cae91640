/** The caller's reading of a reply, on its own: a 2xx body, an error envelope, and what is neither. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { parseReply } from "../../runtime/outbound/caller.js";
import type { Logger } from "../../runtime/telemetry/index.js";

const warnings: string[] = [];
const log = Object.assign(() => undefined, {
  debug: () => undefined,
  info: () => undefined,
  warn: (m: string) => void warnings.push(m),
  error: () => undefined,
}) as Logger;

const failure = (fn: () => unknown): ManifoldError => {
  try {
    fn();
  } catch (error) {
    return error as ManifoldError;
  }
  throw new Error("expected a throw");
};

test("a 2xx answers its parsed body", () => {
  assert.equal(parseReply({ ok: true, status: 200, text: '{"a":1}' }, "c (POST x)", log), { a: 1 });
});

test("an error envelope becomes its ManifoldError; 401 and 403 are logged", () => {
  const envelope = JSON.stringify({ error: { code: "NOT_FOUND", message: "no such thing" } });
  const error = failure(() => parseReply({ ok: false, status: 404, text: envelope }, "c (POST x)", log));
  assert.instance(error, ManifoldError);
  assert.is(error.code, "NOT_FOUND");
  assert.equal(warnings, []);
  failure(() => parseReply({ ok: false, status: 401, text: JSON.stringify({ error: { code: "UNAUTHORIZED", message: "no" } }) }, "c (POST x)", log));
  assert.equal(warnings, ["c (POST x): component returned status 401"]);
});

test("a body that is not JSON, or an error without an envelope, is INVALID_RESPONSE", () => {
  const notJson = failure(() => parseReply({ ok: true, status: 200, text: "<html>" }, "c (POST x)", log));
  assert.is(notJson.code, "INVALID_RESPONSE");
  assert.is(notJson.message, "c (POST x) answered 200 with a body that is not JSON");
  const bare = failure(() => parseReply({ ok: false, status: 500, text: '{"oops":true}' }, "c (POST x)", log));
  assert.is(bare.code, "INVALID_RESPONSE");
  assert.is(bare.message, "c (POST x) answered 500 without an error envelope");
});

test.run();
