/**
 * A component stopped while it starts: /health answers as soon as the port is open, before the
 * extensions have started, and a kubelet may send SIGTERM then. The component must wait for its start
 * and drain (exit 0), not meet Node's default for SIGTERM (killed by the signal).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { withTimeout } from "./support.js";

const fixture = fileURLToPath(new URL("../fixtures/processes/slow-start-component.ts", import.meta.url));

test("SIGTERM after /health answers but before the extensions have started: the start finishes, then the component drains and exits 0", async () => {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, fixture], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, REDIS_URL: "" } });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  try {
    const line = await withTimeout(
      new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve)),
      60_000,
      "the extension's start",
    );
    const { url } = JSON.parse(line) as { url: string };
    assert.is((await fetch(`${url}/health`)).status, 200, "/health answers while the start is under way");
    child.kill("SIGTERM");
    // Only now may the start finish: without a handler in place, the signal has already killed the process.
    child.stdin!.end("go\n");
    const [code, signal] = await withTimeout(exited, 30_000, "the component's exit");
    assert.equal({ code, signal }, { code: 0, signal: null }, stderr);
    assert.match(stderr, /slow-start shutting down on SIGTERM/);
    assert.match(stderr, /slow-start stopped/);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

test.run();
