/**
 * User memory, put together: the fact store, the recall source, and the extraction queue that chat
 * turns feed. Deleting goes through here so a fact leaves the store, recall's held facts and the
 * retriever (its vector too) at once: the next recall cannot see it.
 */
import { ownerKey } from "../../context/index.js";
import { cutUtf8, type LlmProvider } from "../../llm/index.js";
import type { RecordCall } from "../../orchestration/served.js";
import type { Logger } from "../../telemetry/index.js";
import type { Retriever } from "../retrieval/index.js";
import { type ChatTurn, extractFromTurn, type ExtractionOutcome } from "./extraction.js";
import { MAX_TURN_BYTES } from "./prompts.js";
import { createWorkQueue } from "./queue.js";
import { createRecallSource, factDoc, factScope, type RecallSource } from "./recall.js";
import type { FactChange, FactStore } from "./store/types.js";

export interface UserMemoryOptions {
  readonly facts: FactStore;
  readonly retriever: Retriever;
  /** The agent's model (unbudgeted: extraction is background work); without one nothing is extracted. */
  readonly llm: LlmProvider | undefined;
  readonly recorder: (requestId: string) => RecordCall | undefined;
  readonly log: Logger;
  /** @defaultValue Date.now */
  readonly now?: () => number;
  readonly maxFacts: number;
  /** Recall's byte budget. */
  readonly budgetBytes: number;
  /** Extractions running at once. @defaultValue 4 */
  readonly concurrency?: number;
  /** Turns waiting for extraction at most; past it a turn is dropped (logged). @defaultValue 100 */
  readonly queueLimit?: number;
  /** Told how each extraction went (tests). */
  readonly onExtracted?: (outcome: ExtractionOutcome | undefined) => void;
}

export interface UserMemory {
  readonly source: RecallSource;
  /** Queues a turn's extraction; returns at once. */
  onTurn(turn: ChatTurn): void;
  /** Deletes one fact everywhere at once; false when it was absent. */
  remove(user: string, key: string): Promise<boolean>;
  /** Deletes every fact (and the summary) of a user everywhere at once; the count removed. */
  clear(user: string): Promise<number>;
  /** Resolves once no extraction waits or runs. */
  whenIdle(): Promise<void>;
  stop(): Promise<void>;
}

/** What an extraction in flight learns of the deletes made here meanwhile. */
interface Watch {
  readonly user: string;
  readonly keys: Set<string>;
  all: boolean;
}

/** A turn as the queue holds it: only the part of each text the extraction prompt quotes, so 100 waiting turns stay small. */
export function queuedTurn(turn: ChatTurn): ChatTurn {
  return { ...turn, message: cutUtf8(turn.message, MAX_TURN_BYTES).text, answer: cutUtf8(turn.answer, MAX_TURN_BYTES).text };
}

export function createUserMemory(options: UserMemoryOptions): UserMemory {
  const { facts, retriever, llm, log, now = Date.now, maxFacts } = options;
  const source = createRecallSource({ facts, retriever, budgetBytes: options.budgetBytes });
  // One entry per turn queued or being extracted (bounded by the queue): a delete made meanwhile wins over it.
  const watching = new Set<Watch>();
  const forget = (user: string, key: string | undefined): void => {
    for (const watch of watching) {
      if (watch.user !== user) continue;
      if (key === undefined) watch.all = true;
      else watch.keys.add(key);
    }
  };
  // The signal is the queue's: an embeddings call of the vector side ends with the memory's stop.
  const changed = async (user: string, changes: readonly FactChange[], signal: AbortSignal): Promise<void> => {
    for (const change of changes) {
      if (change.action === "deleted") await retriever.remove(factScope(user), change.key);
      else if (change.action !== "dropped") await retriever.upsert(factScope(user), factDoc(change.fact), { signal });
    }
  };
  const queue = createWorkQueue<{ readonly turn: ChatTurn; readonly watch: Watch }>({
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.queueLimit === undefined ? {} : { limit: options.queueLimit }),
    // A user's turns one at a time, in order: a later turn's facts are never overwritten by an earlier one's.
    keyOf: ({ watch }) => watch.user,
    run: async ({ turn, watch }, signal) => {
      try {
        const deps = { facts, llm: llm!, recorder: options.recorder, now, maxFacts, changed, log, forgotten: watch };
        const outcome = await extractFromTurn(turn, deps, signal);
        options.onExtracted?.(outcome);
      } finally {
        watching.delete(watch);
      }
    },
    onError: (error) => log.warn("user memory: a turn's extraction failed; nothing was kept from it", { error }),
  });
  return {
    source,
    onTurn(turn) {
      // Nothing to learn about nobody in particular, and nothing to learn with without a model.
      if (turn.identity.via === "anonymous" || llm === undefined) return;
      const watch: Watch = { user: ownerKey(turn.identity), keys: new Set(), all: false };
      watching.add(watch);
      if (queue.push({ turn: queuedTurn(turn), watch })) return;
      watching.delete(watch);
      log.warn("user memory: the extraction queue is full; a turn was not looked at", { request_id: turn.request_id });
    },
    async remove(user, key) {
      const removed = await facts.delete(user, key);
      // Only a fact that was there: the keys noted stay as few as the user's facts.
      if (removed) forget(user, key);
      source.forget(user);
      await retriever.remove(factScope(user), key);
      return removed;
    },
    async clear(user) {
      const removed = await facts.clear(user);
      forget(user, undefined);
      source.forget(user);
      await retriever.clear(factScope(user));
      return removed;
    },
    whenIdle: () => queue.whenIdle(),
    async stop() {
      await queue.stop();
      watching.clear();
    },
  };
}

export { createRecallSource, DEFAULT_RECALL_BUDGET_BYTES, type RecallSource } from "./recall.js";
export { EXTRACTION_SPAN, USER_MEMORY_EVENT, type ChatTurn, type ExtractionOutcome } from "./extraction.js";
export { looksSecret } from "./secrets.js";
export { reconcile } from "./reconcile.js";
