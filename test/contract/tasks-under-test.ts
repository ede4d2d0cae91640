/** The task backend contract's factory for Redis (or Redis Cluster): a fresh namespace per test, a connection per backend. */
import { randomBytes } from "node:crypto";
import { createStore, type RedisStore } from "../../runtime/store/index.js";
import { createRedisTaskBackend } from "../../runtime/tasks/redis-backend.js";
import type { TaskBackend } from "../../runtime/tasks/types.js";
import type { TasksFactory } from "./tasks.cases.js";

export function redisTasksFactory(env: () => Record<string, string>): TasksFactory {
  return async () => {
    const namespace = `t${randomBytes(4).toString("hex")}`;
    const opened: { backend: TaskBackend; store: RedisStore }[] = [];
    return {
      make: (options = {}) => {
        // Each backend on its own connection, as separate worker processes would be.
        const store = createStore({ env: env(), log: () => undefined }) as RedisStore;
        const backend = createRedisTaskBackend(store.client, { namespace, ...options });
        opened.push({ backend, store });
        return backend;
      },
      close: async () => {
        await Promise.all(
          opened.map(async ({ backend, store }) => {
            await backend.close();
            await store.close();
          }),
        );
      },
    };
  };
}
