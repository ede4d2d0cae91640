/**
 * Issue 32 M1: one hung agent must not stall every schedule. In one process with real HTTP and the
 * executor on a manual clock: an agent whose `scheduled` handler never answers holds only its share
 * of the dispatch places (MANIFOLD_EXECUTOR_PER_AGENT_LIMIT) while a healthy agent's 100 runs, queued
 * among the hung agent's 100, are all delivered; with two replicas of an agent of which one hangs,
 * a dispatch that times out (on the executor's clock) is retried on the other replica.
 */
import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import {
  createScheduledExecutor,
  createScheduledExtension,
  SCHEDULED_EXECUTOR_QUEUE,
  SCHEDULED_TASK_TYPE,
  type ScheduledHandler,
} from "../../runtime/scheduling/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import { createDeadLetters } from "../../runtime/scheduling/dead-letters.js";
import { createSlots, type Dispatcher, dispatch } from "../../runtime/scheduling/executor-dispatch.js";
import { createTargets } from "../../runtime/scheduling/executor-targets.js";
import { readExecutorSettings } from "../../runtime/scheduling/settings.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { createTaskBackend, type TaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { createManualClock, type ManualClock } from "../support/clock.js";
import { agent as agentManifest, agentSpec } from "../support/specs.js";

const log = createLogger({ component: "scheduled-executor", env: {}, write: () => undefined });
const test = suite("scheduled executor: per-agent share and dispatch timeout");

async function serveAgent(name: string, registry: Registry, handler: ScheduledHandler) {
  const spec = agentSpec(agentManifest(name, { description: "answers scheduled runs", capabilities: {}, more: { scheduled: true } }));
  return serveComponent(spec, {
    port: 0,
    registry,
    handleSignals: false,
    log: () => undefined,
    handlers: {},
    extensions: [createScheduledExtension({ handler })],
  });
}

/** A handler that never answers by itself: it ends only when the executor hangs up. */
function hung(counter: { started: number; open: number; max: number }): ScheduledHandler {
  return (_request, { signal }) =>
    new Promise((resolve) => {
      counter.started += 1;
      counter.open += 1;
      counter.max = Math.max(counter.max, counter.open);
      signal.addEventListener(
        "abort",
        () => {
          counter.open -= 1;
          resolve("too late");
        },
        { once: true },
      );
    });
}

async function enqueue(backend: TaskBackend, agent: string): Promise<string> {
  const schedule_id = `sch-${randomBytes(8).toString("hex")}`;
  const input = { schedule_id, target_agent: agent, instruction: "tick", input: {}, due_at: new Date().toISOString() };
  await backend.create({ task_id: `${schedule_id}:1767225600`, type: SCHEDULED_TASK_TYPE, input, timeout_ms: 3_600_000 });
  return `${schedule_id}:1767225600`;
}

/** Moves the executor's clock a second at a time (never near the dispatch timeout) until `done`, at most `steps` times. */
async function step(clock: ManualClock, done: () => boolean, steps: number): Promise<void> {
  for (let i = 0; i < steps && !done(); i += 1) {
    await clock.advance(1_000);
    await new Promise((resolve) => setTimeout(resolve, 20)); // real HTTP between the advances
  }
}

function setup(): { store: Store; registry: Registry; backend: TaskBackend } {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `f${randomBytes(4).toString("hex")}` }, log: () => undefined });
  return { store, registry: createRegistry({ store }), backend: createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE }) };
}

test("a hung agent holds only its share: the healthy agent's 100 runs, queued among the hung agent's 100, are all delivered", async () => {
  const { store, registry, backend } = setup();
  const stuck = { started: 0, open: 0, max: 0 };
  let delivered = 0;
  const hungAgent = await serveAgent("hung-agent", registry, hung(stuck));
  const healthy = await serveAgent("healthy-agent", registry, () => {
    delivered += 1;
    return "ok";
  });
  const clock = createManualClock();
  const executor = createScheduledExecutor({ store, registry, workerCount: 5, perAgentLimit: 3, maxRetries: 0, log, clock });
  try {
    for (let i = 0; i < 100; i += 1) {
      await enqueue(backend, "hung-agent");
      await enqueue(backend, "healthy-agent");
    }
    await executor.start();
    await step(clock, () => delivered >= 100, 300);
    assert.is(delivered, 100, "every healthy run delivered while the hung agent's dispatches never end");
    assert.is(stuck.max, 3, "the hung agent never held more than its share");
    assert.is(stuck.open, 3);
  } finally {
    await executor.stop(0);
    await Promise.all([hungAgent.close(), healthy.close()]);
    await backend.close();
    await store.close();
  }
});

test("two replicas, one hung: a dispatch that times out on the executor's clock is retried on the other replica", async () => {
  const { store, registry, backend } = setup();
  const stuck = { started: 0, open: 0, max: 0 };
  const ran = new Set<string>();
  const replicaA = await serveAgent("twin-agent", registry, hung(stuck));
  const replicaB = await serveAgent("twin-agent", registry, ({ task_id }) => {
    ran.add(task_id);
    return "ok";
  });
  const clock = createManualClock();
  const executor = createScheduledExecutor({
    store,
    registry,
    workerCount: 4,
    maxRetries: 2,
    retryBaseDelayMs: 1_000,
    retryMaxDelayMs: 1_000,
    dispatchTimeoutMs: 10_000,
    log,
    clock,
  });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) ids.push(await enqueue(backend, "twin-agent"));
    await executor.start();
    // Deferred copies (the agent at its share) are delivered under the run's own id.
    await step(clock, () => ran.size >= 10, 200);
    assert.equal([...ran].sort(), ids.sort(), "every run delivered by the replica that answers, under its own id");
    assert.ok(stuck.started > 0, "some first attempts went to the hung replica");
    assert.is(stuck.open, 0, "each of them was timed out and hung up");
    assert.equal(await executor.deadLetters.list(), []);
  } finally {
    await executor.stop(0);
    await Promise.all([replicaA.close(), replicaB.close()]);
    await backend.close();
    await store.close();
  }
});

test("a deferral the queue refuses (Redis down) does not lose the run: it waits for a place and is delivered", async () => {
  const { store, registry, backend } = setup();
  const ran: string[] = [];
  const agent = await serveAgent("late-agent", registry, ({ task_id }) => {
    ran.push(task_id);
    return "ok";
  });
  const clock = createManualClock();
  const slots = createSlots(2, { perAgent: 1, clock, waitMs: 1_000 });
  const d: Dispatcher = {
    settings: readExecutorSettings({ workerCount: 2, perAgentLimit: 1, maxRetries: 0 }, {}),
    caller: createCaller({ log, env: {} }),
    targets: createTargets(registry, clock),
    slots,
    deadLetters: createDeadLetters(store),
    retryWait: () => 0,
    requeue: async () => {
      throw new ManifoldError("UNAVAILABLE", "task store unavailable: Redis is not connected");
    },
    clock,
    log,
  };
  const input = { schedule_id: "sch-0123456789abcdef", target_agent: "late-agent", instruction: "tick", input: {}, due_at: new Date().toISOString() };
  const context = {
    input,
    signal: new AbortController().signal,
    taskId: "sch-0123456789abcdef:1767225600",
    type: "scheduled",
    attempt: 1,
    progress: async () => undefined,
  };
  try {
    assert.is(slots.enter("late-agent"), undefined, "another run of the agent holds its share");
    const outcome = dispatch(d, input, context);
    await clock.advance(1_000); // the wait ends; the copy is refused
    slots.leave("late-agent"); // the other run ends
    assert.is(((await outcome) as { status: string }).status, "success");
    assert.equal(ran, ["sch-0123456789abcdef:1767225600"]);
  } finally {
    await agent.close();
    await backend.close();
    await store.close();
  }
});

test.run();
