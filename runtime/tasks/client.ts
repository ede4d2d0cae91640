import { createClientSend, type ClientOptions } from "../component/index.js";
import { isErrorCode, isManifoldError, ManifoldError } from "../errors/index.js";
import { checkTimeout } from "../outbound/index.js";
import type { ComponentSpec } from "../spec/index.js";
import type { TaskTypes } from "./extension.js";
import { type Clock, sleepOn, systemClock } from "../util/index.js";
import { statusUrl, TASKS_PATH, type TaskSubmitted, type TaskView } from "./view.js";

/** Per call, like a capability call's options. */
export interface TaskCallOptions {
  readonly signal?: AbortSignal;
  /** @defaultValue the client's timeoutMs */
  readonly timeoutMs?: number;
  /** Propagated headers for this call; `Authorization: Bearer <t>` and `X-Manifold-Request-ID` set the token and request id. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Bearer token for this call only. @defaultValue the request context's, else the client's */
  readonly token?: string;
  /** @defaultValue the request context's, else a fresh UUID */
  readonly requestId?: string;
}

export interface SubmitOptions extends TaskCallOptions {
  /** The task's own timeout, a duration such as `90s` or `10m`. @defaultValue the task type's, else 30 min */
  readonly timeout?: string;
}

export interface WaitOptions {
  /** Stops waiting (ABORTED); the task itself keeps running — cancel it for that. */
  readonly signal?: AbortSignal;
  /** First pause between polls; each pause doubles up to `maxIntervalMs`. @defaultValue 100 */
  readonly intervalMs?: number;
  /** @defaultValue 2000 */
  readonly maxIntervalMs?: number;
  /** Gives up with TIMEOUT after this long. @defaultValue no limit */
  readonly timeoutMs?: number;
  /** The clock of the pauses and the time limit. @defaultValue systemClock */
  readonly clock?: Clock;
}

/** One task type's methods on an agent's task client. */
export interface TaskTypeClient<I, O> {
  /** `POST /api/v1/tasks`: queues the task and resolves at once with its id. */
  submit(input: I, options?: SubmitOptions): Promise<TaskSubmitted>;
  /** `GET /api/v1/tasks/<id>`: the task's status, progress, result or error. NOT_FOUND for an unknown id. */
  get(taskId: string, options?: TaskCallOptions): Promise<TaskView<O>>;
  /** `POST /api/v1/tasks/<id>/cancel`. TASK_NOT_CANCELLABLE once the task has finished. */
  cancel(taskId: string, options?: TaskCallOptions): Promise<TaskView<O>>;
  /**
   * Polls until the task finishes (pauses growing from `intervalMs` to `maxIntervalMs`) and resolves
   * with its result; a failed or cancelled task rejects with a ManifoldError carrying the task's error
   * code (HANDLER_ERROR, TASK_TIMEOUT, TASK_CANCELLED, …). Transient poll failures are retried.
   */
  wait(taskId: string, options?: WaitOptions): Promise<O>;
}

export type TaskClient<T extends TaskTypes> = { readonly [K in keyof T]: TaskTypeClient<T[K]["input"], T[K]["output"]> };

export type TaskClientOptions = ClientOptions;

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of milliseconds`);
  return value;
}

/** The error a wait that ran out of time ends with: the last poll's own failure says more than a bare TIMEOUT. */
function outOfTime(failure: ManifoldError | undefined, what: string, budget: number | undefined): ManifoldError {
  return failure !== undefined && failure.code !== "TIMEOUT" ? failure : new ManifoldError("TIMEOUT", `${what} did not finish within ${budget} ms`);
}

/** Ends a wait with ABORTED once the caller's signal has fired. */
function checkNotAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted === true) throw new ManifoldError("ABORTED", `waiting for ${what} was aborted by the caller`);
}

/** A finished task's error as the ManifoldError `wait` rejects with; a code outside the table becomes INTERNAL. */
function taskFailure(view: TaskView): ManifoldError {
  const code = view.error?.code;
  const message = view.error?.message ?? `task ${view.task_id} ${view.status}`;
  if (isErrorCode(code)) return new ManifoldError(code, message, { expose: true });
  return new ManifoldError("INTERNAL", message, { expose: true });
}

/**
 * The typed task client of an agent: per task-type key `submit`, `get`, `cancel` and `wait`, each a
 * thin call through the one outbound caller (so tokens, propagated headers, request ids and trace
 * context travel exactly as on capability calls). Generated `<Agent>.tasks(...)` builds on this.
 */
export function createTaskClient<T extends TaskTypes>(spec: ComponentSpec, options: TaskClientOptions): TaskClient<T> {
  const defaultTimeout = checkTimeout(options.timeoutMs ?? 30_000);
  const clientSend = createClientSend(spec, options);
  const send = (method: "GET" | "POST", path: string, name: string, body: unknown, callOptions: TaskCallOptions): Promise<unknown> =>
    clientSend({ path, method, body, name }, callOptions);

  const client = Object.create(null) as Record<string, TaskTypeClient<unknown, unknown>>;
  for (const taskType of spec.agent?.tasks ?? []) {
    const { type } = taskType;
    const get = async (taskId: string, options: TaskCallOptions = {}): Promise<TaskView> =>
      (await send("GET", statusUrl(taskId), `task ${type} status`, undefined, options)) as TaskView;

    client[taskType.key] = {
      submit: async (input, options = {}) => {
        const body = { type, input, ...(options.timeout === undefined ? {} : { timeout: options.timeout }) };
        return (await send("POST", TASKS_PATH, `task ${type} submit`, body, options)) as TaskSubmitted;
      },
      get,
      cancel: async (taskId, options = {}) => (await send("POST", `${statusUrl(taskId)}/cancel`, `task ${type} cancel`, {}, options)) as TaskView,
      wait: async (taskId, { signal, intervalMs = 100, maxIntervalMs = 2_000, timeoutMs: budget, clock = systemClock } = {}) => {
        let delay = positive(intervalMs, "intervalMs");
        const longest = Math.max(delay, positive(maxIntervalMs, "maxIntervalMs"));
        const deadline = budget === undefined ? Number.POSITIVE_INFINITY : clock.now() + positive(budget, "timeoutMs");
        const what = `task ${taskId}`;
        let failure: ManifoldError | undefined;
        for (;;) {
          checkNotAborted(signal, what);
          let view: TaskView | undefined;
          try {
            const left = deadline - clock.now();
            view = await get(taskId, { ...(signal === undefined ? {} : { signal }), timeoutMs: Math.max(1, Math.min(defaultTimeout, left)) });
            failure = undefined;
          } catch (error) {
            // A restarting agent or a dropped connection is not the task's failure: keep polling.
            if (!isManifoldError(error) || !error.retryable) throw error;
            failure = error;
          }
          if (view?.status === "completed") return view.result;
          if (view?.status === "failed" || view?.status === "cancelled") throw taskFailure(view);
          const left = deadline - clock.now();
          // Out of time: the last poll's own failure says more than a bare TIMEOUT.
          if (left <= 0) throw outOfTime(failure, what, budget);
          // The caller is waiting: the pause's timer holds the process open.
          await sleepOn(clock, Math.min(delay, left), signal, { hold: true });
          checkNotAborted(signal, what);
          // Out of time after the pause: no last poll with no time left to answer it (its 1 ms timeout
          // would replace the real cause, an unreachable agent, with a bare TIMEOUT).
          if (deadline - clock.now() <= 0) throw outOfTime(failure, what, budget);
          delay = Math.min(delay * 2, longest);
        }
      },
    };
  }
  return client as TaskClient<T>;
}
