/** A model's JSON answer, read one way by every prompt that asks for JSON: a Markdown fence around it is dropped. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseJsonAnswer, unfenceAnswer } from "../../runtime/llm/index.js";

test("a fenced answer is read as the JSON inside: ```json, a bare ```, any case, either end missing", () => {
  for (const text of ['```json\n{"a":1}\n```', '```\n{"a":1}\n```  ', '  ```JSON {"a":1}```', '```json\n{"a":1}', '{"a":1}\n```', ' {"a":1} ']) {
    assert.equal(parseJsonAnswer(text), { a: 1 }, JSON.stringify(text));
  }
  assert.equal(parseJsonAnswer('{"a":"```"}'), { a: "```" }, "a fence inside a string is part of the value");
});

test("an answer that is not JSON is undefined (every JSON value, null included, is read as itself)", () => {
  for (const text of ["", "```", "not json", '```json\n{"a":1}\n```\nHope this helps!', "```javascript\n{}\n```", "{"]) {
    assert.is(parseJsonAnswer(text), undefined, JSON.stringify(text));
  }
  assert.equal([parseJsonAnswer("null"), parseJsonAnswer("[1]"), parseJsonAnswer('"x"')], [null, [1], "x"]);
});

test("unfenceAnswer gives the text JSON.parse sees, so a caller can quote the parser's own reason", () => {
  assert.is(unfenceAnswer('```json\n{"steps": [}\n```'), '{"steps": [}');
  assert.is(unfenceAnswer(`${" ".repeat(100_000)}x`), "x");
});

test.run();
