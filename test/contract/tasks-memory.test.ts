import { createMemoryTaskBackend, createMemoryTaskState, type MemoryTaskState } from "../../runtime/tasks/memory-backend.js";
import type { TaskBackend } from "../../runtime/tasks/types.js";
import { taskDeliveryCases } from "./tasks-delivery.cases.js";
import { taskTransitionCases } from "./tasks-transitions.cases.js";
import { taskCases, type TasksFactory } from "./tasks.cases.js";

/** Every backend of a test on one queue shares that queue's state, as the API and workers of one process do. */
const factory: TasksFactory = async () => {
  const states = new Map<string, MemoryTaskState>();
  const opened: TaskBackend[] = [];
  return {
    make: (options = {}) => {
      const queue = options.queue ?? "default";
      if (!states.has(queue)) states.set(queue, createMemoryTaskState());
      const backend = createMemoryTaskBackend({ ...options, state: states.get(queue)! });
      opened.push(backend);
      return backend;
    },
    close: async () => {
      await Promise.all(opened.map((b) => b.close()));
    },
  };
};

taskCases("memory", factory);
taskTransitionCases("memory", factory);
taskDeliveryCases("memory", factory);
