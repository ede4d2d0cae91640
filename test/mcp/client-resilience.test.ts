/**
 * The typed MCP client when things go wrong on the server's side: a call over its timeout (the SDK's
 * own request timer) is TIMEOUT and the session goes on; an HTTP server restarted while the session
 * was idle has forgotten it, and the next call opens a new one without failing; a stdio child that
 * dies fails the call in flight with NETWORK_ERROR and the next call spawns a new child.
 */
import { execFileSync } from "node:child_process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { closeMcpClient, createMcpClient } from "../../runtime/mcp/index.js";
import { rejection } from "../support/errors.js";
import { stopAll } from "../support/processes.js";
import { eventually } from "../support/wait.js";
import { notesSpec, NOTES_SERVER, ROOT, startNotesHttp } from "./client-support.js";

test.after(async () => {
  await stopAll();
});

/** Pids of this process's stdio notes servers (children spawned by the SDK's StdioClientTransport). */
function stdioChildren(): number[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  return out
    .split("\n")
    .filter((line) => line.includes(NOTES_SERVER) && !line.includes("--http"))
    .map((line) => Number.parseInt(line.trim(), 10));
}

test("a call over its timeout is TIMEOUT; the session still serves the next call", async () => {
  const server = await startNotesHttp();
  const client = createMcpClient(notesSpec({ url: server.url }));
  try {
    const late = await rejection(client["slow"]!({ ms: 20_000 }, { timeoutMs: 200 }));
    assert.is(late.code, "TIMEOUT");
    assert.is(late.retryable, true);
    assert.equal(await client["shout"]!({ text: "still here" }), { text: "STILL HERE" });
  } finally {
    await closeMcpClient(client);
  }
});

test("an HTTP server restarted on its port while the session was idle: the next call works on a new session", async () => {
  let server = await startNotesHttp();
  const client = createMcpClient(notesSpec({ url: server.url }));
  try {
    assert.equal(await client["addNote"]!({ title: "a", body: "b" }), { id: "n1", title: "a", count: 1 });
    await server.kill();
    server = await startNotesHttp({ port: server.port });
    // A new server process: its notes start empty, which shows the call reached it.
    assert.equal(await client["addNote"]!({ title: "c", body: "d" }), { id: "n1", title: "c", count: 1 });
  } finally {
    await closeMcpClient(client);
  }
});

test("a stdio child killed while a call waits: NETWORK_ERROR for that call, and the next call spawns a new child", async () => {
  const client = createMcpClient(notesSpec(), { cwd: ROOT, stderr: "ignore" });
  try {
    assert.equal(await client["shout"]!({ text: "one" }), { text: "ONE" });
    const [pid] = stdioChildren();
    assert.ok(pid !== undefined, "the stdio server runs as this process's child");
    const inFlight = rejection(client["slow"]!({ ms: 20_000 }));
    process.kill(pid, "SIGKILL");
    const failed = await inFlight;
    assert.is(failed.code, "NETWORK_ERROR", failed.message);
    await eventually("the killed child to be gone", () => !stdioChildren().includes(pid));
    assert.equal(await client["shout"]!({ text: "two" }), { text: "TWO" });
    const [respawned] = stdioChildren();
    assert.ok(respawned !== undefined && respawned !== pid);
  } finally {
    await closeMcpClient(client);
  }
  await eventually("the child to end once the client is closed", () => stdioChildren().length === 0);
});

test.run();
