/**
 * The in-process vector index (the port's embedded adapter): each scope's vectors as Float32Arrays,
 * cosine similarity as a dot product of unit vectors, scanned in full (a scope is bounded, so a scan
 * is too). Bounded in vectors per scope, scopes and bytes: past a bound the least recently used scope
 * is dropped whole (a scope over its own count drops its oldest vectors), with a log line. Its owner
 * hears of every drop (`onDrop`), so it can embed that scope's documents again when asked.
 */
import { createLogger, type Logger } from "../../telemetry/index.js";
import { keepBest } from "./lexical.js";
import type { Ranked, VectorIndex } from "./types.js";

export interface MemoryVectorIndexOptions {
  /** Vectors one scope (one user's facts, one domain's episodes) holds; past it its oldest go. */
  readonly maxVectorsPerScope?: number;
  /** Scopes held; past it the least recently used one goes. */
  readonly maxScopes?: number;
  /** Bytes held (4 per dimension, plus each id); past it the least recently used scopes go. */
  readonly maxBytes?: number;
  readonly log?: Logger;
  /** Told which scope was dropped for the bounds (not on `clear`). */
  readonly onDrop?: (scope: string) => void;
}

interface Scope {
  readonly vectors: Map<string, Float32Array>;
  dimensions: number;
  bytes: number;
}

/** What one vector costs: its floats, its id (UTF-16) and the map entry around them, roughly. */
const vectorBytes = (id: string, dimensions: number): number => 4 * dimensions + 2 * id.length + 64;

function checkBound(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`createMemoryVectorIndex: ${name} must be a positive whole number`);
  return value;
}

function checkVector(vector: readonly number[]): void {
  if (!Array.isArray(vector) || vector.length === 0 || !vector.every(Number.isFinite))
    throw new RangeError("a vector must be a non-empty array of finite numbers");
}

interface Bounds {
  readonly maxVectorsPerScope: number;
  readonly maxScopes: number;
  readonly maxBytes: number;
  readonly log: Logger;
  readonly onDrop: ((scope: string) => void) | undefined;
}

/** The index's contents: scopes in recency order (a scope used is deleted and set again, so the first is the least recent). */
interface Held {
  readonly scopes: Map<string, Scope>;
  bytes: number;
}

function touch(held: Held, name: string): Scope | undefined {
  const scope = held.scopes.get(name);
  if (scope !== undefined) {
    held.scopes.delete(name);
    held.scopes.set(name, scope);
  }
  return scope;
}

function dropScope(held: Held, bounds: Bounds, name: string, why: string): void {
  const scope = held.scopes.get(name)!;
  held.scopes.delete(name);
  held.bytes -= scope.bytes;
  // Scope names are user ids and domains: counts only.
  bounds.log.warn(`vector index: dropped the least recently used scope (${scope.vectors.size} vectors) ${why}`, {
    max_scopes: bounds.maxScopes,
    max_bytes: bounds.maxBytes,
  });
  bounds.onDrop?.(name);
}

function deleteVector(held: Held, scope: Scope, id: string): void {
  const vector = scope.vectors.get(id);
  if (vector === undefined) return;
  scope.vectors.delete(id);
  scope.bytes -= vectorBytes(id, vector.length);
  held.bytes -= vectorBytes(id, vector.length);
}

/** Brings the index back within its bounds, sparing `current` (the scope just written) as long as another can go. */
function enforce(held: Held, bounds: Bounds, current: string, scope: Scope): void {
  if (scope.vectors.size > bounds.maxVectorsPerScope) {
    while (scope.vectors.size > bounds.maxVectorsPerScope) deleteVector(held, scope, scope.vectors.keys().next().value!);
    bounds.log.warn("vector index: a scope reached its bound; its oldest vectors were dropped", { max_vectors_per_scope: bounds.maxVectorsPerScope });
  }
  while (held.scopes.size > bounds.maxScopes) dropScope(held, bounds, held.scopes.keys().next().value!, "past the scope bound");
  while (held.bytes > bounds.maxBytes && held.scopes.size > 1) {
    const [oldest, next] = held.scopes.keys();
    dropScope(held, bounds, oldest === current ? next! : oldest!, "past the byte bound");
  }
  while (held.bytes > bounds.maxBytes && scope.vectors.size > 0) deleteVector(held, scope, scope.vectors.keys().next().value!);
}

function upsertVector(held: Held, bounds: Bounds, name: string, id: string, vector: readonly number[]): void {
  checkVector(vector);
  if (typeof id !== "string" || id === "") throw new RangeError("a vector's id must be a non-empty string");
  if (vectorBytes(id, vector.length) > bounds.maxBytes) throw new RangeError("one vector is larger than the index's byte bound");
  let scope = touch(held, name);
  if (scope !== undefined && scope.vectors.size > 0 && scope.dimensions !== vector.length)
    throw new RangeError(`a vector of ${vector.length} dimensions in a scope of ${scope.dimensions} (was the embedding model changed? clear the scope)`);
  if (scope === undefined) held.scopes.set(name, (scope = { vectors: new Map(), dimensions: vector.length, bytes: 0 }));
  scope.dimensions = vector.length;
  // Deleted first so a rewritten vector counts as the newest of its scope.
  deleteVector(held, scope, id);
  scope.vectors.set(id, Float32Array.from(vector));
  scope.bytes += vectorBytes(id, vector.length);
  held.bytes += vectorBytes(id, vector.length);
  enforce(held, bounds, name, scope);
}

function queryScope(held: Held, name: string, vector: readonly number[], limit: number): Ranked[] {
  checkVector(vector);
  const wanted = Math.floor(limit);
  const scope = touch(held, name);
  if (scope === undefined || !(wanted >= 1)) return [];
  if (scope.dimensions !== vector.length) throw new RangeError(`a query of ${vector.length} dimensions in a scope of ${scope.dimensions}`);
  const query = Float32Array.from(vector);
  const top: Ranked[] = [];
  for (const [id, stored] of scope.vectors) {
    let dot = 0;
    for (let i = 0; i < query.length; i++) dot += query[i]! * stored[i]!;
    keepBest(top, { id, score: dot }, wanted);
  }
  return top;
}

export function createMemoryVectorIndex(options: MemoryVectorIndexOptions = {}): VectorIndex {
  const { maxVectorsPerScope = 10_000, maxScopes = 10_000, maxBytes = 64 * 1024 * 1024, log = createLogger({ component: "retrieval" }), onDrop } = options;
  const bounds: Bounds = {
    maxVectorsPerScope: checkBound("maxVectorsPerScope", maxVectorsPerScope),
    maxScopes: checkBound("maxScopes", maxScopes),
    maxBytes: checkBound("maxBytes", maxBytes),
    log,
    onDrop,
  };
  const held: Held = { scopes: new Map(), bytes: 0 };
  return {
    kind: "memory",
    upsert: async (name, id, vector) => upsertVector(held, bounds, name, id, vector),
    async remove(name, id) {
      const scope = held.scopes.get(name);
      if (scope === undefined) return;
      deleteVector(held, scope, id);
      if (scope.vectors.size === 0) held.scopes.delete(name);
    },
    async clear(name) {
      const scope = held.scopes.get(name);
      if (scope === undefined) return;
      held.scopes.delete(name);
      held.bytes -= scope.bytes;
    },
    query: async (name, vector, limit) => queryScope(held, name, vector, limit),
    async close() {
      held.scopes.clear();
      held.bytes = 0;
    },
  };
}
