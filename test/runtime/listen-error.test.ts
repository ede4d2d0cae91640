/**
 * A port that is taken is a set-up mistake a newcomer meets in the first minutes: the process must say
 * which port, what to change, and print no stack, even when the user's script does not catch it. So
 * are a `REDIS_URL` that is not a URL and a missing handler, for a tool and for an agent's handle.
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

// Node prints an error whose stack is one line as `[that line]`.
const MISTAKES = [
  {
    name: "a bad REDIS_URL (a tool)",
    args: [],
    env: { REDIS_URL: "notaurl" },
    line: /^\[?mistaken cannot start: REDIS_URL is not a valid URL \(expected redis:\/\/.*\)\]?$/m,
  },
  {
    name: "a bad REDIS_URL (an agent)",
    args: ["agent-redis"],
    env: { REDIS_URL: "notaurl" },
    line: /^\[?travel-agent cannot start: REDIS_URL is not a valid URL/m,
  },
  { name: "a missing handler", args: ["handler"], env: {}, line: /^\[?mistaken cannot start: handlers\.ping must be a function \(capability ping\)\]?$/m },
];

for (const mistake of MISTAKES) {
  test(`${mistake.name}: one line naming the component and what to fix, exit 1, no stack frames`, async () => {
    const child = await startProcess({ name: mistake.name, entry: "test/fixtures/processes/setup-mistake.ts", args: mistake.args, env: mistake.env });
    const exit = await within("the process to exit", child.exited);
    assert.is(exit.code, 1);
    const stderr = child.stderr();
    assert.match(stderr, mistake.line, stderr);
    assert.not.match(stderr, /\n\s+at /, "no stack frame is printed");
    assert.not.match(stderr, /runtime\/(store|util)\//, "no source line of the runtime is quoted");
  });
}

test.run();
