/**
 * User memory, put together: the fact store, the recall source, and the extraction queue that chat
 * turns feed. Deleting goes through here so a fact leaves the store, recall's held facts and the
 * retriever (its vector too) at once: the next recall cannot see it.
 */
import type { LlmProvider } from "../../llm/index.js";
import type { RecordCall } from "../../orchestration/index.js";
import type { Logger } from "../../telemetry/index.js";
import type { Retriever } from "../retrieval/index.js";
import { type ChatTurn, extractFromTurn, type ExtractionOutcome } from "./extraction.js";
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

export function createUserMemory(options: UserMemoryOptions): UserMemory {
  const { facts, retriever, llm, log, now = Date.now, maxFacts } = options;
  const source = createRecallSource({ facts, retriever, budgetBytes: options.budgetBytes });
  const changed = async (user: string, changes: readonly FactChange[]): Promise<void> => {
    for (const change of changes) {
      if (change.action === "deleted") await retriever.remove(factScope(user), change.key);
      else if (change.action !== "dropped") await retriever.upsert(factScope(user), factDoc(change.fact));
    }
  };
  const queue = createWorkQueue<ChatTurn>({
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.queueLimit === undefined ? {} : { limit: options.queueLimit }),
    run: async (turn, signal) => {
      const outcome = await extractFromTurn(turn, { facts, llm: llm!, recorder: options.recorder, now, maxFacts, changed, log }, signal);
      options.onExtracted?.(outcome);
    },
    onError: (error) => log.warn("user memory: a turn's extraction failed; nothing was kept from it", { error }),
  });
  return {
    source,
    onTurn(turn) {
      // Nothing to learn about nobody in particular, and nothing to learn with without a model.
      if (turn.identity.via === "anonymous" || llm === undefined) return;
      if (!queue.push(turn)) log.warn("user memory: the extraction queue is full; a turn was not looked at", { request_id: turn.request_id });
    },
    async remove(user, key) {
      const removed = await facts.delete(user, key);
      source.forget(user);
      await retriever.remove(factScope(user), key);
      return removed;
    },
    async clear(user) {
      const removed = await facts.clear(user);
      source.forget(user);
      await retriever.clear(factScope(user));
      return removed;
    },
    whenIdle: () => queue.whenIdle(),
    stop: () => queue.stop(),
  };
}

export { createRecallSource, DEFAULT_RECALL_BUDGET_BYTES, type RecallSource } from "./recall.js";
export { EXTRACTION_SPAN, USER_MEMORY_EVENT, type ChatTurn, type ExtractionOutcome } from "./extraction.js";
export { looksSecret } from "./secrets.js";
export { reconcile } from "./reconcile.js";
