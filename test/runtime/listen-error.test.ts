/**
 * A port that is taken is a set-up mistake a newcomer meets in the first minutes: the process must say
 * which port, what to change, and print no stack, even when the user's script does not catch it.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startProcess, stopAll } from "../support/processes.js";
import { within } from "../support/wait.js";

test.after(() => stopAll());

test("a busy port: one message with the fix (PORT, port: 0, MANIFOLD_EPHEMERAL_PORTS), exit 1, no stack frames", async () => {
  const child = await startProcess({ name: "port-clash", entry: "test/fixtures/processes/port-clash.ts" });
  const exit = await within("the process to exit", child.exited);
  assert.is(exit.code, 1);
  const stderr = child.stderr();
  assert.match(stderr, /clash cannot listen on 127\.0\.0\.1:\d+: the port is in use/);
  assert.match(stderr, /PORT=<n>, `port: 0` \(a free port\), or MANIFOLD_EPHEMERAL_PORTS=true/);
  assert.not.match(stderr, /\n\s+at /, "no stack frame is printed");
  assert.not.match(stderr, /EADDRINUSE/, "the system code is translated, not shown raw");
});

test.run();
