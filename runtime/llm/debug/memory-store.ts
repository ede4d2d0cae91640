import {
  checkLimits,
  checkListOptions,
  checkRequestId,
  DEFAULT_LLM_DEBUG_TTL_MS,
  DEFAULT_MAX_INTERACTIONS,
  DEFAULT_MAX_RECORDS,
  DEFAULT_MAX_TEXT_BYTES,
  MAX_SOURCE_COMPONENTS,
  prepareEntry,
  type LlmDebugRecord,
  type LlmDebugStatus,
  type LlmDebugStore,
  type LlmInteraction,
} from "./types.js";

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
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

interface Held {
  readonly requestId: string;
  readonly originalRequestId: string;
  readonly sourceComponents: string[];
  readonly interactions: LlmInteraction[];
  status: LlmDebugStatus;
  readonly created: number;
  updated: number;
  expires: number;
  dropped: number;
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
  });
}

/**
 * The embedded adapter: one process, bounded in count, size and time. A Map keyed by request id (so
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
  now = Date.now,
}: MemoryLlmDebugStoreOptions = {}): LlmDebugStore {
  checkLimits({ ttlMs, errorTtlMs, maxRecords, maxInteractions, maxTextBytes });
  const records = new Map<string, Held>();

  const sweep = (): void => {
    const at = now();
    for (const [id, held] of records) if (held.expires <= at) records.delete(id);
  };

  const live = (requestId: string): Held | undefined => {
    const held = records.get(requestId);
    if (held === undefined || held.expires > now()) return held;
    records.delete(requestId);
    return undefined;
  };

  return {
    kind: "memory",
    record: async (entry) => {
      const { requestId, originalRequestId, sourceComponent, interaction } = prepareEntry(entry, maxTextBytes);
      const at = now();
      const held: Held = live(requestId) ?? {
        requestId,
        originalRequestId,
        sourceComponents: [],
        interactions: [],
        status: "success",
        created: at,
        updated: at,
        expires: at,
        dropped: 0,
      };
      held.interactions.push(structuredClone(interaction));
      if (held.interactions.length > maxInteractions) {
        const over = held.interactions.length - maxInteractions;
        held.interactions.splice(0, over);
        held.dropped += over;
      }
      if (!held.sourceComponents.includes(sourceComponent) && held.sourceComponents.length < MAX_SOURCE_COMPONENTS) {
        held.sourceComponents.push(sourceComponent);
      }
      if (!interaction.success) held.status = "error";
      held.updated = at;
      held.expires = at + (held.status === "error" ? errorTtlMs : ttlMs);
      records.delete(requestId); // re-inserted last: the Map's order is the eviction order
      records.set(requestId, held);
      if (records.size > maxRecords) sweep();
      while (records.size > maxRecords) records.delete(records.keys().next().value!);
    },
    get: async (requestId) => {
      const held = live(checkRequestId(requestId));
      return held === undefined ? undefined : snapshot(held);
    },
    list: async (options) => {
      const { limit, status } = checkListOptions(options);
      sweep();
      const found: LlmDebugRecord[] = [];
      // Newest first is the Map's order backwards.
      for (const held of [...records.values()].reverse()) {
        if (found.length >= limit) break;
        if (status === undefined || held.status === status) found.push(snapshot(held));
      }
      return found;
    },
    close: async () => undefined,
  };
}
