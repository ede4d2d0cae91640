/**
 * Asynchronous tasks: `POST /api/v1/tasks` → 202 and polling, a store and queue behind a port with
 * `memory` and `redis` adapters, at-least-once workers with leases, cancel, progress and timeouts,
 * the embedded / api / worker modes (`MANIFOLD_MODE`), and the typed task client.
 */
export * from "./types.js";
export { createTaskBackend, type CreateTaskBackendOptions } from "./backend.js";
export { createMemoryTaskBackend, createMemoryTaskState, type MemoryTaskBackendOptions, type MemoryTaskState } from "./memory-backend.js";
export { createRedisTaskBackend, type RedisTaskBackendOptions } from "./redis-backend.js";
export { createTasksExtension, type TaskTypes, type TasksExtension, type TasksExtensionOptions } from "./extension.js";
export { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from "./worker-pool.js";
export { abortSourceOf } from "./task-run.js";
export { DEFAULT_LEASE_MS, DEFAULT_WORKER_COUNT, readLeaseMs, readPoolSettings, type PoolSettings } from "./pool-settings.js";
export { checkProgress, type RunWorkflow, type RunWorkflowOptions, type TaskContext, type TaskHandler } from "./handler-context.js";
export { checkMode, isHealthOnly, resolveMode, runsWorkers, servesTaskApi, type TaskMode } from "./modes.js";
export {
  createTaskClient,
  type SubmitOptions,
  type TaskCallOptions,
  type TaskClient,
  type TaskClientOptions,
  type TaskTypeClient,
  type WaitOptions,
} from "./client.js";
export { statusUrl, TASKS_PATH, toTaskView, type TaskSubmitted, type TaskView } from "./view.js";
export { DEFAULT_MAX_INPUT_BYTES, DEFAULT_TASK_TIMEOUT_MS, MAX_INPUT_BYTES_ENV, MAX_TASK_TIMEOUT_MS, readMaxInputBytes } from "./submit.js";
export { addTaskRoutes, type TaskApiOptions } from "./api.js";
export type { AgentTaskHandlers, AgentTaskTypes, TasksServeOptions } from "./feature.js";
