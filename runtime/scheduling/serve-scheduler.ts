/**
 * `serveScheduler()` (and `manifold scheduler`): the scheduler tool from its shipped manifest, the
 * firing loop, and the executor, in one component. Every replica runs all three; the store makes
 * firing exactly-once and the task queue spreads dispatches over the replicas' executors.
 */
import { join } from "node:path";
import { serveComponent, type ComponentOptions, type RunningComponent } from "../component/index.js";
import { packageRoot } from "../package-root.js";
import { createRegistry, defaultRegistry, type Registry } from "../discovery/index.js";
import { durationFromEnv } from "../spec/index.js";
import { createStore, type Store } from "../store/index.js";
import { createTaskBackend, MAX_TASK_TIMEOUT_MS } from "../tasks/index.js";
import { createLogger } from "../telemetry/index.js";
import { addDeadLetterRoutes } from "./dead-letter-routes.js";
import { createDeadLetters } from "./dead-letters.js";
import { createScheduledExecutor, type ScheduledExecutor, type ScheduledExecutorOptions } from "./executor.js";
import { createFiring, type Firing } from "./firing.js";
import { createScheduleStore, type ScheduleStore } from "./store/index.js";
import { createSchedulerHandlers, type SchedulerToolOptions } from "./tool.js";
import { SCHEDULED_EXECUTOR_QUEUE } from "./wire.js";

export interface SchedulerOptions extends Omit<ComponentOptions<never>, "handlers" | "extensions"> {
  /** Where schedules and the executor's queue live. @defaultValue `createStore({ env })`: Redis when configured, else memory */
  readonly store?: Store;
  /** Longest sleep of the firing loop (it wakes at the next due time before that). @defaultValue `MANIFOLD_SCHEDULER_TICK_INTERVAL`, else 5 s */
  readonly tickMs?: number;
  /** @defaultValue `MANIFOLD_SCHEDULER_LOCK_TTL`, else the larger of 30 s and twice the tick; must exceed the tick */
  readonly lockTtlMs?: number;
  /** Most schedules stored. @defaultValue 100,000 */
  readonly maxSchedules?: number;
  /** The executor's settings, or `false` to run only the tool and the firing loop. @defaultValue the `MANIFOLD_EXECUTOR_*` variables */
  readonly executor?: Omit<ScheduledExecutorOptions, "store" | "registry" | "env"> | false;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface RunningScheduler extends RunningComponent {
  readonly schedules: ScheduleStore;
  readonly firing: Firing;
  readonly executor: ScheduledExecutor | undefined;
}

/**
 * Where the scheduler can ask whether the calling agent is registered: the registry it serves with
 * (`false`: none, nothing checked). A registry that cannot answer lets the schedule through: the
 * executor still dead-letters it if the agent never appears.
 */
function agentCheck(given: Registry | false | undefined): Pick<SchedulerToolOptions, "agentKnown"> {
  if (given === false) return {};
  const registry = given ?? defaultRegistry();
  return {
    agentKnown: async (name) => {
      try {
        return (await registry.byName(name, { health: ["healthy", "degraded", "unhealthy", "unknown"] })).some((entry) => entry.type === "agent");
      } catch {
        return true;
      }
    },
  };
}

export async function serveScheduler(options: SchedulerOptions = {}): Promise<RunningScheduler> {
  const { store: given, maxSchedules, executor: executorOptions = {}, env = process.env, ...component } = options;
  const tickMs = options.tickMs ?? durationFromEnv(env, "MANIFOLD_SCHEDULER_TICK_INTERVAL", 5000);
  const lockTtlMs = options.lockTtlMs ?? durationFromEnv(env, "MANIFOLD_SCHEDULER_LOCK_TTL", Math.max(30_000, 2 * tickMs));
  // No lock is taken (firing is exactly-once by task id and compare-and-set), but the rule holds: a lock must outlive a tick.
  if (lockTtlMs <= tickMs) throw new RangeError("MANIFOLD_SCHEDULER_LOCK_TTL must exceed MANIFOLD_SCHEDULER_TICK_INTERVAL");
  const log = createLogger({ service: "scheduler", component: "scheduler", env: env as NodeJS.ProcessEnv });
  const store = given ?? createStore({ env });
  // A store given in code is where the scheduler registers and finds agents too, unless told otherwise.
  const registry = component.registry ?? (given === undefined ? undefined : createRegistry({ store: given }));
  // The manifest loader (the compiler) is loaded only here, never by an agent's server.
  const { loadComponentFile } = await import("../manifest/index.js");
  // The scheduler is a tool: its manifest reads no agent feature.
  const spec = await loadComponentFile(join(packageRoot(), "runtime", "scheduling", "scheduler.yaml"), { features: [] });
  const schedules = createScheduleStore({ store, env, ...(maxSchedules === undefined ? {} : { maxSchedules }) });
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  const executor = executorOptions === false ? undefined : createScheduledExecutor({ ...executorOptions, store, env, ...(registry ? { registry } : {}) });
  const firing = createFiring({ schedules, backend, tickMs, taskTimeoutMs: MAX_TASK_TIMEOUT_MS, log });
  const handlers = createSchedulerHandlers({ schedules, changed: () => firing.wake(), ...agentCheck(registry) });

  const running = await serveComponent(spec, {
    ...component,
    ...(registry === undefined ? {} : { registry }),
    handlers: handlers as unknown as ComponentOptions<never>["handlers"],
    extensions: [
      {
        name: "scheduler",
        // The embedded store is this process's: `manifold dead-letters` can only ask here for its dead letters.
        ...(store.kind === "memory" && {
          routes: (add, { bodyLimit }) => addDeadLetterRoutes(add, { store, letters: executor?.deadLetters ?? createDeadLetters(store), bodyLimit }),
        }),
        start: async () => {
          firing.start();
          await executor?.start();
          log(`scheduler: firing loop (tick ${tickMs} ms)${executor === undefined ? "" : " and executor"} started`);
        },
        stop: async (deadlineMs) => {
          await firing.stop();
          await executor?.stop(deadlineMs);
          await backend.close();
          await schedules.close();
          if (given === undefined) await store.close();
        },
      },
    ],
  });
  return { ...running, close: () => running.close(), schedules, firing, executor };
}
