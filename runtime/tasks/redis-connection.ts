/**
 * The Redis task backend's connections: the shared one's readiness and the failure mapping of every
 * call (`createRedisCaller`), and the blocking connections a dequeue waits for work on
 * (`createWakeWaiter`).
 */
import { ManifoldError } from "../errors/index.js";
import type { RedisClient } from "../store/index.js";
import { sleepOn, systemClock, type Clock } from "../util/index.js";

/** SPEC Limits: "Queue and store retry | Default 3 attempts, 100ms delay." */
export interface RedisRetryOptions {
  /** Tries per call, the first included. @defaultValue 3 */
  readonly attempts?: number;
  /** Between tries, on `clock`. @defaultValue 100 */
  readonly delayMs?: number;
  /** @defaultValue systemClock */
  readonly clock?: Clock;
}

export interface CallOptions {
  /**
   * Repeating the operation is harmless even if its first try ran (a read; a write that a lease
   * token makes a no-op the second time): a connection reset or timeout is retried too.
   * @defaultValue false: only failures where the command surely did not run are retried
   */
  readonly idempotent?: boolean;
}

export interface RedisCaller {
  /** Runs a command: UNAVAILABLE (retryable, no address or secret in the text) when Redis is not connected or the command fails. */
  call<T>(run: () => Promise<T>, options?: CallOptions): Promise<T>;
  /** Stops watching the client's readiness. */
  dispose(): void;
}

/** Replies Redis gives instead of running a command: loading its data, a slot moving, the cluster or its master down. */
const NOT_RUN_REPLY = /^(LOADING|TRYAGAIN|CLUSTERDOWN|MASTERDOWN)\b/;
const NOT_RUN_CODES = new Set(["ECONNREFUSED", "ENOTCONN"]);
/** The command may have reached Redis and run before the connection failed. */
const MAYBE_RUN_CODES = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"]);
const MAYBE_RUN_MESSAGE = /^(Command timed out|Connection is closed|Reached the max retries per request limit)/;

/**
 * Whether a failure is transient: `not_run` (Redis surely did not run the command: safe to repeat any
 * operation, a compare-and-set included), `maybe_run` (a reset or timeout after the command was sent:
 * safe to repeat only an idempotent one), or undefined (a real error: WRONGTYPE, a script error).
 */
export function transientKind(error: unknown): "not_run" | "maybe_run" | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (NOT_RUN_REPLY.test(error.message) || (typeof code === "string" && NOT_RUN_CODES.has(code))) return "not_run";
  if ((typeof code === "string" && MAYBE_RUN_CODES.has(code)) || MAYBE_RUN_MESSAGE.test(error.message)) return "maybe_run";
  return undefined;
}

/**
 * Before the client's first connection a call waits up to `connectWaitMs` for it; once it has been
 * connected, a call while it is down fails at once (a worker retries with backoff; an API caller
 * gets a 503 now rather than after ioredis's reconnection attempts).
 */
export function createRedisCaller(client: RedisClient, connectWaitMs: number, retry: RedisRetryOptions = {}): RedisCaller {
  const { attempts = 3, delayMs = 100, clock = systemClock } = retry;
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

  /** One try: its result, or the error and whether another try may follow. */
  const attempt = async <T>(run: () => Promise<T>, first: boolean, idempotent: boolean): Promise<{ value: T } | { error: ManifoldError; again: boolean }> => {
    // Not connected: the command is never sent, so trying again is safe for any operation.
    if (client.status !== "ready" && (everReady || !first || !(await whenReady(connectWaitMs)))) {
      return { error: new ManifoldError("UNAVAILABLE", "task store unavailable: Redis is not connected"), again: true };
    }
    try {
      return { value: await run() };
    } catch (error) {
      if (error instanceof ManifoldError) return { error, again: false };
      const kind = transientKind(error);
      // What failed, not where (the error text names host and port); the store logs the address once per outage.
      const failed = new ManifoldError("UNAVAILABLE", "task store unavailable: a Redis command failed", { cause: error });
      return { error: failed, again: kind === "not_run" || (kind === "maybe_run" && idempotent) };
    }
  };

  return {
    call: async (run, { idempotent = false } = {}) => {
      for (let tried = 1; ; tried += 1) {
        const outcome = await attempt(run, tried === 1, idempotent);
        if ("value" in outcome) return outcome.value;
        if (!outcome.again || tried >= attempts) throw outcome.error;
        await sleepOn(clock, delayMs, undefined, { hold: true });
      }
    },
    dispose: () => void client.off("ready", onReady),
  };
}

export interface WakeWaiter {
  /** Blocks on the wake list for up to `ms` (at least 10), or until `signal` aborts; never throws. */
  wait(ms: number, signal: AbortSignal | undefined): Promise<void>;
  /** Drops every blocking connection (ending their waits). */
  close(): void;
}

/** Blocking connections, one per dequeue waiting at the same time, kept for reuse. */
export function createWakeWaiter(client: RedisClient, wakeKey: string): WakeWaiter {
  const idle: RedisClient[] = [];
  const blockers = new Set<RedisClient>();
  const connection = (): RedisClient => {
    const reused = idle.pop();
    if (reused !== undefined) return reused;
    // A Redis or a Cluster, each duplicating itself; no value import of ioredis, which only a Redis store loads.
    const conn = (client as { duplicate(): RedisClient }).duplicate();
    conn.on("error", () => undefined); // the shared connection's owner reports outages
    blockers.add(conn);
    return conn;
  };
  return {
    wait: async (ms, signal) => {
      if (signal?.aborted === true) return;
      const own = connection();
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
    },
    close: () => {
      for (const conn of blockers) conn.disconnect();
      blockers.clear();
      idle.length = 0;
    },
  };
}

interface PendingCreate<A> {
  readonly id: string;
  readonly fixed: string;
  readonly arg: A | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Sends one batch of creates; resolves with the server time and, per create, 1 (created) or 0 (the id exists). */
export type SendCreates = (args: readonly string[]) => Promise<unknown>;

/**
 * Creates made in one event-loop turn (the requests of one busy API process, say) go to Redis as
 * one script call: one round trip and one script invocation for the lot instead of one each, which
 * is most of what a create costs on both sides. A lone create waits one turn (setImmediate). The
 * returned function resolves with the creation time, or 0 when the id was taken; or, given `settle`,
 * with what `settle` makes of that and the create's `arg` (rejecting with what it throws), so a
 * caller needs no promise of its own on top (one fewer per task submitted).
 */
export function createCreateBatcher<A = undefined, T = unknown>(
  send: SendCreates,
  prefix: string,
  chunk: number,
  settle?: (created: unknown, arg: A) => T,
): (id: string, fixed: string, arg?: A) => Promise<T> {
  const creates: PendingCreate<A>[] = [];
  const answer = ({ arg, resolve, reject }: PendingCreate<A>, created: unknown): void => {
    if (settle === undefined) return resolve(created);
    try {
      resolve(settle(created, arg as A));
    } catch (error) {
      reject(error);
    }
  };
  const flush = (): void => {
    const batch = creates.splice(0, chunk);
    if (creates.length > 0) setImmediate(flush);
    const args: string[] = [prefix];
    for (const { id, fixed } of batch) args.push(id, fixed);
    send(args).then(
      (reply) => {
        const flags = reply as number[];
        for (let i = 0; i < batch.length; i += 1) answer(batch[i]!, flags[i + 1] === 1 ? flags[0] : 0);
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  };
  return (id, fixed, arg) =>
    new Promise((resolve, reject) => {
      if (creates.length === 0) setImmediate(flush);
      creates.push({ id, fixed, arg, resolve: resolve as (value: unknown) => void, reject });
    });
}
