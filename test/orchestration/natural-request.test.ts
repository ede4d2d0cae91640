/**
 * The natural route's body check on its own: `request` a non-empty string of at most 8000
 * characters, `ai_synthesis` boolean when given, nothing else; every problem with its pointer.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MAX_NATURAL_REQUEST, naturalRequestOf } from "../../runtime/orchestration/extension.js";

const problems = (body: Record<string, unknown>): unknown => {
  try {
    naturalRequestOf(body);
  } catch (error) {
    return (error as { code: string; details: { pointer: string; message: string }[] }).details.map((d) => `${d.pointer} ${d.message}`);
  }
  return "accepted";
};

test("a request with or without ai_synthesis is taken as it is", () => {
  assert.equal(naturalRequestOf({ request: "weather in Kyoto" }), { request: "weather in Kyoto", synthesis: undefined });
  assert.equal(naturalRequestOf({ request: "x", ai_synthesis: false }), { request: "x", synthesis: false });
  assert.is(problems({ request: "x".repeat(MAX_NATURAL_REQUEST) }), "accepted");
});

test("every problem is named with its pointer", () => {
  assert.equal(problems({}), ["/request is required: a non-empty string"]);
  assert.equal(problems({ request: "  " }), ["/request is required: a non-empty string"]);
  assert.equal(problems({ request: "x".repeat(MAX_NATURAL_REQUEST + 1) }), [`/request must be at most ${MAX_NATURAL_REQUEST} characters`]);
  assert.equal(problems({ request: 3, ai_synthesis: "yes", "a/b": 1 }), [
    "/request is required: a non-empty string",
    "/ai_synthesis must be boolean",
    "/a~1b is not an allowed property",
  ]);
});

test.run();
