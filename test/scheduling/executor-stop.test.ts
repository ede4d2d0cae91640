/**
 * The executor's dispatch limit under stop and redeployment, on the embedded store: dispatches in
 * flight and tasks leased ahead (waiting for a place) are handed back to the queue when the grace
 * period ends, nothing is lost and stop does not hang; an agent that moved to another port is found
 * again on the retry after a failed dispatch.
 */
import { randomBytes } from "node:crypto";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { defineAgent, type ComponentSpec } from "../../runtime/codegen/v1/index.js";
import { createRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createScheduledExecutor, SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_TASK_TYPE, type ScheduledTaskInput } from "../../runtime/scheduling/index.js";
import { createStore, type Store } from "../../runtime/store/index.js";
import { createTaskBackend, type TaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { createManualClock } from "../support/clock.js";
import { eventually, within } from "../support/wait.js";

const spec: ComponentSpec = {
  kind: "agent",
  name: "slow-agent",
  description: "answers scheduled runs slowly",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [], orchestration: { custom: false, workflows: [], endpoints: [] }, tasks: [], scheduled: true },
};
const log = createLogger({ component: "scheduled-executor", env: {}, write: () => undefined });

function setup(): { store: Store; registry: Registry; backend: TaskBackend } {
  const store = createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `s${randomBytes(4).toString("hex")}` }, log: () => undefined });
  return { store, registry: createRegistry({ store }), backend: createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE }) };
}

async function enqueue(backend: TaskBackend, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const schedule_id = `sch-${randomBytes(8).toString("hex")}`;
    const input: ScheduledTaskInput = { schedule_id, target_agent: "slow-agent", instruction: "wait", input: {}, due_at: new Date().toISOString() };
    const task = await backend.create({ task_id: `${schedule_id}:1`, type: SCHEDULED_TASK_TYPE, input, timeout_ms: 60_000 });
    ids.push(task.task_id);
  }
  return ids;
}

const test = suite("scheduled executor: stop and redeployment");

test("stop hands back the dispatch in flight and the tasks waiting for a place; nothing is lost and stop does not hang", async () => {
  const { store, registry, backend } = setup();
  let started = 0;
  const agent = await defineAgent<{}, {}>(spec, {}).serve({
    port: 0,
    registry,
    handleSignals: false,
    log: () => undefined,
    handlers: {},
    // Runs until the executor's call is aborted: nothing else ends it.
    scheduled: async (_request, { signal }) => {
      started += 1;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return "late";
    },
  });
  // One place: one run in flight, one more leased ahead and waiting for the place, the rest queued.
  // The executor's clock (its pool's grace period) is moved by hand.
  const clock = createManualClock();
  const executor = createScheduledExecutor({ store, registry, workerCount: 1, maxRetries: 0, log, clock });
  const ids = await enqueue(backend, 4);
  await executor.start();
  await eventually("the first run to reach the agent", () => started === 1);
  let stopped = false;
  const stopping = executor.stop(100).then(() => void (stopped = true));
  // The pool's tick and the grace period's timer.
  await eventually("stop waiting for the grace period", () => clock.pending() === 2);
  await clock.advance(99);
  assert.is(stopped, false, "the dispatch in flight gets the whole grace period");
  await clock.advance(1);
  await within("stop, once the grace period is over (the agent's run never ends by itself)", stopping);
  const tasks = await Promise.all(ids.map((id) => backend.get(id)));
  assert.equal(
    tasks.map((task) => task?.status),
    ["queued", "queued", "queued", "queued"],
    "the run in flight, the one waiting for its place and the two never taken are all queued again",
  );
  assert.is(await backend.depth(), 4);
  assert.is(started, 1, "the task waiting for its place was never dispatched");
  await agent.close();
  await backend.close();
  await store.close();
});

test("an agent that moved to another port is looked up again on the retry after a failed dispatch", async () => {
  const { store, registry, backend } = setup();
  const runs: string[] = [];
  const serve = (answer: string) =>
    defineAgent<{}, {}>(spec, {}).serve({
      port: 0,
      registry,
      handleSignals: false,
      log: () => undefined,
      handlers: {},
      scheduled: ({ task_id }) => {
        runs.push(`${answer} ${task_id}`);
        return answer;
      },
    });
  const first = await serve("first");
  const executor = createScheduledExecutor({ store, registry, workerCount: 2, maxRetries: 2, retryBaseDelayMs: 50, retryMaxDelayMs: 50, log });
  await executor.start();
  const [one] = await enqueue(backend, 1);
  await eventually("the first run", async () => (await backend.get(one!))?.status === "completed");
  // Redeployed: the old replica is gone (its registration with it), a new one listens elsewhere.
  await first.close();
  const second = await serve("second");
  const [two] = await enqueue(backend, 1);
  await eventually("the run after the move", async () => (await backend.get(two!))?.status === "completed");
  assert.equal(runs, [`first ${one}`, `second ${two}`]);
  assert.is((await executor.deadLetters.list()).length, 0);
  await executor.stop();
  await second.close();
  await backend.close();
  await store.close();
});

test.run();
