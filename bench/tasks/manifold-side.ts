/**
 * This runtime's side of the task benches (run.ts, node-cost.ts): two connections to one Redis, as an API
 * process and a worker process would have, a Redis task backend on each, no-op `noop` tasks submitted on
 * the first, and each completion reported once its write is stored (as BullMQ's `completed` event does).
 */
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { TaskBackend } from "../../runtime/tasks/types.js";

export interface ManifoldSide {
  /** Submits one no-op task whose id and input are `key`. */
  submit(key: string): Promise<void>;
  /** The worker connection's backend, reporting each stored completion. */
  readonly workers: TaskBackend;
  close(): Promise<void>;
}

/** Reports each completion once its write is stored. */
function observed(backend: TaskBackend, completed: (key: string) => void): TaskBackend {
  return {
    ...backend,
    finishMany: async (outcomes) => {
      const results = await backend.finishMany(outcomes);
      outcomes.forEach((o, i) => {
        if (results[i] === "ok" && o.status === "completed") completed(o.taskId);
      });
      return results;
    },
  };
}

export function openManifoldSide(url: string, completed: (key: string) => void): ManifoldSide {
  const api = createStore({ env: { REDIS_URL: url }, log: () => undefined }) as RedisStore;
  const workerStore = createStore({ env: { REDIS_URL: url }, log: () => undefined }) as RedisStore;
  const submitter = createRedisTaskBackend(api.client, { queue: "bench" });
  const workers = observed(createRedisTaskBackend(workerStore.client, { queue: "bench" }), completed);
  return {
    submit: async (key) => {
      await submitter.create({ task_id: key, type: "noop", input: { key }, timeout_ms: 60_000 });
    },
    workers,
    close: async () => {
      await Promise.all([submitter.close(), workers.close()]);
      await Promise.all([api.close(), workerStore.close()]);
    },
  };
}
