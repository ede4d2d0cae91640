/**
 * What a value held in an embedded (in-process) store counts against its byte budget: its JSON text
 * as UTF-16, about what the heap holds for it. One estimate for every memory adapter, so their
 * budgets mean the same thing.
 */
export function heapBytes(value: unknown): number {
  return 2 * JSON.stringify(value).length;
}
