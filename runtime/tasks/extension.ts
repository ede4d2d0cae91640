import type { ComponentExtension } from "../component/index.js";
import { isManifoldError, ManifoldError } from "../errors/index.js";
import { DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS, type ComponentSpec, type TaskTypeSpec } from "../spec/index.js";
import { createLogger, type Logger } from "../telemetry/index.js";
import { checkHandlerKeys, checkInteger, handlerAt } from "../util/index.js";
import { addTaskRoutes } from "./api.js";
import { createTaskBackend } from "./backend.js";
import type { RunWorkflow, TaskHandler } from "./handler-context.js";
import { checkMode, isHealthOnly, resolveMode, runsWorkers, servesTaskApi, type TaskMode } from "./modes.js";
import { readPoolSettings } from "./pool-settings.js";
import { createWorkerPool, type WorkerPool } from "./worker-pool.js";
import { createTaskMcpTools } from "./mcp-tools.js";
import type { TaskBackend } from "./types.js";
import { readMaxInputBytes } from "./submit.js";

/** What generated code declares per agent: task-type key → its input and result types. */
export type TaskTypes = { [key: string]: { input: unknown; output: unknown } };

export interface TasksExtensionOptions {
  /** Handlers by task-type key. Every task type without `workflow` needs one where workers run. */
  readonly handlers?: Readonly<Record<string, TaskHandler<never, unknown>>>;
  /**
   * Where tasks are stored and queued. @defaultValue `createTaskBackend({ queue: <agent name> })`:
   * Redis when `REDIS_URL` / `MANIFOLD_REDIS_*` is set, else the embedded in-memory backend;
   * created at start and closed at stop.
   */
  readonly backend?: TaskBackend;
  /** Runs the workflow of a task type that declares one; required where workers run and such a type exists. */
  readonly runWorkflow?: RunWorkflow;
  /** @defaultValue `resolveMode()`: `MANIFOLD_MODE`, empty = embedded */
  readonly mode?: TaskMode;
  /** @defaultValue `WORKER_COUNT`, else 5 */
  readonly workerCount?: number;
  /** @defaultValue `MANIFOLD_TASK_LEASE_MS`, else 30000 */
  readonly leaseMs?: number;
  /** How long a stopping worker lets running handlers finish before handing them back to the queue. @defaultValue 30000 */
  readonly shutdownTimeoutMs?: number;
  /** Longest `timeout` a submit may ask for. @defaultValue 24 h */
  readonly maxTimeoutMs?: number;
  /** Largest task `input`, as JSON bytes; a bigger one is 413. @defaultValue `MANIFOLD_TASK_MAX_INPUT_BYTES`, else 256 KiB */
  readonly maxInputBytes?: number;
  /** @defaultValue a JSON logger for `tasks` */
  readonly log?: Logger;
  /** Where `MANIFOLD_MODE`, `WORKER_COUNT` and `MANIFOLD_TASK_LEASE_MS` are read. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface TasksExtension extends ComponentExtension {
  readonly mode: TaskMode;
  /** Pass as the component's `healthOnly` option: true in worker mode. */
  readonly healthOnly: boolean;
}

/**
 * A workflow task's handler: the workflow's own error code (WORKFLOW_FAILED, …) is kept in the
 * message, since a task record has room for one code and that code is HANDLER_ERROR.
 */
function workflowHandler(workflow: string, runWorkflow: RunWorkflow): TaskHandler {
  return async (input, context) => {
    try {
      return await runWorkflow(workflow, input, { signal: context.signal, progress: context.progress, taskId: context.taskId });
    } catch (error) {
      if (!isManifoldError(error) || error.code === "HANDLER_ERROR" || !error.expose) throw error;
      throw new ManifoldError("HANDLER_ERROR", `workflow ${workflow} failed (${error.code}): ${error.message}`, { cause: error });
    }
  };
}

/** Handlers by task type, checked against the spec: none missing, none unknown. */
function resolveHandlers(spec: ComponentSpec, types: readonly TaskTypeSpec[], options: TasksExtensionOptions, workers: boolean): Record<string, TaskHandler> {
  const given = options.handlers ?? {};
  checkHandlerKeys(given, new Set(types.map((t) => t.key)), { prefix: "task handlers", noun: "a task type", owner: spec.name });
  for (const key of Object.keys(given)) {
    const type = types.find((t) => t.key === key);
    if (type?.workflow !== undefined) throw new TypeError(`task type ${type.type} runs workflow ${type.workflow}; it takes no handler`);
  }
  const resolved: Record<string, TaskHandler> = {};
  if (!workers) return resolved;
  for (const type of types) {
    if (type.workflow !== undefined) {
      if (options.runWorkflow === undefined) throw new TypeError(`task type ${type.type} runs workflow ${type.workflow}: pass runWorkflow`);
      resolved[type.type] = workflowHandler(type.workflow, options.runWorkflow);
      continue;
    }
    resolved[type.type] = handlerAt<TaskHandler>(given, type.key, "task handlers", `task type ${type.type}`);
  }
  return resolved;
}

/**
 * The task system of an agent as a component extension: the task API routes (unless worker mode) and
 * a worker pool (unless api mode). Everything is checked here, before the component takes its port.
 */
export function createTasksExtension(spec: ComponentSpec, options: TasksExtensionOptions = {}): TasksExtension {
  const { env = process.env, shutdownTimeoutMs = DEFAULT_TASK_SHUTDOWN_TIMEOUT_MS, log = createLogger({ service: spec.name, component: "tasks" }) } = options;
  const types = spec.agent?.tasks ?? [];
  if (types.length === 0) throw new TypeError(`${spec.name} declares no task types`);
  const mode = options.mode === undefined ? resolveMode(env) : checkMode(options.mode);
  const maxInputBytes = options.maxInputBytes ?? readMaxInputBytes(env);
  const workers = runsWorkers(mode);
  const handlers = resolveHandlers(spec, types, options, workers);
  checkInteger("shutdownTimeoutMs", shutdownTimeoutMs, { min: 0 });
  // Read now so a bad WORKER_COUNT or MANIFOLD_TASK_LEASE_MS fails before the port is taken.
  const settings = workers ? readPoolSettings({ workerCount: options.workerCount, leaseMs: options.leaseMs, env }) : undefined;

  let backend: Promise<TaskBackend> | undefined;
  const getBackend = (): Promise<TaskBackend> => {
    backend ??= options.backend !== undefined ? Promise.resolve(options.backend) : Promise.resolve(createTaskBackend({ queue: spec.name }));
    return backend;
  };
  let pool: WorkerPool | undefined;
  const limits = { maxInputBytes, ...(options.maxTimeoutMs === undefined ? {} : { maxTimeoutMs: options.maxTimeoutMs }) };

  return {
    name: "tasks",
    mode,
    healthOnly: isHealthOnly(mode),
    // start_task and task_status over MCP, where the task API is served.
    mcpTools: servesTaskApi(mode) ? createTaskMcpTools(spec, { backend: getBackend, log, ...limits }) : [],
    routes(add, context) {
      if (servesTaskApi(mode)) addTaskRoutes(add, context, { backend: getBackend, ...limits });
    },
    async start(running) {
      const store = await getBackend();
      if (settings === undefined) return;
      // A task is a client's request nobody approved: its handler's calls are gated like a route's (HITL's policy).
      const gated = running?.gated ?? [];
      pool = createWorkerPool({ backend: store, handlers, log, workerCount: settings.workerCount, leaseMs: settings.leaseMs, gated });
      log.info(`${spec.name}: ${pool.settings.workerCount} task worker(s) started in this process (MANIFOLD_MODE=${mode})`);
    },
    draining() {
      // The pool's stop is idempotent: started here, awaited (the same promise) in stop().
      pool?.stop(shutdownTimeoutMs).catch((error: unknown) => log.error(`${spec.name}: stopping the task pool failed: ${String(error)}`));
    },
    async stop() {
      try {
        await pool?.stop(shutdownTimeoutMs);
        if (options.backend === undefined && backend !== undefined) await (await backend).close();
      } catch (error) {
        log.error(`${spec.name}: stopping tasks failed: ${String(error)}`);
      }
    },
  };
}
