/**
 * How fast scheduling reacts, on the real clock: the speed aims the scheduling suites used to assert
 * as wall-clock bounds (the tests now drive a manual clock). Worst of a few runs:
 *
 * - the firing loop: a schedule created 150 ms before it is due, with a 60 s tick, fires this long
 *   after its due time (the loop sleeps until the due time, not the tick)
 * - the executor: stop(100) with a dispatch in flight to an agent that never answers, and one more
 *   leased ahead, returns this long after its grace period
 *
 *   npm run bench:lag       BENCH_LAG_RUNS=5
 */
import { randomBytes } from "node:crypto";
import { defineAgent, type ComponentSpec } from "../../runtime/codegen/v1/index.js";
import { createRegistry } from "../../runtime/discovery/index.js";
import { createFiring, createScheduledExecutor, createScheduleStore, SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_TASK_TYPE } from "../../runtime/scheduling/index.js";
import { createStore } from "../../runtime/store/index.js";
import { createTaskBackend } from "../../runtime/tasks/index.js";
import { createLogger } from "../../runtime/telemetry/index.js";
import { scheduleRecord } from "../../test/support/schedules.js";
import { sleep } from "../../test/support/wait.js";

const RUNS = Number(process.env["BENCH_LAG_RUNS"] ?? 5);
const log = createLogger({ component: "bench", env: {}, write: () => undefined });
const memoryStore = () => createStore({ env: { MANIFOLD_REDIS_NAMESPACE: `b${randomBytes(4).toString("hex")}` }, log: () => undefined });

async function firingLag(): Promise<number> {
  const store = memoryStore();
  const schedules = createScheduleStore({ store, env: {} });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  const firing = createFiring({ schedules, backend, taskTimeoutMs: 60_000, log, tickMs: 60_000 });
  firing.start();
  await sleep(50);
  const due = Date.now() + 150;
  await schedules.create(scheduleRecord(due));
  firing.wake();
  while ((await backend.depth()) === 0) await sleep(2);
  const ms = Date.now() - due;
  await firing.stop();
  await backend.close();
  await store.close();
  return ms;
}

const spec: ComponentSpec = {
  kind: "agent",
  name: "slow-agent",
  description: "never answers",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [], orchestration: { custom: false, workflows: [], endpoints: [] }, tasks: [], scheduled: true },
};

async function executorStop(): Promise<number> {
  const store = memoryStore();
  const registry = createRegistry({ store });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  let started = 0;
  const agent = await defineAgent<{}, {}>(spec, {}).serve({
    port: 0,
    registry,
    handleSignals: false,
    log: () => undefined,
    handlers: {},
    scheduled: async (_request, { signal }) => {
      started += 1;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return "late";
    },
  });
  const executor = createScheduledExecutor({ store, registry, workerCount: 1, maxRetries: 0, log });
  for (let i = 0; i < 3; i += 1) {
    const schedule_id = `sch-${randomBytes(8).toString("hex")}`;
    const input = { schedule_id, target_agent: "slow-agent", instruction: "wait", input: {}, due_at: new Date().toISOString() };
    await backend.create({ task_id: `${schedule_id}:1`, type: SCHEDULED_TASK_TYPE, input, timeout_ms: 60_000 });
  }
  await executor.start();
  while (started === 0) await sleep(5);
  const at = performance.now();
  await executor.stop(100);
  const ms = performance.now() - at - 100;
  await agent.close();
  await backend.close();
  await store.close();
  return ms;
}

const rows: [string, number][] = [];
for (const [name, run] of [
  ["firing: a schedule fires after its due time (tick 60 s)", firingLag],
  ["executor: stop(100) with a dispatch in flight (past the grace period)", executorStop],
] as const) {
  const values: number[] = [];
  for (let i = 0; i < RUNS; i += 1) values.push(await run());
  rows.push([name, Math.max(...values)]);
}
console.log(`worst of ${RUNS} runs, ms (node ${process.version})`);
for (const [name, ms] of rows) console.log(`${name.padEnd(72)} ${ms.toFixed(1).padStart(8)}`);
