/**
 * test/support/processes.ts, the one way suites start child processes: ready by a stdout line or a
 * health answer, the last lines kept, SIGTERM then SIGKILL, an early exit reported with its output,
 * and, when the suite fails, each process's command, exit and last lines printed as the suite exits.
 */
import { spawnSync } from "node:child_process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startProcess, stopAll, TAIL_LINES } from "../support/processes.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const SERVER = "test/fixtures/processes/chatty-server.ts";
const LISTENING = /"event":"listening","url":"([^"]+)"/;
const repo = new URL("../..", import.meta.url).pathname;

test.after(() => stopAll());

test("ready by a stdout line: the line's capture group is the URL, and the output is kept", async () => {
  const server = await startProcess({ name: "by line", entry: SERVER, env: { CHATTY_LINES: "3" }, ready: { line: LISTENING } });
  assert.match(server.url ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is(server.readyMatch?.[1], server.url);
  assert.is((await fetch(`${server.url}/health`)).status, 200);
  assert.ok(server.lines().some((l) => LISTENING.test(l)));
  await server.waitForOutput(/log line 3\n/, "stderr");
  assert.is(server.stderr(), "log line 1\nlog line 2\nlog line 3\n");
  assert.equal(await server.stop(), { code: 0, signal: null }, "SIGTERM: it exits 0 by itself");
});

test("ready by health on a free port: PORT is set and /health answers", async () => {
  const server = await startProcess({ name: "by health", entry: SERVER, port: "free", ready: { health: "/health" } });
  assert.ok(server.port !== undefined && server.port > 0);
  assert.is(server.url, `http://127.0.0.1:${server.port}`);
  const line = await server.waitForLine(LISTENING);
  assert.is(LISTENING.exec(line)?.[1], server.url, "it listens on the port it was given");
  await server.stop();
});

test("the tail is the last lines of stdout and stderr together, bounded", async () => {
  const server = await startProcess({ name: "chatty", entry: SERVER, env: { CHATTY_LINES: "200" }, ready: { line: LISTENING } });
  await server.waitForOutput(/log line 200\n/, "stderr");
  const tail = server.tail().split("\n");
  assert.ok(tail.length <= TAIL_LINES, `${tail.length} lines`);
  assert.ok(tail.includes("log line 200"));
  assert.not.ok(tail.includes("log line 100"), "older lines are dropped");
  assert.ok(server.stderr().startsWith("log line 1\n"), "the full text is still there for assertions");
  await server.stop();
});

test("a process that ignores SIGTERM is killed when the stop limit passes, and its exit says so", async () => {
  const server = await startProcess({ name: "stubborn", entry: SERVER, env: { IGNORE_SIGTERM: "true" }, ready: { line: LISTENING } });
  const exit = await server.stop({ limitMs: 500 });
  assert.equal(exit, { code: null, signal: "SIGKILL" });
  assert.match(server.stderr(), /ignoring SIGTERM/);
});

test("a process that exits before it is ready fails the start with how it ended and its last output", async () => {
  try {
    await startProcess({ name: "crasher", entry: SERVER, env: { CRASH_AFTER_MS: "0" }, ready: { line: /never printed/ } });
    assert.unreachable("the start should fail");
  } catch (error) {
    assert.instance(error, Error);
    assert.match((error as Error).message, /crasher exited with code 3 before/);
    assert.match((error as Error).message, /out of memory \(pretend\)/);
  }
});

function runFixtureSuite(env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...TS_NODE_ARGS, "test/fixtures/processes/failing-suite.ts"], {
    cwd: repo,
    env: { ...process.env, FORCE_COLOR: "0", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

test("when the suite fails, each process it started is reported: command, exit and last lines", () => {
  const result = runFixtureSuite();
  assert.is(result.status, 1, result.stdout + result.stderr);
  assert.match(result.stderr, /\[processes\] chatty tool: \S*node .*chatty-server\.ts/);
  assert.match(result.stderr, new RegExp(`\\[processes\\] chatty tool exited with code 0; its last ${TAIL_LINES} lines of output:`));
  assert.match(result.stderr, /^ {2}\| log line 100$/m);
  assert.not.match(result.stderr, /^ {2}\| log line 20$/m, "only the last lines");
});

test("a passing suite prints no process report", () => {
  const result = runFixtureSuite({ TRIP_PATH: "/health" });
  assert.is(result.status, 0, result.stdout + result.stderr);
  assert.not.match(result.stderr, /\[processes\]/);
});

test.run();
