/**
 * The Redis task backend's connections: the shared one's readiness and the failure mapping of every
 * call (`createRedisCaller`), and the blocking connections a dequeue waits for work on
 * (`createWakeWaiter`).
 */
import { Cluster } from "ioredis";
import { ManifoldError } from "../errors/index.js";
import type { RedisClient } from "../store/index.js";

export interface RedisCaller {
  /** Runs a command: UNAVAILABLE (retryable, no address or secret in the text) when Redis is not connected or the command fails. */
  call<T>(run: () => Promise<T>): Promise<T>;
  /** Stops watching the client's readiness. */
  dispose(): void;
}

/**
 * Before the client's first connection a call waits up to `connectWaitMs` for it; once it has been
 * connected, a call while it is down fails at once (a worker retries with backoff; an API caller
 * gets a 503 now rather than after ioredis's reconnection attempts).
 */
export function createRedisCaller(client: RedisClient, connectWaitMs: number): RedisCaller {
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

  return {
    call: async (run) => {
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
    const conn = client instanceof Cluster ? client.duplicate() : client.duplicate();
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

interface PendingCreate {
  readonly id: string;
  readonly fixed: string;
  readonly resolve: (created: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Sends one batch of creates; resolves with the server time and, per create, 1 (created) or 0 (the id exists). */
export type SendCreates = (args: readonly string[]) => Promise<unknown>;

/**
 * Creates made in one event-loop turn (the requests of one busy API process, say) go to Redis as
 * one script call: one round trip and one script invocation for the lot instead of one each, which
 * is most of what a create costs on both sides. A lone create waits one turn (setImmediate). The
 * returned function resolves with the creation time, or 0 when the id was taken.
 */
export function createCreateBatcher(send: SendCreates, prefix: string, chunk: number): (id: string, fixed: string) => Promise<unknown> {
  const creates: PendingCreate[] = [];
  const flush = (): void => {
    const batch = creates.splice(0, chunk);
    if (creates.length > 0) setImmediate(flush);
    const args: string[] = [prefix];
    for (const { id, fixed } of batch) args.push(id, fixed);
    send(args).then(
      (reply) => {
        const [now, ...flags] = reply as number[];
        batch.forEach(({ resolve }, i) => resolve(flags[i] === 1 ? now : 0));
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  };
  return (id, fixed) =>
    new Promise((resolve, reject) => {
      if (creates.length === 0) setImmediate(flush);
      creates.push({ id, fixed, resolve, reject });
    });
}
