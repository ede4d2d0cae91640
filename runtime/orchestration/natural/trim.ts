/**
 * Step results trimmed to a byte budget before they go into a synthesis prompt: a tool that answers
 * with a megabyte must not cost a megabyte of tokens (or overflow the model's context). Structural
 * first (long strings shortened, long arrays cut, deep objects folded, each cut marked in place so
 * the model knows something is missing), then bytes as the last resort.
 */
import { llmEventScope, requestEvent } from "./run-context.js";

export interface TrimResult {
  readonly text: string;
  readonly method: "none" | "structural" | "bytes";
  /** True when anything was left out: the authoritative loss signal (`result_trim.completed`). */
  readonly content_lost: boolean;
  readonly original_bytes: number;
  readonly trimmed_bytes: number;
  /** Leaves and array items kept and left out by the structural pass. */
  readonly fields_kept: number;
  readonly fields_dropped: number;
}

const LEVELS: readonly { strings: number; items: number; depth: number }[] = [
  { strings: 2000, items: 50, depth: 8 },
  { strings: 500, items: 20, depth: 6 },
  { strings: 120, items: 5, depth: 4 },
  { strings: 40, items: 2, depth: 3 },
];

interface Counts {
  kept: number;
  dropped: number;
}

function prune(value: unknown, level: (typeof LEVELS)[number], depth: number, counts: Counts): unknown {
  if (typeof value === "string") {
    counts.kept += 1;
    if (value.length <= level.strings) return value;
    counts.dropped += 1;
    return `${value.slice(0, level.strings)}…(${value.length - level.strings} more characters)`;
  }
  if (typeof value !== "object" || value === null) {
    counts.kept += 1;
    return value;
  }
  if (depth >= level.depth) {
    counts.dropped += 1;
    return Array.isArray(value) ? `[…${value.length} items]` : "{…}";
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, level.items).map((item) => prune(item, level, depth + 1, counts));
    if (value.length > level.items) {
      counts.dropped += value.length - level.items;
      kept.push(`…(${value.length - level.items} more items)`);
    }
    return kept;
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, prune(item, level, depth + 1, counts)]));
}

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/** `value` as JSON text of at most `budgetBytes` UTF-8 bytes (plus a short marker when cut). */
export function trimResults(value: unknown, budgetBytes: number): TrimResult {
  const text = JSON.stringify(value, null, 1) ?? "null";
  const original = bytes(text);
  if (original <= budgetBytes)
    return { text, method: "none", content_lost: false, original_bytes: original, trimmed_bytes: original, fields_kept: 0, fields_dropped: 0 };
  for (const level of LEVELS) {
    const counts: Counts = { kept: 0, dropped: 0 };
    const pruned = JSON.stringify(prune(value, level, 0, counts), null, 1);
    const size = bytes(pruned);
    if (size <= budgetBytes)
      return {
        text: pruned,
        method: "structural",
        content_lost: true,
        original_bytes: original,
        trimmed_bytes: size,
        fields_kept: counts.kept,
        fields_dropped: counts.dropped,
      };
  }
  // Cut on a character boundary: a lone surrogate half would be invalid text for the endpoint.
  let cut = Buffer.from(text, "utf8").subarray(0, budgetBytes).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  const out = `${cut}…(truncated)`;
  return { text: out, method: "bytes", content_lost: true, original_bytes: original, trimmed_bytes: bytes(out), fields_kept: 0, fields_dropped: 0 };
}

/**
 * `value` trimmed to the budget, as prompt text; when anything was cut, `event` (a `result_trim.*`
 * name) on the request's span with the trim's figures and `attributes`, so a loss is never silent.
 */
export function trimmedText(event: string, value: unknown, budgetBytes: number, attributes: Readonly<Record<string, string | number | boolean>>): string {
  const trimmed = trimResults(value, budgetBytes);
  if (trimmed.method === "none") return trimmed.text;
  const { method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped } = trimmed;
  requestEvent(event, { ...llmEventScope(), ...attributes, method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped });
  return trimmed.text;
}

/** A `TrimResult`'s figures, as a `result_trim.*` event carries them. */
export function trimFigures({ method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped }: TrimResult) {
  return { method, content_lost, original_bytes, trimmed_bytes, fields_kept, fields_dropped };
}

/**
 * What is shown of a result a distillation could not summarise: `value` trimmed structurally to the
 * budget, reported as `result_trim.structural` then `result_trim.completed` (content_lost true: the
 * model is shown less than the tool returned, and nothing read the rest).
 */
export function structuralFallback(value: unknown, budgetBytes: number, attributes: Readonly<Record<string, string | number | boolean>>): TrimResult {
  const trimmed = trimResults(value, budgetBytes);
  const figures = { ...llmEventScope(), ...attributes, ...trimFigures(trimmed) };
  requestEvent("result_trim.structural", figures);
  requestEvent("result_trim.completed", figures);
  return trimmed;
}
