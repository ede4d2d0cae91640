/**
 * The task backend on Redis or Redis Cluster. Every status change is one Lua script (lua/*.lua, each
 * with its contract in its header), so a compare-and-set and its side effects (queue, leases, TTL)
 * happen together or not at all.
 *
 * Key layout for namespace `ns` and queue `q` (one per agent); every key carries the hash tag
 * `{tasks:q}`, so a queue's keys share one cluster slot and its scripts run on a cluster:
 * - `manifold:v1:ns:{tasks:q}:task:<id>`: the record, one string (format in redis-record.ts); no TTL
 *   while queued or running (a task waits as long as it takes), PX = `ttlMs` once finished
 * - `…:queue`: list of queued ids, head first (release pushes to the head)
 * - `…:leases`: sorted set of running ids scored by lease expiry (ms, Redis server time)
 * - `…:running`: hash of running ids → lease state (`<token prefix>|<deliveries>|<started>`); a task
 *   taken keeps its record as it was queued, so taking it writes no record (lua/includes/running-state.lua)
 * - `…:skip`: how many ids in the queue belong to tasks cancelled while queued (dropped when met)
 * - `…:wake`: a list holding a marker when there may be work; blocked dequeuers BLPOP it on
 *   connections of their own, so waiting for work costs Redis nothing
 *
 * A queue lives on one cluster node; queues of different agents spread over the cluster.
 */
import { randomBytes } from "node:crypto";
import { ManifoldError } from "../errors/index.js";
import { createKeyBuilder, defineLuaScript, runScript, type RedisClient } from "../store/index.js";
import {
  CANCELLED_ERROR,
  checkDequeueOptions,
  checkLeaseMs,
  checkTaskId,
  closedError,
  encodeError,
  encodeNewTask,
  encodeProgress,
  LEASE_LAPSED_AT_MOST_ONCE,
  redeliveryExceeded,
  resolveBackendOptions,
} from "./backend-shared.js";
import { createCreateBatcher, createRedisCaller, createWakeWaiter, type RedisCaller, type RedisRetryOptions, type WakeWaiter } from "./redis-connection.js";
import { finishArgs, stateOf } from "./redis-finish.js";
import { decodeRecord, IsoCache } from "./redis-record.js";
import type { DequeueOptions, Lease, LeasedWrite, NewTask, TaskBackend, TaskBackendOptions, TaskOutcome, TaskRecord } from "./types.js";

export { finishArgs };

const script = (file: string) => defineLuaScript("tasks", new URL(`./lua/${file}`, import.meta.url));
const CREATE = script("create-2.lua");
const DEQUEUE = script("dequeue-5.lua");
const EXTEND = script("extend-2.lua");
const FINISH = script("finish-2.lua");
const PROGRESS = script("progress-2.lua");
const RELEASE = script("release-5.lua");
const CANCEL = script("cancel-4.lua");
const DEPTH = script("depth-2.lua");
const GET = script("get-2.lua");

/** Creates or finishes sent per script call: bounds how long one call holds the server. */
const CHUNK = 500;
/**
 * Reads, and the lease-token writes whose second run changes nothing (progress, extend): a reset or
 * timeout is retried for them. Create, dequeue, cancel, release and finish are compare-and-sets that a
 * repeat never applies twice, but whose repeat would answer as if another caller got there first
 * (TASK_EXISTS for one's own create): only failures where Redis surely did not run them are retried.
 */
const IDEMPOTENT = { idempotent: true } as const;
/** Longest single BLPOP: under the shared connection's 5 s command timeout, which a duplicate inherits. */
const MAX_BLOCK_MS = 2_000;

export interface RedisTaskBackendOptions extends TaskBackendOptions {
  /** Close `client` with the backend. @defaultValue false */
  readonly ownsClient?: boolean;
  /**
   * Before the client's first connection, how long a call waits for it; once it has been connected,
   * a call while it is down fails at once with UNAVAILABLE (a worker retries with backoff; an API
   * caller gets a 503 now rather than after ioredis's reconnection attempts). @defaultValue 5000
   */
  readonly connectWaitMs?: number;
  /**
   * Transient failures (Redis not connected, LOADING, TRYAGAIN, CLUSTERDOWN, MASTERDOWN; a reset or
   * timeout for reads and token writes only) are tried again. @defaultValue 3 attempts, 100 ms apart, systemClock
   */
  readonly retry?: RedisRetryOptions;
}

/** One Redis backend: its keys, fixed script arguments and connections; the operations below are functions over it. */
interface RedisBackend {
  readonly client: RedisClient;
  readonly prefix: string;
  readonly queueKey: string;
  readonly leasesKey: string;
  readonly runningKey: string;
  readonly wakeKey: string;
  readonly skipKey: string;
  readonly ttlMs: number;
  /** The dequeue script's arguments; count, lease and token prefix (1, 2, 6) are filled in per call. */
  readonly dequeueArgs: readonly (string | number)[];
  readonly cancelledJson: string;
  /** Lease tokens: this backend's random id, a call counter, and the task's id (unique within a call). */
  readonly instance: string;
  calls: number;
  /** Lease token → the record its dequeue returned, until the lease's finish (see finishArgs). */
  readonly records: Map<string, string>;
  closed: boolean;
  readonly redis: RedisCaller;
  readonly wake: WakeWaiter;
  /** Queues a checked create for the next batch; resolves with its record, or rejects TASK_EXISTS. */
  readonly enqueueCreate: (id: string, fixed: string, task?: NewTask) => Promise<TaskRecord>;
}

function openBackend(backend: RedisBackend): RedisBackend {
  if (backend.closed) throw closedError();
  return backend;
}

/**
 * Records kept for leases not finished yet, at most: a lease dropped without a write (a worker that
 * lost it, or never finishes) is forgotten oldest first, and its finish then has the script read it.
 */
const MAX_KEPT_RECORDS = 10_000;

/**
 * The leases in a dequeue script's reply, `[server time, earliest lapse, (id, record, lease state)…]`;
 * a lease's token is its state + its id. `records`: where each lease's stored record is kept for its finish.
 */
export function leasesOf(reply: readonly unknown[], leaseMs: number, records?: Map<string, string>): Lease[] {
  const expiresAt = Number(reply[0]) + leaseMs;
  const out: Lease[] = [];
  for (let i = 2; i + 2 < reply.length; i += 3) {
    const id = String(reply[i]);
    const state = String(reply[i + 2]);
    const value = String(reply[i + 1]);
    const task = decodeRecord(id, value, state);
    // A record that does not parse is left to lapse; its delivery budget ends it.
    if (task === undefined) continue;
    const token = state + id;
    out.push({ task, token, expiresAt });
    if (records === undefined) continue;
    records.set(token, value);
    if (records.size > MAX_KEPT_RECORDS) records.delete(records.keys().next().value!);
  }
  return out;
}

async function finishMany(backend: RedisBackend, outcomes: readonly TaskOutcome[]): Promise<LeasedWrite[]> {
  const { client, redis, prefix, ttlMs, leasesKey, runningKey, records } = openBackend(backend);
  const chunk = async (part: readonly TaskOutcome[]): Promise<LeasedWrite[]> => {
    const args = finishArgs(prefix, ttlMs, part, records);
    return (await redis.call(() => runScript(client, FINISH, [leasesKey, runningKey], args))) as LeasedWrite[];
  };
  if (outcomes.length <= CHUNK) return outcomes.length === 0 ? [] : chunk(outcomes);
  const out: LeasedWrite[] = [];
  for (let i = 0; i < outcomes.length; i += CHUNK) out.push(...(await chunk(outcomes.slice(i, i + CHUNK))));
  return out;
}

/** Checked and queued for the next create batch; the batch's answer becomes the record (createdRecord). */
function createTask(backend: RedisBackend, task: NewTask): Promise<TaskRecord> {
  let fixed: string;
  try {
    openBackend(backend);
    fixed = encodeNewTask(task);
  } catch (error) {
    return Promise.reject(error);
  }
  return backend.enqueueCreate(task.task_id, fixed, task);
}

/** The creates of one batch share the server time they were stored at: its ISO form is made once. */
const createdIso = new IsoCache();

/** What was stored, without parsing it back: the input is the caller's own object, not the store's. */
function createdRecord(created: unknown, task: NewTask): TaskRecord {
  if (created === 0) throw new ManifoldError("TASK_EXISTS", `a task with id ${task.task_id} already exists`);
  const record: TaskRecord = {
    task_id: task.task_id,
    type: task.type,
    status: "queued",
    input: task.input,
    timeout_ms: task.timeout_ms,
    created_at: createdIso.of(Number(created)),
    deliveries: 0,
  };
  // Assigned, not spread from a fresh literal: this runs once per task submitted.
  if (task.trace !== undefined) (record as { trace?: TaskRecord["trace"] }).trace = task.trace;
  return record;
}

/** One dequeue script call after another, sleeping on the wake list between them, until leases, the block's end or the signal. */
async function dequeue(backend: RedisBackend, options: DequeueOptions): Promise<Lease[]> {
  const { client, redis, queueKey, leasesKey, wakeKey, skipKey, runningKey } = openBackend(backend);
  checkDequeueOptions(options);
  const { count, leaseMs, blockMs, signal } = options;
  const deadline = performance.now() + blockMs;
  for (;;) {
    if (backend.closed) return [];
    const args = [...backend.dequeueArgs];
    args[1] = count;
    args[2] = leaseMs;
    const tokenPrefix = `${backend.instance}.${((backend.calls += 1)).toString(36)}.`;
    args[6] = tokenPrefix;
    const reply = (await redis.call(() => runScript(client, DEQUEUE, [queueKey, leasesKey, wakeKey, skipKey, runningKey], args))) as unknown[];
    const leases = leasesOf(reply, leaseMs, backend.records);
    if (leases.length > 0 || signal?.aborted === true) return leases;
    const remaining = deadline - performance.now();
    if (remaining <= 0) return leases;
    // Sleep until woken by a create or release, or until the earliest lease may have lapsed.
    const lapse = Number(reply[1]);
    const untilLapse = lapse < 0 ? Infinity : lapse - Number(reply[0]) + 5;
    await backend.wake.wait(Math.min(remaining, untilLapse, MAX_BLOCK_MS), signal);
  }
}

async function extend(
  backend: RedisBackend,
  leases: readonly { readonly taskId: string; readonly token: string }[],
  leaseMs: number,
): Promise<Map<string, LeasedWrite>> {
  const { client, redis, prefix, leasesKey, runningKey } = openBackend(backend);
  checkLeaseMs(leaseMs);
  const out = new Map<string, LeasedWrite>();
  for (let i = 0; i < leases.length; i += CHUNK) {
    const chunk = leases.slice(i, i + CHUNK);
    const args: (string | number)[] = [prefix, leaseMs];
    for (const { taskId, token } of chunk) {
      checkTaskId(taskId);
      args.push(taskId, stateOf(String(token), taskId));
    }
    const reply = (await redis.call(() => runScript(client, EXTEND, [leasesKey, runningKey], args), IDEMPOTENT)) as LeasedWrite[];
    chunk.forEach(({ taskId, token }, j) => {
      out.set(taskId, reply[j + 1]!);
      // A lease refused is never finished by its holder: its kept record is dropped.
      if (reply[j + 1] !== "ok") backend.records.delete(String(token));
    });
  }
  return out;
}

async function cancel(backend: RedisBackend, taskId: string): Promise<Awaited<ReturnType<TaskBackend["cancel"]>>> {
  const { client, redis, prefix, leasesKey, skipKey, runningKey, ttlMs, cancelledJson } = openBackend(backend);
  checkTaskId(taskId);
  const [outcome, value] = (await redis.call(() =>
    runScript(client, CANCEL, [prefix + taskId, leasesKey, skipKey, runningKey], [taskId, ttlMs, cancelledJson]),
  )) as [string, string?];
  if (outcome === "not_found" || value === undefined) return { outcome: "not_found" };
  const task: TaskRecord | undefined = decodeRecord(taskId, value);
  return { outcome: outcome as "cancelled" | "finished", ...(task === undefined ? {} : { task }) };
}

function backendOf(client: RedisClient, options: RedisTaskBackendOptions): RedisBackend {
  const { connectWaitMs = 5_000 } = options;
  const { namespace, queue, ttlMs, maxDeliveries, delivery } = resolveBackendOptions(options);
  const keys = createKeyBuilder(namespace);
  const tag = `tasks:${queue}`;
  const prefix = `${keys.tagged(tag, "task")}:`;
  const queueKey = keys.tagged(tag, "queue");
  const wakeKey = keys.tagged(tag, "wake");
  const redis = createRedisCaller(client, connectWaitMs, options.retry);
  return {
    client,
    prefix,
    queueKey,
    leasesKey: keys.tagged(tag, "leases"),
    runningKey: keys.tagged(tag, "running"),
    wakeKey,
    skipKey: keys.tagged(tag, "skip"),
    ttlMs,
    dequeueArgs: [
      prefix,
      "",
      "",
      maxDeliveries,
      delivery === "at-most-once" ? "1" : "0",
      ttlMs,
      "",
      encodeError(redeliveryExceeded(maxDeliveries)),
      encodeError(LEASE_LAPSED_AT_MOST_ONCE),
    ],
    cancelledJson: encodeError(CANCELLED_ERROR),
    instance: randomBytes(9).toString("base64url"),
    calls: 0,
    records: new Map(),
    closed: false,
    redis,
    wake: createWakeWaiter(client, wakeKey),
    // The batcher makes each create's record itself, when its batch answers.
    enqueueCreate: createCreateBatcher((args) => redis.call(() => runScript(client, CREATE, [queueKey, wakeKey], args)), prefix, CHUNK, createdRecord),
  };
}

export function createRedisTaskBackend(client: RedisClient, options: RedisTaskBackendOptions = {}): TaskBackend {
  const { ownsClient = false } = options;
  const backend = backendOf(client, options);
  const { redis, prefix, queueKey, leasesKey, wakeKey, skipKey, runningKey } = backend;
  return {
    create: (task) => createTask(backend, task),
    get: async (taskId) => {
      openBackend(backend);
      checkTaskId(taskId);
      const reply = (await redis.call(() => runScript(client, GET, [prefix + taskId, runningKey], [taskId]), IDEMPOTENT)) as [string, string?] | null;
      return reply === null ? undefined : decodeRecord(taskId, reply[0], reply[1]);
    },
    dequeue: (options) => dequeue(backend, options),
    extend: (leases, leaseMs) => extend(backend, leases, leaseMs),
    complete: async (taskId, token, result) => (await finishMany(backend, [{ status: "completed", taskId, token, result }]))[0]!,
    fail: async (taskId, token, error) => (await finishMany(backend, [{ status: "failed", taskId, token, error }]))[0]!,
    finishMany: (outcomes) => finishMany(backend, outcomes),
    progress: async (taskId, token, progress) => {
      openBackend(backend);
      checkTaskId(taskId);
      const args = [taskId, stateOf(String(token), taskId), encodeProgress(progress)];
      const answer = (await redis.call(() => runScript(client, PROGRESS, [prefix + taskId, runningKey], args), IDEMPOTENT)) as LeasedWrite;
      // A lease refused is never finished by its holder: its kept record is dropped.
      if (answer !== "ok") backend.records.delete(String(token));
      return answer;
    },
    release: async (taskId, token) => {
      openBackend(backend);
      checkTaskId(taskId);
      const keys = [prefix + taskId, leasesKey, queueKey, wakeKey, runningKey];
      backend.records.delete(String(token));
      return (await redis.call(() => runScript(client, RELEASE, keys, [taskId, stateOf(String(token), taskId)]))) as LeasedWrite;
    },
    cancel: (taskId) => cancel(backend, taskId),
    depth: async () => {
      openBackend(backend);
      return Number(await redis.call(() => runScript(client, DEPTH, [queueKey, skipKey], []), IDEMPOTENT));
    },
    close: async () => {
      if (backend.closed) return;
      backend.closed = true;
      redis.dispose();
      backend.wake.close();
      if (ownsClient) {
        if (client.status === "ready") await client.quit().catch(() => client.disconnect());
        else client.disconnect();
      }
    },
  };
}
