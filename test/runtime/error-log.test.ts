/** A handler's unexpected failure is logged once, at error level when the log can tell levels apart. */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { tool, toolSpec } from "../support/specs.js";

const spec = toolSpec(tool("fail-tool", { description: "Fails", capabilities: { boom: { description: "Throws" } } }));

type Caps = { boom: { input: Record<string, unknown>; output: Record<string, unknown> } };

async function callBoom(log: ((message: string) => void) & { error?: (message: string) => void }): Promise<number> {
  const running = await serveComponent<Caps>(spec, {
    port: 0,
    handleSignals: false,
    registry: false,
    log,
    handlers: {
      boom: () => {
        throw new Error("secret internals");
      },
    },
  });
  try {
    const response = await fetch(`${running.url}/api/capabilities/boom`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.not.match(await response.text(), /secret internals/);
    return response.status;
  } finally {
    await running.close();
  }
}

test("a logger with `error` gets the failure at error level, once, with the real message", async () => {
  const lines: [string, string][] = [];
  const log = Object.assign((message: string) => void lines.push(["info", message]), { error: (message: string) => void lines.push(["error", message]) });
  assert.is(await callBoom(log), 500);
  const errors = lines.filter(([level]) => level === "error");
  assert.is(errors.length, 1);
  assert.match(errors[0]![1], /fail-tool boom \[.+\] failed: Error: secret internals/);
  assert.not.ok(lines.some(([level, m]) => level === "info" && /secret internals/.test(m)));
});

test("a plain function still gets the failure", async () => {
  const lines: string[] = [];
  assert.is(await callBoom((message) => void lines.push(message)), 500);
  assert.is(lines.filter((m) => /secret internals/.test(m)).length, 1);
});

test.run();
