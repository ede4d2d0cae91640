/**
 * A component stopped while it starts: /health answers as soon as the port is open, before the
 * extensions have started, and a kubelet may send SIGTERM then. The component must wait for its start
 * and drain (exit 0), not meet Node's default for SIGTERM (killed by the signal).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startProcess, stopAll } from "../support/processes.js";

test.after(() => stopAll({ signal: "SIGKILL" }));

test("SIGTERM after /health answers but before the extensions have started: the start finishes, then the component drains and exits 0", async () => {
  const component = await startProcess({
    name: "slow-start component",
    entry: "test/fixtures/processes/slow-start-component.ts",
    env: { REDIS_URL: "" },
    ready: { line: /"url":"([^"]+)"/ },
  });
  assert.is((await fetch(`${component.url}/health`)).status, 200, "/health answers while the start is under way");
  const stopping = component.stop({ signal: "SIGTERM" });
  // Only now may the start finish: without a handler in place, the signal has already killed the process.
  component.child.kill("SIGUSR2");
  assert.equal(await stopping, { code: 0, signal: null }, component.tail());
  assert.match(component.stderr(), /slow-start shutting down on SIGTERM/);
  assert.match(component.stderr(), /slow-start stopped/);
});

test.run();
