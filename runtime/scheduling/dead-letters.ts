/**
 * The executor's dead-letter list: occurrences it gave up on, as the spec's JSON entries
 * `{task, reason, failed_at}` (plus the attempts made and the last error) on the list
 * `manifold:v1:<namespace>:tasks:dead:scheduled-executor`. Bounded: past `maxEntries` the oldest
 * entries are dropped. Taking an entry out (to replay it) is one atomic removal of that exact entry,
 * so two operators replaying the same letter re-enqueue it once.
 */
import type { RedisStore, Store } from "../store/index.js";
import { createTaskBackend, MAX_TASK_TIMEOUT_MS, type TaskRecord } from "../tasks/index.js";
import { SCHEDULED_EXECUTOR_QUEUE, SCHEDULED_TASK_TYPE } from "./wire.js";

/** `rejected`: the agent answered with a code no retry can mend (its `last_error`), dead-lettered at once. */
export type DeadLetterReason = "unknown_target_agent" | "target_not_agent" | "max_retries_exhausted" | "rejected";

export interface DeadLetter {
  /** The task as the executor received it. */
  readonly task: Pick<TaskRecord, "task_id" | "type" | "input" | "created_at" | "deliveries">;
  readonly reason: DeadLetterReason;
  /** ISO 8601. */
  readonly failed_at: string;
  /** Dispatch attempts made (0 when the target was never reachable as an agent). */
  readonly attempts: number;
  /** The last failure, as the error envelope's code and message. */
  readonly last_error?: { readonly code: string; readonly message: string };
}

export interface DeadLetters {
  push(letter: DeadLetter): Promise<void>;
  /** Oldest first. */
  list(options?: { readonly offset?: number; readonly limit?: number }): Promise<DeadLetter[]>;
  count(): Promise<number>;
  /** Takes the (first) entry of this task out; undefined when there is none, or another caller took it first. */
  take(taskId: string): Promise<DeadLetter | undefined>;
  close(): Promise<void>;
}

/** `<task_id>:replay-<ms>`, from the original id (a replay of a replay does not grow the id). */
const replayId = (taskId: string): string => `${taskId.replace(/:replay-\d+$/, "")}:replay-${Date.now()}`;

/**
 * Takes a dead letter out and queues its occurrence again on `scheduled-executor`, for the executor
 * to dispatch anew. Resolves with the new task id, or undefined when there was no such letter (or
 * another caller took it first). A letter whose task cannot be created goes back on the list.
 */
export async function replayDeadLetter(store: Store, deadLetters: DeadLetters, taskId: string): Promise<string | undefined> {
  const letter = await deadLetters.take(taskId);
  if (letter === undefined) return undefined;
  const backend = createTaskBackend({ store, queue: SCHEDULED_EXECUTOR_QUEUE });
  const id = replayId(taskId);
  try {
    await backend.create({ task_id: id, type: SCHEDULED_TASK_TYPE, input: letter.task.input, timeout_ms: MAX_TASK_TIMEOUT_MS });
    return id;
  } catch (error) {
    await deadLetters.push(letter);
    throw error;
  } finally {
    await backend.close();
  }
}

export const DEFAULT_MAX_DEAD_LETTERS = 10_000;

function checkPage({ offset = 0, limit = 100 }: { readonly offset?: number; readonly limit?: number } = {}): { offset: number; limit: number } {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError("offset must be a non-negative integer");
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new RangeError("limit must be an integer from 1 to 1000");
  return { offset, limit };
}

function createMemoryDeadLetters(maxEntries: number): DeadLetters {
  const entries: string[] = [];
  return {
    push: async (letter) => {
      entries.push(JSON.stringify(letter));
      if (entries.length > maxEntries) entries.splice(0, entries.length - maxEntries);
    },
    list: async (options) => {
      const { offset, limit } = checkPage(options);
      return entries.slice(offset, offset + limit).map((text) => JSON.parse(text) as DeadLetter);
    },
    count: async () => entries.length,
    take: async (taskId) => {
      const at = entries.findIndex((text) => (JSON.parse(text) as DeadLetter).task.task_id === taskId);
      return at < 0 ? undefined : (JSON.parse(entries.splice(at, 1)[0]!) as DeadLetter);
    },
    close: async () => undefined,
  };
}

function createRedisDeadLetters({ client, keys }: RedisStore, maxEntries: number): DeadLetters {
  const key = keys.key("tasks", "dead", SCHEDULED_EXECUTOR_QUEUE);
  return {
    push: async (letter) => {
      const replies = await client.multi().rpush(key, JSON.stringify(letter)).ltrim(key, -maxEntries, -1).exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
    list: async (options) => {
      const { offset, limit } = checkPage(options);
      const texts = await client.lrange(key, offset, offset + limit - 1);
      return texts.map((text) => JSON.parse(text) as DeadLetter);
    },
    count: async () => client.llen(key),
    take: async (taskId) => {
      // Scanned in pages; LREM of the exact text is the claim: only one caller removes it.
      for (let start = 0; ; start += 500) {
        const texts = await client.lrange(key, start, start + 499);
        const text = texts.find((t) => (JSON.parse(t) as DeadLetter).task.task_id === taskId);
        if (text !== undefined) return (await client.lrem(key, 1, text)) === 1 ? (JSON.parse(text) as DeadLetter) : undefined;
        if (texts.length < 500) return undefined;
      }
    },
    close: async () => undefined,
  };
}

/** The list for a store: a Redis list, or (memory) one bounded array per process and namespace. */
export function createDeadLetters(store: Store, { maxEntries = DEFAULT_MAX_DEAD_LETTERS }: { readonly maxEntries?: number } = {}): DeadLetters {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError("maxEntries must be a positive integer");
  return store.kind === "memory"
    ? store.slot(`dead-letters:${SCHEDULED_EXECUTOR_QUEUE}`, () => createMemoryDeadLetters(maxEntries))
    : createRedisDeadLetters(store, maxEntries);
}
