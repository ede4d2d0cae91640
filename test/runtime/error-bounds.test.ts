/**
 * An error body is bounded whatever the request: a body with hundreds of violations, huge keys and
 * huge values answers 400 with at most 20 details (each cut to 300 characters) and the count of
 * those left out, over real HTTP.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { tool, toolSpec } from "../support/specs.js";

const spec = toolSpec(
  tool("strict-tool", { description: "takes two integers", capabilities: { add: { description: "adds", input: { a: "integer", b: "integer" } } } }),
);

test("400 with 20 details at most, each part cut, and details_omitted for the rest; the body stays small", async () => {
  const running = await serveComponent(spec, {
    port: 0,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    handlers: { add: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }) } as never,
  });
  try {
    const body: Record<string, unknown> = { a: "x".repeat(5_000), b: [] };
    for (let i = 0; i < 500; i += 1) body[`${"k".repeat(400)}${i}`] = "v".repeat(100);
    const text = JSON.stringify(body);
    const response = await fetch(`${running.url}/api/capabilities/add`, { method: "POST", headers: { "content-type": "application/json" }, body: text });
    assert.is(response.status, 400);
    const answer = await response.text();
    assert.ok(answer.length < 12_000, `error body ${answer.length} bytes for a ${text.length}-byte request`);
    const { error } = JSON.parse(answer) as { error: { code: string; details: { pointer: string; message: string }[]; details_omitted: number } };
    assert.is(error.code, "INVALID_INPUT");
    assert.is(error.details.length, 20);
    assert.ok(error.details.every((d) => d.pointer.length <= 300 && d.message.length <= 300));
    assert.is(error.details.length + error.details_omitted, 502, "every violation counted: 500 unknown keys, a and b");
  } finally {
    await running.close();
  }
});

test("an envelope with few details has no details_omitted; a long message is cut", () => {
  const few = new ManifoldError("INVALID_INPUT", "m".repeat(10_000), { details: [{ pointer: "/a", message: "bad" }] }).toEnvelope().error;
  assert.equal(few.details, [{ pointer: "/a", message: "bad" }]);
  assert.not.ok("details_omitted" in few);
  assert.ok(few.message.length <= 2_000);
});

test.run();
