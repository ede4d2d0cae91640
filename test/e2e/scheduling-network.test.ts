/**
 * Scheduled execution end to end on real processes and a real Redis: three scheduler replicas (tool,
 * firing loop and executor each), a scheduled agent that reports every run it receives, a failing
 * agent and a plain tool. Counted at the agent: each occurrence runs exactly once across the
 * replicas, a cancelled schedule never runs, replicas killed across due times lose nothing when one
 * comes back, and failures are retried with growing delays, then dead-lettered with their reason.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createScheduleStore, type ScheduleStore } from "../../runtime/scheduling/index.js";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { scheduleRecord } from "../support/schedules.js";
import { TS_NODE_ARGS } from "../support/ts-node-args.js";
import { eventually, sleep } from "../support/wait.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

const NAMESPACE = `sched${randomBytes(3).toString("hex")}`;
let redis: RedisServer;
let store: RedisStore;
let schedules: ScheduleStore;
let replicas: Fixture[] = [];
let agent: Fixture;
let env: Record<string, string>;

const record = (target: string, dueMs: number) => scheduleRecord(dueMs, { target_agent: target, instruction: "tick", input: {} });

const runsOf = (fixture: Fixture) => fixture.events().filter((e) => e["event"] === "run") as { task_id: string; schedule_id: string; at: number }[];
const startReplica = () => startFixture("scheduling/scheduler.ts", env);

test.before(async () => {
  redis = await startRedisServer();
  env = {
    REDIS_URL: redis.url,
    MANIFOLD_REDIS_NAMESPACE: NAMESPACE,
    MANIFOLD_EXECUTOR_RETRY_BASE_DELAY: "200ms",
    MANIFOLD_EXECUTOR_RETRY_MAX_DELAY: "800ms",
    MANIFOLD_EXECUTOR_MAX_RETRIES: "3",
  };
  store = createStore({ env, log: () => undefined }) as RedisStore;
  schedules = createScheduleStore({ store, env });
  agent = await startFixture("scheduling/agent.ts", { ...env, AGENT_NAME: "clock-agent" });
  replicas = await Promise.all([startReplica(), startReplica(), startReplica()]);
});

test.after(async () => {
  killAll();
  await schedules?.close();
  await store?.close();
  await redis?.close();
});

test("three replicas, 1,000 schedules due within the same seconds: each runs exactly once", async () => {
  const base = Date.now() + 2_000;
  const batch = Array.from({ length: 1000 }, (_, i) => record("clock-agent", base + (i % 1000)));
  await Promise.all(batch.map((r) => schedules.create(r)));
  const ids = new Set(batch.map((r) => r.schedule_id));
  const mine = () => runsOf(agent).filter((run) => ids.has(run.schedule_id));
  await eventually("1,000 runs at the agent", () => mine().length >= 1000);
  await sleep(1_500); // a duplicate would arrive by now
  const runs = mine();
  assert.is(runs.length, 1000, "no duplicates");
  assert.is(new Set(runs.map((r) => r.task_id)).size, 1000);
  assert.ok(
    runs.every((r) => r.task_id === `${r.schedule_id}:${Math.floor(Date.parse(batch.find((b) => b.schedule_id === r.schedule_id)!.next_run_at) / 1000)}`),
    "task ids are <schedule_id>:<fire_unix_seconds>",
  );
  assert.is(await schedules.count(), 0);
});

test("a cancelled schedule never runs", async () => {
  const due = Date.now() + 1_500;
  const kept = Array.from({ length: 10 }, () => record("clock-agent", due));
  const cancelled = Array.from({ length: 10 }, () => record("clock-agent", due));
  await Promise.all([...kept, ...cancelled].map((r) => schedules.create(r)));
  await Promise.all(cancelled.map((r) => schedules.delete(r.schedule_id)));
  const keptIds = new Set(kept.map((r) => r.schedule_id));
  await eventually("the kept ones", () => runsOf(agent).filter((r) => keptIds.has(r.schedule_id)).length === 10);
  await sleep(1_000);
  const cancelledIds = new Set(cancelled.map((r) => r.schedule_id));
  assert.is(runsOf(agent).filter((r) => cancelledIds.has(r.schedule_id)).length, 0);
});

test("every replica killed across due times: one restarted fires each missed occurrence once", async () => {
  for (const replica of replicas) replica.child.kill("SIGKILL");
  await Promise.all(replicas.map((r) => r.exited));
  const due = Date.now() + 500;
  const missed = Array.from({ length: 50 }, () => record("clock-agent", due));
  await Promise.all(missed.map((r) => schedules.create(r)));
  await sleep(2_000); // all due, nobody firing
  const ids = new Set(missed.map((r) => r.schedule_id));
  assert.is(runsOf(agent).filter((r) => ids.has(r.schedule_id)).length, 0);
  replicas = [await startReplica()];
  await eventually("the missed runs", () => runsOf(agent).filter((r) => ids.has(r.schedule_id)).length >= 50);
  await sleep(1_000);
  assert.is(runsOf(agent).filter((r) => ids.has(r.schedule_id)).length, 50);
});

test("a failing agent is retried with growing delays, then dead-lettered; unknown and tool targets are dead-lettered", async () => {
  const failing = await startFixture("scheduling/agent.ts", { ...env, AGENT_NAME: "failing-agent", FAIL: "true" });
  await startFixture("scheduling/tool.ts", { ...env, TOOL_NAME: "plain-tool" });
  const dead = `manifold:v1:${NAMESPACE}:tasks:dead:scheduled-executor`;
  const before = await store.client.llen(dead);
  const failed = record("failing-agent", Date.now() + 300);
  await schedules.create(failed);
  await schedules.create(record("nobody-agent", Date.now() + 300));
  await schedules.create(record("plain-tool", Date.now() + 300));
  await eventually("three dead letters", async () => (await store.client.llen(dead)) >= before + 3);
  const letters = (await store.client.lrange(dead, before, -1)).map(
    (text) => JSON.parse(text) as { task: { task_id: string; input: { target_agent: string } }; reason: string; failed_at: string },
  );
  const reasonOf = Object.fromEntries(letters.map((l) => [l.task.input.target_agent, l.reason]));
  assert.equal(reasonOf, { "failing-agent": "max_retries_exhausted", "nobody-agent": "unknown_target_agent", "plain-tool": "target_not_agent" });
  assert.ok(letters.every((l) => !Number.isNaN(Date.parse(l.failed_at))));
  const attempts = runsOf(failing).filter((r) => r.schedule_id === failed.schedule_id);
  assert.is(attempts.length, 4, "the first try and 3 retries");
  const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
  assert.ok(gaps[0]! >= 150 && gaps[1]! > gaps[0]! && gaps[2]! > gaps[1]!, `gaps grow: ${gaps.join(", ")} ms`);
});

/** `manifold dead-letters [...args]` on the suite's Redis, as a user would run it. */
function cli(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bin = join(import.meta.dirname, "../../generator/bin.ts");
  const child = spawn(process.execPath, [...TS_NODE_ARGS, bin, "dead-letters", ...args], { env: { ...process.env, ...env }, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

test("manifold dead-letters lists the entries; --replay queues one again and the agent, now up, runs it once", async () => {
  const late = record("late-agent", Date.now() + 300);
  await schedules.create(late);
  const isLate = (line: string) =>
    line !== "" && (JSON.parse(line) as { task: { input: { schedule_id: string } } }).task.input.schedule_id === late.schedule_id;
  let listed = await cli();
  await eventually("the late agent's dead letter", async () => {
    listed = await cli();
    return listed.stdout.split("\n").some(isLate);
  });
  assert.is(listed.code, 0, listed.stderr);
  assert.match(listed.stderr, /\d+ dead letters?/);
  const letter = JSON.parse(listed.stdout.split("\n").find(isLate)!) as { task: { task_id: string }; reason: string };
  assert.is(letter.reason, "unknown_target_agent");
  const agentNow = await startFixture("scheduling/agent.ts", { ...env, AGENT_NAME: "late-agent" });
  const replayed = await cli("--replay", letter.task.task_id);
  assert.is(replayed.code, 0, replayed.stderr);
  const { task_id } = JSON.parse(replayed.stdout) as { task_id: string };
  assert.match(task_id, new RegExp(`^${letter.task.task_id}:replay-\\d+$`));
  await eventually("the replayed run", () => runsOf(agentNow).some((r) => r.task_id === task_id));
  const again = await cli("--replay", letter.task.task_id);
  assert.is(again.code, 1, "a letter is replayed once");
  assert.match(again.stderr, /no dead letter/);
  assert.not.ok((await cli()).stdout.split("\n").some(isLate), "taken off the list");
});

test.run();
