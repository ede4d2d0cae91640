/**
 * What the executor does with the agent's answer, and with a run the agent already did:
 * - a non-retryable answer (403 APPROVAL_REQUIRED, 409 CONFLICT) is dead-lettered at once as
 *   `rejected` with its code, the handler run once; a retryable failure (500 ORCHESTRATOR_ERROR) keeps
 *   the backoff; a delivery of a run in progress elsewhere (503 UNAVAILABLE) is retried until it can run;
 * - a redelivered task (its lease lapsed: an executor died holding it) whose run the agent recorded
 *   done in the shared store is completed without a POST (`duplicate_suppressed`); one not done is
 *   delivered.
 */
import { randomBytes } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import {
  createRunClaims,
  createScheduledExecutor,
  createScheduledExtension,
  type RunClaims,
  SCHEDULED_EXECUTOR_QUEUE,
  SCHEDULED_TASK_TYPE,
} from "../../runtime/scheduling/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { startRedisServer } from "../support/redis.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";
import { eventually } from "../support/wait.js";

const SPEC = agentSpec(agentManifest("answer-agent", { description: "answers as scripted", capabilities: {}, more: { scheduled: true } }));
const quietLog = createLogger({ component: "scheduled-executor", env: {}, write: () => undefined });

const newId = () => `sch-${randomBytes(6).toString("hex")}:1767225600`;
const inputOf = (id: string, instruction = "tick") => ({
  schedule_id: id.slice(0, id.indexOf(":")),
  target_agent: "answer-agent",
  instruction,
  input: {},
  due_at: new Date().toISOString(),
});

/** The agent on `store`: its handler does what the run's instruction says; every claim the route makes is counted per key. */
async function startAgent(store: Store) {
  const runs = new Map<string, number>();
  const seen = new Map<string, string[]>();
  const shared = createRunClaims(store);
  const claims: RunClaims = {
    ...shared,
    claim: async (key, token, ttl) => {
      const state = await shared.claim(key, token, ttl);
      seen.set(key, [...(seen.get(key) ?? []), state]);
      return state;
    },
  };
  const extension = createScheduledExtension({
    claims,
    handler: async ({ task_id, instruction }) => {
      const ran = (runs.get(task_id) ?? 0) + 1;
      runs.set(task_id, ran);
      if (instruction === "refuse") throw new ManifoldError("APPROVAL_REQUIRED", "this run was not approved");
      if (instruction === "conflict") throw new ManifoldError("CONFLICT", "the thing changed");
      if (instruction === "fail-once" && ran === 1) throw new Error("scripted failure");
      return `ran ${task_id}`;
    },
  });
  const registry = createRegistry({ store });
  const server = await serveComponent(SPEC, { port: 0, registry, handleSignals: false, log: () => undefined, handlers: {}, extensions: [extension] });
  return { server, registry, runs, seen, shared };
}

test("a non-retryable answer is dead-lettered at once (rejected, its code); retryable failures and a run in progress keep being retried", async () => {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `r${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const agent = await startAgent(store);
  const executor = createScheduledExecutor({
    store,
    registry: agent.registry,
    workerCount: 4,
    maxRetries: 30,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 50,
    log: quietLog,
  });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  try {
    const [refused, conflict, flaky, busy, copy] = [newId(), newId(), newId(), newId(), newId()];
    // Another delivery holds the busy run: every delivery meanwhile finds it running.
    assert.is(await agent.shared.claim(busy, "another-delivery", 60_000), "claimed");
    for (const [id, instruction] of [
      [refused, "refuse"],
      [conflict, "conflict"],
      [flaky, "fail-once"],
      [busy, "tick"],
    ] as const) {
      await backend.create({ task_id: id, type: SCHEDULED_TASK_TYPE, input: inputOf(id, instruction), timeout_ms: 60_000 });
    }
    // A deferred copy of an occurrence on its third attempt, told to avoid the replica that failed it.
    const deferred = { ...inputOf(copy, "refuse"), attempt: 3, avoid: "http://127.0.0.1:9" };
    await backend.create({ task_id: `${copy}:defer-1767225601000`, type: SCHEDULED_TASK_TYPE, input: deferred, timeout_ms: 60_000 });
    await executor.start();
    await eventually("the three refusals dead-lettered", async () => (await executor.deadLetters.count()) >= 3);
    const letters = await executor.deadLetters.list();
    for (const [id, code] of [
      [refused, "APPROVAL_REQUIRED"],
      [conflict, "CONFLICT"],
    ] as const) {
      const letter = letters.find((l) => l.task.task_id === id);
      assert.is(letter?.reason, "rejected", JSON.stringify(letter));
      assert.is(letter?.last_error?.code, code);
      assert.is(letter?.attempts, 1);
      assert.is(agent.runs.get(id), 1, `${code}: the handler ran once, no retry`);
    }
    const copied = letters.find((l) => l.task.task_id === `${copy}:defer-1767225601000`);
    const { attempt: _attempt, avoid: _avoid, ...occurrence } = deferred;
    assert.equal(copied?.task.input, occurrence, "a replay of the letter starts the occurrence afresh: no attempt count, no replica to avoid");
    assert.is(copied?.attempts, 3, "the two POSTs of its earlier copies and its own");
    await eventually("the flaky run delivered on its retry", async () => (await backend.get(flaky))?.status === "completed");
    assert.is(agent.runs.get(flaky), 2);
    await eventually("the busy run's deliveries retried while it is in progress", () => (agent.seen.get(busy) ?? []).length >= 3);
    assert.ok((agent.seen.get(busy) ?? []).every((state) => state === "running"));
    await agent.shared.release(busy, "another-delivery");
    await eventually("the busy run delivered once freed", async () => (await backend.get(busy))?.status === "completed");
    assert.is(agent.runs.get(busy), 1);
    assert.is(await executor.deadLetters.count(), 3, "only the three refusals were dead-lettered");
  } finally {
    await executor.stop();
    await backend.close();
    await agent.server.close();
    await store.close();
  }
});

test("a redelivered task whose run the agent already did is completed without a POST; one not done is delivered", async () => {
  const redis = await startRedisServer();
  const store = createStore({ env: { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: `d${randomBytes(4).toString("hex")}` }, log: () => undefined });
  const agent = await startAgent(store);
  const executor = createScheduledExecutor({ store, registry: agent.registry, workerCount: 2, maxRetries: 0, log: quietLog });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  try {
    const [done, notDone] = [newId(), newId()];
    for (const id of [done, notDone]) await backend.create({ task_id: id, type: SCHEDULED_TASK_TYPE, input: inputOf(id), timeout_ms: 60_000 });
    // A killed executor: it leased both and never acknowledged them; the agent had answered one.
    assert.is((await backend.dequeue({ count: 2, leaseMs: 100, blockMs: 0 })).length, 2);
    assert.is(await agent.shared.claim(done, "killed-executor-delivery", 60_000), "claimed");
    await agent.shared.complete(done, "killed-executor-delivery");
    await executor.start();
    await eventually("both redelivered and completed", async () => {
      const tasks = await Promise.all([backend.get(done), backend.get(notDone)]);
      return tasks.every((t) => t?.status === "completed");
    });
    const suppressed = await backend.get(done);
    assert.is(suppressed?.deliveries, 2, "it was a redelivery");
    assert.equal(suppressed?.result, { status: "duplicate_suppressed" });
    assert.is(agent.seen.get(done), undefined, "no POST reached the agent for the run it had done");
    assert.is(agent.runs.get(done), undefined);
    assert.is((await backend.get(notDone))?.deliveries, 2);
    assert.equal(agent.seen.get(notDone), ["claimed"], "the run not done was delivered");
    assert.is(agent.runs.get(notDone), 1);
  } finally {
    await executor.stop();
    await backend.close();
    await agent.server.close();
    await store.close();
    await redis.close();
  }
});

test.run();
