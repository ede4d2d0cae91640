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
 * - `…:skip`: how many ids in the queue belong to tasks cancelled while queued (dropped when met)
 * - `…:wake`: a list holding a marker when there may be work; blocked dequeuers BLPOP it on
 *   connections of their own, so waiting for work costs Redis nothing
 *
 * A queue lives on one cluster node; queues of different agents spread over the cluster.
 */
import { randomBytes } from "node:crypto";
import { Cluster } from "ioredis";
import { ManifoldError } from "../errors/index.js";
import { createKeyBuilder, loadLuaScript, runScript, type RedisClient } from "../store/index.js";
import {
  CANCELLED_ERROR,
  checkDequeueOptions,
  checkLeaseMs,
  checkTaskId,
  closedError,
  encodeError,
  encodeNewTask,
  encodeProgress,
  encodeResult,
  LEASE_LAPSED_AT_MOST_ONCE,
  redeliveryExceeded,
  resolveBackendOptions,
} from "./backend-shared.js";
import { decodeRecord } from "./redis-record.js";
import type { Lease, LeasedWrite, TaskBackend, TaskBackendOptions, TaskOutcome, TaskRecord } from "./types.js";

const script = (file: string) => loadLuaScript("tasks", new URL(`./lua/${file}`, import.meta.url));
const CREATE = script("create-2.lua");
const DEQUEUE = script("dequeue-4.lua");
const EXTEND = script("extend-1.lua");
const FINISH = script("finish-1.lua");
const PROGRESS = script("progress-1.lua");
const RELEASE = script("release-4.lua");
const CANCEL = script("cancel-3.lua");
const DEPTH = script("depth-2.lua");

/** Creates or finishes sent per script call: bounds how long one call holds the server. */
const CHUNK = 500;
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
}

export function createRedisTaskBackend(client: RedisClient, options: RedisTaskBackendOptions = {}): TaskBackend {
  const { ownsClient = false, connectWaitMs = 5_000 } = options;
  const { namespace, queue, ttlMs, maxDeliveries, delivery } = resolveBackendOptions(options);
  const keys = createKeyBuilder(namespace);
  const tag = `tasks:${queue}`;
  const prefix = `${keys.tagged(tag, "task")}:`;
  const queueKey = keys.tagged(tag, "queue");
  const leasesKey = keys.tagged(tag, "leases");
  const wakeKey = keys.tagged(tag, "wake");
  const skipKey = keys.tagged(tag, "skip");
  const dequeueArgs = [
    prefix,
    "",
    "",
    maxDeliveries,
    delivery === "at-most-once" ? "1" : "0",
    ttlMs,
    "",
    encodeError(redeliveryExceeded(maxDeliveries)),
    encodeError(LEASE_LAPSED_AT_MOST_ONCE),
  ];
  const cancelledJson = encodeError(CANCELLED_ERROR);
  // Lease tokens: this backend's random id, a call counter, and the script's index within the call.
  const instance = randomBytes(9).toString("base64url");
  let calls = 0;
  let closed = false;

  const open = (): void => {
    if (closed) throw closedError();
  };

  let everReady = client.status === "ready";
  const onReady = (): void => void (everReady = true);
  client.on("ready", onReady);

  // One listener for however many calls wait for the first connection.
  let firstReady: Promise<true> | undefined;
  const whenReady = async (waitMs: number): Promise<boolean> => {
    firstReady ??= new Promise((resolve) => client.once("ready", () => resolve(true)));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    const ready = await Promise.race([firstReady, timeout]);
    clearTimeout(timer);
    return ready;
  };

  /** Redis failures become UNAVAILABLE (retryable), with any secret removed from the text. */
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    if (client.status !== "ready" && (everReady || !(await whenReady(connectWaitMs)))) {
      throw new ManifoldError("UNAVAILABLE", "task store unavailable: Redis is not connected");
    }
    try {
      return await run();
    } catch (error) {
      if (error instanceof ManifoldError) throw error;
      // What failed, not where (the error text names host and port); the store logs the address once per outage.
      throw new ManifoldError("UNAVAILABLE", "task store unavailable: a Redis command failed", { cause: error });
    }
  };

  // Blocking connections, one per dequeue waiting at the same time, kept for reuse.
  const idle: RedisClient[] = [];
  const blockers = new Set<RedisClient>();

  const waitForWake = async (ms: number, signal: AbortSignal | undefined): Promise<void> => {
    if (signal?.aborted === true) return;
    let conn = idle.pop();
    if (conn === undefined) {
      conn = client instanceof Cluster ? client.duplicate() : client.duplicate();
      conn.on("error", () => undefined); // the shared connection's owner reports outages
      blockers.add(conn);
    }
    const own = conn;
    // BLPOP cannot be interrupted; dropping its connection is how an abort ends the wait at once.
    const onAbort = (): void => {
      blockers.delete(own);
      own.disconnect();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await own.blpop(wakeKey, Math.max(ms, 10) / 1_000);
    } catch {
      // Aborted, closed, or Redis is down: the next dequeue script reports an outage.
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (blockers.has(own)) idle.push(own);
    }
  };

  const leasesOf = (reply: unknown[], leaseMs: number): Lease[] => {
    const expiresAt = Number(reply[0]) + leaseMs;
    const out: Lease[] = [];
    for (let i = 2; i + 2 < reply.length; i += 3) {
      const id = String(reply[i]);
      const task = decodeRecord(id, String(reply[i + 2]));
      // A record that does not parse is left to lapse; its delivery budget ends it.
      if (task !== undefined) out.push({ task, token: String(reply[i + 1]), expiresAt });
    }
    return out;
  };

  const finishChunk = async (chunk: readonly TaskOutcome[]): Promise<LeasedWrite[]> => {
    const args: (string | number)[] = [prefix, ttlMs];
    for (const outcome of chunk) {
      checkTaskId(outcome.taskId);
      args.push(outcome.taskId, String(outcome.token));
      if (outcome.status === "failed") {
        args.push("failed", encodeError(outcome.error));
        continue;
      }
      const encoded = encodeResult(outcome.result);
      if ("error" in encoded) args.push("failed", encodeError(encoded.error));
      else args.push("completed", encoded.json);
    }
    return (await call(() => runScript(client, FINISH, [leasesKey], args))) as LeasedWrite[];
  };

  const finishMany = async (outcomes: readonly TaskOutcome[]): Promise<LeasedWrite[]> => {
    open();
    if (outcomes.length <= CHUNK) return outcomes.length === 0 ? [] : finishChunk(outcomes);
    const out: LeasedWrite[] = [];
    for (let i = 0; i < outcomes.length; i += CHUNK) out.push(...(await finishChunk(outcomes.slice(i, i + CHUNK))));
    return out;
  };

  /**
   * Creates made in one event-loop turn (the requests of one busy API process, say) go to Redis as
   * one script call: one round trip and one script invocation for the lot instead of one each, which
   * is most of what a create costs on both sides. A lone create waits one turn (setImmediate).
   */
  const creates: { readonly id: string; readonly fixed: string; readonly resolve: (created: unknown) => void; readonly reject: (error: unknown) => void }[] =
    [];
  const flushCreates = (): void => {
    const batch = creates.splice(0, CHUNK);
    if (creates.length > 0) setImmediate(flushCreates);
    const args: string[] = [prefix];
    for (const { id, fixed } of batch) args.push(id, fixed);
    call(() => runScript(client, CREATE, [queueKey, wakeKey], args)).then(
      (reply) => {
        const [now, ...flags] = reply as number[];
        batch.forEach(({ resolve }, i) => resolve(flags[i] === 1 ? now : 0));
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  };
  const enqueueCreate = (id: string, fixed: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (creates.length === 0) setImmediate(flushCreates);
      creates.push({ id, fixed, resolve, reject });
    });

  return {
    create: async (task) => {
      open();
      const fixed = encodeNewTask(task);
      const created = await enqueueCreate(task.task_id, fixed);
      if (created === 0) throw new ManifoldError("TASK_EXISTS", `a task with id ${task.task_id} already exists`);
      // What was stored, without parsing it back: the input is the caller's own object, not the store's.
      return {
        task_id: task.task_id,
        type: task.type,
        status: "queued",
        input: task.input,
        timeout_ms: task.timeout_ms,
        created_at: new Date(Number(created)).toISOString(),
        deliveries: 0,
        ...(task.trace === undefined ? {} : { trace: task.trace }),
      };
    },
    get: async (taskId) => {
      open();
      checkTaskId(taskId);
      const value = await call(() => client.get(prefix + taskId));
      return value === null ? undefined : decodeRecord(taskId, value);
    },
    dequeue: async (options) => {
      open();
      checkDequeueOptions(options);
      const { count, leaseMs, blockMs, signal } = options;
      const deadline = performance.now() + blockMs;
      for (;;) {
        if (closed) return [];
        const args = [...dequeueArgs];
        args[1] = count;
        args[2] = leaseMs;
        args[6] = `${instance}.${((calls += 1)).toString(36)}.`;
        const reply = (await call(() => runScript(client, DEQUEUE, [queueKey, leasesKey, wakeKey, skipKey], args))) as unknown[];
        const leases = leasesOf(reply, leaseMs);
        if (leases.length > 0 || signal?.aborted === true) return leases;
        const remaining = deadline - performance.now();
        if (remaining <= 0) return leases;
        // Sleep until woken by a create or release, or until the earliest lease may have lapsed.
        const lapse = Number(reply[1]);
        const untilLapse = lapse < 0 ? Infinity : lapse - Number(reply[0]) + 5;
        await waitForWake(Math.min(remaining, untilLapse, MAX_BLOCK_MS), signal);
      }
    },
    extend: async (leases, leaseMs) => {
      open();
      checkLeaseMs(leaseMs);
      const out = new Map<string, LeasedWrite>();
      for (let i = 0; i < leases.length; i += CHUNK) {
        const chunk = leases.slice(i, i + CHUNK);
        const args: (string | number)[] = [prefix, leaseMs];
        for (const { taskId, token } of chunk) {
          checkTaskId(taskId);
          args.push(taskId, String(token));
        }
        const reply = (await call(() => runScript(client, EXTEND, [leasesKey], args))) as LeasedWrite[];
        chunk.forEach(({ taskId }, j) => out.set(taskId, reply[j + 1]!));
      }
      return out;
    },
    complete: async (taskId, token, result) => (await finishMany([{ status: "completed", taskId, token, result }]))[0]!,
    fail: async (taskId, token, error) => (await finishMany([{ status: "failed", taskId, token, error }]))[0]!,
    finishMany,
    progress: async (taskId, token, progress) => {
      open();
      checkTaskId(taskId);
      return (await call(() => runScript(client, PROGRESS, [prefix + taskId], [String(token), encodeProgress(progress)]))) as LeasedWrite;
    },
    release: async (taskId, token) => {
      open();
      checkTaskId(taskId);
      return (await call(() => runScript(client, RELEASE, [prefix + taskId, leasesKey, queueKey, wakeKey], [taskId, String(token)]))) as LeasedWrite;
    },
    cancel: async (taskId) => {
      open();
      checkTaskId(taskId);
      const [outcome, value] = (await call(() => runScript(client, CANCEL, [prefix + taskId, leasesKey, skipKey], [taskId, ttlMs, cancelledJson]))) as [
        string,
        string?,
      ];
      if (outcome === "not_found" || value === undefined) return { outcome: "not_found" };
      const task: TaskRecord | undefined = decodeRecord(taskId, value);
      return { outcome: outcome as "cancelled" | "finished", ...(task === undefined ? {} : { task }) };
    },
    depth: async () => {
      open();
      return Number(await call(() => runScript(client, DEPTH, [queueKey, skipKey], [])));
    },
    close: async () => {
      if (closed) return;
      closed = true;
      client.off("ready", onReady);
      for (const conn of blockers) conn.disconnect();
      blockers.clear();
      idle.length = 0;
      if (ownsClient) {
        if (client.status === "ready") await client.quit().catch(() => client.disconnect());
        else client.disconnect();
      }
    },
  };
}
