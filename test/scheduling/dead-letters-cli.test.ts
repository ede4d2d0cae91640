/**
 * `manifold dead-letters` without Redis: the dead letters live in the embedded store of the
 * scheduler's process, so the command (a real child process) asks a real scheduler over HTTP
 * (`--url`) to list and replay them; with nothing answering it says what to do in one line and
 * exits 3, with no stack.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createDeadLetters, serveScheduler, type DeadLetter } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";

const root = new URL("../..", import.meta.url).pathname;

/** The environment without any Redis setting: the command must take the no-Redis path. */
const noRedis = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "REDIS_URL" && !name.startsWith("MANIFOLD_REDIS_")));

function manifold(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, join(root, "generator/bin.ts"), ...args], { cwd: root, env: noRedis });
    let out = "";
    let err = "";
    child.stdout.on("data", (part: Buffer) => (out += part.toString("utf8")));
    child.stderr.on("data", (part: Buffer) => (err += part.toString("utf8")));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const letter = (taskId: string): DeadLetter => ({
  task: { task_id: taskId, type: "scheduled", input: { schedule_id: "sch-1", instruction: "brief" }, created_at: new Date().toISOString(), deliveries: 3 },
  reason: "max_retries_exhausted",
  failed_at: new Date().toISOString(),
  attempts: 3,
  last_error: { code: "UNAVAILABLE", message: "agent down" },
});

test("nothing reachable: one line saying what to do, exit 3, no stack", async () => {
  const r = await manifold(["dead-letters", "--url", `http://127.0.0.1:${await closedPort()}`]);
  assert.is(r.code, 3, r.err);
  assert.is(r.out, "");
  assert.is(r.err.trim().split("\n").length, 1, r.err);
  assert.match(r.err, /no Redis configured and no scheduler answered at http:\/\/127\.0\.0\.1:\d+: set REDIS_URL/);
  assert.not.match(r.err, /\s+at .+:\d+:\d+|Error:/);
});

test("a scheduler on the embedded store: its dead letters listed, one replayed, a second replay finds none", async () => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: "dead-letters-cli" }, log: () => undefined });
  const scheduler = await serveScheduler({
    port: 0,
    host: "127.0.0.1",
    store,
    registry: false,
    executor: false,
    handleSignals: false,
    log: () => undefined,
    env: {},
  });
  const letters = createDeadLetters(store);
  try {
    await letters.push(letter("sch-1:1700000000"));
    await letters.push(letter("sch-1:1700000060"));
    const listed = await manifold(["dead-letters", "--url", scheduler.url]);
    assert.is(listed.code, 0, listed.err);
    assert.equal(
      listed.out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).task.task_id),
      ["sch-1:1700000000", "sch-1:1700000060"],
    );
    assert.match(listed.err, /2 dead letters/);

    const replayed = await manifold(["dead-letters", "--url", scheduler.url, "--replay", "sch-1:1700000000"]);
    assert.is(replayed.code, 0, replayed.err);
    assert.match(JSON.parse(replayed.out).task_id, /^sch-1:1700000000:replay-\d+$/);
    assert.is(await letters.count(), 1);

    const again = await manifold(["dead-letters", "--url", scheduler.url, "--replay", "sch-1:1700000000"]);
    assert.is(again.code, 1);
    assert.match(again.err, /no dead letter for task "sch-1:1700000000"/);
  } finally {
    await scheduler.close();
    await letters.close();
  }
});

test("--url goes with dead-letters only, and must be an http(s) address", async () => {
  assert.is((await manifold(["validate", "--url", "http://x"])).code, 2);
  const bad = await manifold(["dead-letters", "--url", "ftp://x"]);
  assert.is(bad.code, 2);
  assert.match(bad.err, /--url must be the scheduler's http/);
});

test.run();
