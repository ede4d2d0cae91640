import {
  endedWithoutAnswer,
  checkLimits,
  checkListOptions,
  checkRequestId,
  DEFAULT_LLM_DEBUG_MAX_BYTES,
  DEFAULT_LLM_DEBUG_TTL_MS,
  DEFAULT_MAX_INTERACTIONS,
  DEFAULT_MAX_RECORDS,
  DEFAULT_MAX_TEXT_BYTES,
  MAX_SOURCE_COMPONENTS,
  prepareEntry,
  prepareFinish,
  type LlmDebugFinal,
  type LlmDebugRecord,
  type LlmDebugStatus,
  type LlmDebugStore,
  type LlmInteraction,
} from "./types.js";
import { checkInteger } from "../../util/index.js";

export interface MemoryLlmDebugStoreOptions {
  /** How long a record whose calls all succeeded is kept after its last append. @defaultValue 72 h */
  readonly ttlMs?: number;
  /** How long a record with a failed call is kept after its last append. @defaultValue 72 h */
  readonly errorTtlMs?: number;
  /** The least recently updated records are dropped beyond this many. @defaultValue 1000 */
  readonly maxRecords?: number;
  /** Per record; the oldest interactions are dropped beyond this many. @defaultValue 100 */
  readonly maxInteractions?: number;
  /** Prompt and response (each) are cut to this many UTF-8 bytes. @defaultValue 65536 */
  readonly maxTextBytes?: number;
  /**
   * Most bytes of text (prompts, responses, errors, labels) held across all records: past it the least
   * recently updated records go, and a lone record its oldest interactions. At least 4 × maxTextBytes,
   * so one interaction always fits. @defaultValue 32 MiB
   */
  readonly maxBytes?: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

/** The memory adapter, which can say how much it holds. */
export interface MemoryLlmDebugStore extends LlmDebugStore {
  /** The bytes the store counts against `maxBytes` now. */
  bytes(): number;
}

/** What a record costs besides its interactions' text (ids, dates, component names), counted generously. */
const RECORD_OVERHEAD = 1024;
/** An interaction's fixed fields (numbers, dates, keys), counted generously. */
const INTERACTION_OVERHEAD = 256;

/** An interaction's bytes as the budget counts them: its strings in UTF-8 and a fixed overhead. */
function sizeOf(interaction: LlmInteraction): number {
  const { type, model, prompt, response, finish_reason, error } = interaction;
  let bytes = INTERACTION_OVERHEAD;
  for (const text of [type, model, prompt, response, finish_reason ?? "", error?.code ?? "", error?.message ?? ""]) bytes += Buffer.byteLength(text);
  return bytes;
}

interface Held {
  readonly requestId: string;
  readonly originalRequestId: string;
  readonly sourceComponents: string[];
  readonly interactions: LlmInteraction[];
  /** What {@link sizeOf} says of each interaction, in the same order. */
  readonly sizes: number[];
  /** The record's count against the budget: its overhead and its interactions' sizes. */
  bytes: number;
  status: LlmDebugStatus;
  readonly created: number;
  updated: number;
  expires: number;
  dropped: number;
  final: LlmDebugFinal | undefined;
}

function snapshot(held: Held): LlmDebugRecord {
  return structuredClone({
    request_id: held.requestId,
    original_request_id: held.originalRequestId,
    source_components: held.sourceComponents,
    interactions: held.interactions,
    status: held.status,
    created_at: new Date(held.created).toISOString(),
    updated_at: new Date(held.updated).toISOString(),
    ...(held.dropped > 0 ? { dropped_interactions: held.dropped } : {}),
    ...(held.final === undefined ? {} : { final: held.final }),
  });
}

/** The records and their byte count, changed together. */
interface Ledger {
  /** Insertion order is update order: the first entry is the least recently updated. */
  readonly records: Map<string, Held>;
  total: number;
}

function remove(ledger: Ledger, id: string): void {
  const held = ledger.records.get(id);
  if (held === undefined) return;
  ledger.total -= held.bytes;
  ledger.records.delete(id);
}

function sweep(ledger: Ledger, at: number): void {
  for (const [id, held] of ledger.records) if (held.expires <= at) remove(ledger, id);
}

/** The record becomes the most recently updated (and counted, when new). */
function touch(ledger: Ledger, held: Held): void {
  if (!ledger.records.has(held.requestId)) ledger.total += held.bytes;
  ledger.records.delete(held.requestId); // re-inserted last: the Map's order is the eviction order
  ledger.records.set(held.requestId, held);
}

/** Appends the interaction to the record, which becomes the most recently updated. */
function append(ledger: Ledger, held: Held, interaction: LlmInteraction): void {
  if (!ledger.records.has(held.requestId)) ledger.total += held.bytes;
  const size = sizeOf(interaction);
  held.interactions.push(structuredClone(interaction));
  held.sizes.push(size);
  held.bytes += size;
  ledger.total += size;
  ledger.records.delete(held.requestId); // re-inserted last: the Map's order is the eviction order
  ledger.records.set(held.requestId, held);
}

/**
 * Least recently updated first: expired records, then whole records past the count or the budget,
 * then the newest record's oldest calls (beyond maxInteractions, or while still over the budget).
 */
function evict(ledger: Ledger, newest: Held, { maxRecords, maxBytes, maxInteractions }: Limits, at: number): void {
  const { records } = ledger;
  if (records.size > maxRecords || ledger.total > maxBytes) sweep(ledger, at);
  while (records.size > 1 && (records.size > maxRecords || ledger.total > maxBytes)) remove(ledger, records.keys().next().value!);
  while (newest.interactions.length > maxInteractions || (newest.interactions.length > 1 && ledger.total > maxBytes)) {
    newest.interactions.shift();
    const size = newest.sizes.shift()!;
    newest.bytes -= size;
    ledger.total -= size;
    newest.dropped += 1;
  }
}

function emptyHeld(requestId: string, originalRequestId: string, at: number): Held {
  return {
    requestId,
    originalRequestId,
    sourceComponents: [],
    interactions: [],
    sizes: [],
    bytes: RECORD_OVERHEAD,
    status: "success",
    created: at,
    updated: at,
    expires: at,
    dropped: 0,
    final: undefined,
  };
}

interface Limits {
  readonly maxRecords: number;
  readonly maxBytes: number;
  readonly maxInteractions: number;
}

/**
 * The embedded adapter: one process, bounded in count, bytes and time. A Map keyed by request id (so
 * an id like `__proto__` is just a key), whose insertion order is the update order: each append moves
 * its record last, so the first entry is the least recently updated, the one evicted. An append is
 * synchronous from check to write, so concurrent appends cannot interleave.
 */
export function createMemoryLlmDebugStore({
  ttlMs = DEFAULT_LLM_DEBUG_TTL_MS,
  errorTtlMs = DEFAULT_LLM_DEBUG_TTL_MS,
  maxRecords = DEFAULT_MAX_RECORDS,
  maxInteractions = DEFAULT_MAX_INTERACTIONS,
  maxTextBytes = DEFAULT_MAX_TEXT_BYTES,
  maxBytes = DEFAULT_LLM_DEBUG_MAX_BYTES,
  now = Date.now,
}: MemoryLlmDebugStoreOptions = {}): MemoryLlmDebugStore {
  checkLimits({ ttlMs, errorTtlMs, maxRecords, maxInteractions, maxTextBytes });
  // One interaction holds at most three texts of maxTextBytes (prompt, response, error) and short labels.
  checkInteger("maxBytes", maxBytes, { min: 4 * maxTextBytes + RECORD_OVERHEAD });
  const ledger: Ledger = { records: new Map(), total: 0 };
  const limits: Limits = { maxRecords, maxBytes, maxInteractions };

  const live = (requestId: string): Held | undefined => {
    const held = ledger.records.get(requestId);
    if (held === undefined || held.expires > now()) return held;
    remove(ledger, requestId);
    return undefined;
  };

  const heldOf = (requestId: string, originalRequestId: string, at: number): Held => live(requestId) ?? emptyHeld(requestId, originalRequestId, at);

  return {
    kind: "memory",
    record: async (entry) => {
      const { requestId, originalRequestId, sourceComponent, interaction } = prepareEntry(entry, maxTextBytes);
      const at = now();
      const held = heldOf(requestId, originalRequestId, at);
      if (!held.sourceComponents.includes(sourceComponent) && held.sourceComponents.length < MAX_SOURCE_COMPONENTS) {
        held.sourceComponents.push(sourceComponent);
      }
      if (!interaction.success) held.status = "error";
      held.updated = at;
      held.expires = at + (held.status === "error" ? errorTtlMs : ttlMs);
      append(ledger, held, interaction);
      evict(ledger, held, limits, at);
    },
    finish: async (entry) => {
      const { requestId, originalRequestId, final } = prepareFinish(entry);
      const at = now();
      const held = heldOf(requestId, originalRequestId, at);
      // A final outcome is labels and numbers: within the record's counted overhead.
      held.final = { ...final, at: new Date(at).toISOString() };
      if (endedWithoutAnswer(final)) held.status = "error";
      held.updated = at;
      held.expires = at + (held.status === "error" ? errorTtlMs : ttlMs);
      touch(ledger, held);
      evict(ledger, held, limits, at);
    },
    get: async (requestId) => {
      const held = live(checkRequestId(requestId));
      return held === undefined ? undefined : snapshot(held);
    },
    list: async (options) => {
      const { limit, status } = checkListOptions(options);
      sweep(ledger, now());
      const found: LlmDebugRecord[] = [];
      // Newest first is the Map's order backwards.
      for (const held of [...ledger.records.values()].reverse()) {
        if (found.length >= limit) break;
        if (status === undefined || held.status === status) found.push(snapshot(held));
      }
      return found;
    },
    bytes: () => ledger.total,
    close: async () => undefined,
  };
}
